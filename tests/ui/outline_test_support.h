#pragma once
// Shared by the outline pane's tests and screenshots: a document in the window's library with
// a summary made section by section (SummaryRecord::sections), as the long summarizer stores
// one, without running a model: a text book with "CHAPTER N." headings, or a PDF with one
// section per run of pages.
#include <QRegularExpression>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "app/ingest/ingest.h"
#include "app/library/library.h"
#include "tests/support/simple_pdf.h"
#include "tests/ui/ui_test_support.h"

namespace precis::test {

// `chapters` chapters of plain prose, each "CHAPTER N. TITLE" and `paragraphs` paragraphs,
// long enough that a chapter's start is far below the first screenful.
inline std::string chapter_book(int chapters, int paragraphs = 30) {
    static const char* const kTitles[] = {"THE MILL ON THE RIVER", "A JOURNEY DOWNSTREAM", "THE FLOOD YEAR",
                                          "WINTER ON THE DELTA",  "THE NEW BRIDGE",       "WHAT THE SILT KEPT",
                                          "THE SURVEYORS",        "HIGH WATER AGAIN"};
    std::string text = "THE QUIET WORK OF RIVERS\n\nA book in chapters, written for the outline tests.\n\n";
    for (int c = 1; c <= chapters; ++c) {
        text += "CHAPTER " + std::to_string(c) + ". " + kTitles[(c - 1) % 8] + "\n\n";
        for (int p = 1; p <= paragraphs; ++p)
            text += "Paragraph " + std::to_string(p) + " of chapter " + std::to_string(c) +
                    ": the river carried its silt past the mill, the fields and the town, season after season, "
                    "and the people who lived beside it learned its habits slowly.\n\n";
    }
    return text;
}

// One section per "CHAPTER ..." line of `text`, to the next one (the first also takes what
// comes before it), with a summary that names its chapter; pages from `page_offsets` (a PDF's)
// when given.
inline DocumentOutline chapter_sections(const QString& text, const QVector<int>& page_offsets = {}) {
    static const QRegularExpression heading(QStringLiteral("^CHAPTER [^\\n]+$"), QRegularExpression::MultilineOption);
    QVector<int> starts;
    QStringList titles;
    for (auto it = heading.globalMatch(text); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        starts << int(m.capturedStart());
        titles << m.captured().trimmed();
    }
    const auto page_at = [&](int offset) {
        if (page_offsets.isEmpty()) return -1;
        return std::max(0, int(std::upper_bound(page_offsets.begin(), page_offsets.end(), offset) - page_offsets.begin()) - 1);
    };
    DocumentOutline out;
    for (int i = 0; i < starts.size(); ++i) {
        OutlineSection s;
        s.title = titles[i];
        s.start = i == 0 ? 0 : starts[i];
        s.end = i + 1 < starts.size() ? starts[i + 1] : int(text.size());
        s.first_page = page_at(s.start);
        s.last_page = page_at(std::max(s.start, s.end - 1));
        s.summary = QStringLiteral("Section summary %1: what happens in %2, told in a few sentences.").arg(i + 1).arg(titles[i]);
        s.tokens = (s.end - s.start) / 4;
        out << s;
    }
    return out;
}

// Stores `doc` and a summary of it made section by section (or in one pass when `sections` is
// empty) in `library`; returns the document's id.
inline qint64 add_sectioned_summary(Library& library, const IngestedDocument& doc, const DocumentOutline& sections,
                                    const QString& whole_summary, qint64* summary_id = nullptr) {
    const qint64 id = library.add_or_get_document(doc);
    SummaryRecord s;
    s.document_id = id;
    s.model_name = QStringLiteral("bart-large-lsg-test");
    s.model_path = QStringLiteral("/models/bart-large-lsg-test");
    s.summary = whole_summary;
    s.input_tokens = int(doc.text.size() / 4);
    s.device = QStringLiteral("cpu");
    s.parameters = QJsonObject{{"attention", "lsg"}, {"num_beams", 4}, {"max_length", 256}, {"min_length", 40}};
    if (!sections.isEmpty()) s.parameters.insert("long", "sections");
    s.parameters.insert("tokens_read", int(s.input_tokens));
    s.sections = sections;
    const qint64 sid = library.add_summary(s);
    if (summary_id) *summary_id = sid;
    return id;
}

// A PDF of `pages` pages of numbered lines, a new "CHAPTER N. ..." starting every
// `pages_per_chapter` pages; read as the app reads it.
inline IngestedDocument chapter_pdf(const std::filesystem::path& file, int pages, int pages_per_chapter) {
    std::vector<std::vector<std::string>> content;
    for (int p = 0; p < pages; ++p) {
        std::vector<std::string> lines;
        if (p % pages_per_chapter == 0) {
            lines.push_back("CHAPTER " + std::to_string(p / pages_per_chapter + 1) + ". PAGES OF THE RIVER BOOK");
            lines.push_back("");
        }
        for (int l = 1; l <= 40; ++l)
            lines.push_back("Page " + std::to_string(p + 1) + " line " + std::to_string(l) +
                            ": the river carried its silt past the mill and the town.");
        content.push_back(lines);
    }
    std::filesystem::create_directories(file.parent_path());
    write_simple_pdf_pages(file, content);
    IngestOptions o;
    o.pdf_in_process = true;
    return ingest_file(QString::fromStdString(file.string()), o);
}

}  // namespace precis::test
