#pragma once
// One entry of a long document's outline: a part of the document that the model read in
// one window (one section, several small consecutive sections packed together, or one
// part of a section too long for a window) and the summary of that part.
//
// A summary made section by section (app/long/long_summarizer.h) carries one per window,
// in document order; they are stored with the summary in the library, exported, shown in
// the window's outline pane and searched.
#include <QJsonArray>
#include <QString>
#include <QVector>

namespace precis {

struct OutlineSection {
    QString title;              // "CHAPTER I. Dombey and Son", "Introduction - Methods", "Pages 3-7"
    int start = 0, end = 0;     // QString (UTF-16) indices into the document text: [start, end)
    int first_page = -1;        // 0-based PDF pages the part spans; -1 for text files
    int last_page = -1;
    QString summary;            // the model's (or the extractive method's) summary of the part
    int tokens = 0;             // model tokens the part holds (0 for an extractive outline)

    bool operator==(const OutlineSection&) const = default;
};

using DocumentOutline = QVector<OutlineSection>;

// How section `index` (0-based) is named to a person: its title, else "Section N"; and where
// it is: "pages 3-7", "page 3" (counted from 1), empty for a text file's section;
// section_pages_text puts that in parentheses after a space (" (pages 3-7)").
QString section_display_title(const OutlineSection& section, int index);
QString section_pages(const OutlineSection& section);
QString section_pages_text(const OutlineSection& section);

// The outline as JSON, as the library's export and `summarize --json` give it:
// {title, start, end, pages: [first, last] (0-based) or null, summary, tokens} each.
QJsonArray outline_to_json(const DocumentOutline& outline);

}  // namespace precis
