#pragma once
// Where a document too long for one model window is cut: the windows a section-by-section
// summary reads (app/long/long_summarizer.h).
//
// Windows follow the document: its sections come from the PDF outline when it has one,
// else from chapter and section headings (the extractive summarizer's heading rules,
// app/extractive/document_sections.h), else from pages (PDF) or runs of paragraphs.
// Consecutive sections that fit together share a window; a section longer than a window
// is cut into near-equal parts at paragraph starts, or at sentence starts inside a
// paragraph longer than a window. Windows tile the text: every character (so every token)
// is in exactly one, and none starts or ends inside a sentence, except a "sentence" longer
// than a whole window (a table or a list without full stops), which is cut between words.
#include <QString>
#include <QVector>

#include <functional>
#include <vector>

#include "app/ingest/ingest.h"
#include "app/long/outline_section.h"

namespace precis::longdoc {

struct SectionWindow {
    int start = 0, end = 0;   // [start, end): QString (UTF-16) indices into the document text
    QString title;            // the sections it holds: "CHAPTER I.", "Introduction - Methods", "Results (part 2 of 3)"
    int first_page = -1;      // 0-based PDF pages it spans; -1 for text
    int last_page = -1;
    int tokens = 0;           // model tokens of its text (special tokens not counted)
};

// Tokens of a piece of text as the model's tokenizer makes them, without special tokens.
using TokenCounter = std::function<int(const QString&)>;

// Runs of non-space characters: the counter of windows measured in words.
int count_words(QStringView text);

// The outline entry of a window, with `summary`.
OutlineSection outline_entry(const SectionWindow& window, QString summary);

struct WindowPlanInput {
    const QString& text;
    const QVector<int>& page_offsets;     // PDF page starts; empty for text
    const QVector<OutlineEntry>& outline;  // PDF bookmarks; may be empty
};

// The windows of at most `max_tokens` tokens each (as `count` counts them), in order,
// tiling the whole text. Empty for a text without sentences. `should_abort` is polled
// between pieces (a book takes a few seconds to count).
std::vector<SectionWindow> plan_section_windows(const WindowPlanInput& document, int max_tokens,
                                                const TokenCounter& count,
                                                const std::function<bool()>& should_abort = {});

// Consecutive texts (the summaries of one level) grouped into windows of at most
// `max_tokens` tokens, joined with a blank line: [first, last) index ranges.
std::vector<std::pair<int, int>> group_consecutive(const std::vector<int>& tokens, int max_tokens);

}  // namespace precis::longdoc
