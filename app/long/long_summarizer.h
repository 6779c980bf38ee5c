#pragma once
// A document of any length summarized by a model that reads a few thousand tokens:
//  * it fits: one pass (LSG models read up to kLsgExtension x their trained length when
//    loaded extended, long_mode.h);
//  * it does not (--long auto or sections): it is cut into windows that follow its sections
//    (section_windows.h), all windows are summarized together (the batched engine,
//    Summarizer::summarize_many), and while the joined section summaries are longer than
//    the model reads they are grouped and summarized again (hierarchical merging, as in
//    BooookScore, Chang et al. 2024); a last pass over the joined summaries gives the
//    document's summary. Every pass uses the person's generation settings, so the final
//    summary has the length they asked for and each section's summary the same.
// Finished windows go to a SectionStore as they finish: a cancelled run continues from them.
#include <QString>
#include <QVector>

#include <functional>
#include <string>

#include "app/ingest/ingest.h"
#include "app/long/long_mode.h"
#include "app/long/outline_section.h"
#include "app/long/section_windows.h"
#include "engine/pipeline/summarizer.h"

namespace precis::longdoc {

class SectionStore;
}  // namespace precis::longdoc
namespace precis {
class Tokenizer;
}
namespace precis::longdoc {

struct LongDocument {
    const QString& text;
    const QVector<int>& page_offsets;      // PDF page starts; empty for text
    const QVector<OutlineEntry>& outline;  // PDF bookmarks; may be empty
};

// Whether summarize_long takes a document of `tokens` ids past one pass (in sections, or
// extend's error): what callers summarizing many documents together set apart for it.
inline bool beyond_one_pass(LongMode mode, int tokens, int readable) {
    return mode != LongMode::Truncate && tokens > readable;
}

struct LongOptions {
    LongMode mode = LongMode::Auto;
    int batch_size = 0;             // windows summarized together (0: as memory and speed call for)
    // Windows whose ids are made and handed to the engine at once: many more than it runs
    // together, so its batch stays full, and few enough that their ids are a few MB rather
    // than another copy of a long document (at least 4 x batch_size).
    int windows_at_once = 256;
    SectionStore* store = nullptr;  // where finished windows are kept; null: nowhere
};

struct LongProgress {
    std::function<void(int done, int total)> sections;  // windows summarized so far (kept ones included)
    std::function<void(int level)> combining;           // a pass over the section summaries starts (1, 2, ...)
};

enum class LongReading {
    Whole,      // it fits what the model was trained on
    Extended,   // one pass past the trained length (position table tiled)
    Sections,   // section by section, then combined
    Truncated,  // the first tokens only (--long truncate)
};
const char* long_reading_name(LongReading reading);
// How a one-pass summary read its document: truncated, past the trained length, or whole.
LongReading one_pass_reading(const SummaryResult& r, int trained_tokens);

struct LongSummary {
    // The document's summary. input_tokens counts the whole document; tokens_read is all of
    // it unless truncated. With source_attention, the weights and byte spans cover the
    // document's UTF-8 text through every level (a kept window's share is unknown: none).
    SummaryResult summary;
    LongReading reading = LongReading::Whole;
    DocumentOutline sections;  // one per window, in order; empty unless read in sections
    int levels = 0;            // combining passes (the final one included)
    int kept_sections = 0;     // windows found in the store (a continued run)
    int trained_tokens = 0;    // the model's trained input length
};

// One window as the model reads it: where it lies. Its text and ids are made again when it
// is read (window_text, window_ids), a few hundred windows at a time, so that the windows
// of a 10-million-word document hold no second and third copy of it.
struct ModelWindow {
    SectionWindow place;    // where it is in the document (place.tokens: its ids, bos/eos aside), its title and pages
    size_t byte_start = 0;  // where its text starts in the document's UTF-8
};
std::string window_text(const LongDocument& document, const ModelWindow& window);  // UTF-8
// Framed with bos/eos: at most the `readable` ids cut_into_windows was given.
std::vector<int64_t> window_ids(const Tokenizer& tokenizer, const std::string& window_text);

// The windows a section-by-section summary reads for a model that reads `readable` tokens
// (what summarize_long cuts; `precis tokenize --windows` prints them).
std::vector<ModelWindow> cut_into_windows(const LongDocument& document, const Tokenizer& tokenizer, int readable,
                                          const std::function<bool()>& should_abort = {});

// A summary made in one pass (e.g. among many documents at once) as a LongSummary.
LongSummary one_pass_summary(SummaryResult r, int trained_tokens);

// Throws precis::Error for empty text, an `extend` past what the model reaches, or when no
// window could be summarized; Cancelled on abort (finished windows are in the store).
LongSummary summarize_long(const Summarizer& summarizer, const LongDocument& document, const SummarizeOptions& options,
                           const LongOptions& long_options, const LongProgress& progress = {},
                           const RunCallbacks& callbacks = {});

}  // namespace precis::longdoc
