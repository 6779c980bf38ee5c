#pragma once
// Turns the text lines Poppler found on each PDF page (text plus position) into
// readable running text: repeated headers/footers and page numbers dropped,
// hyphenated line breaks joined, lines inside a paragraph unwrapped, paragraphs
// separated by a blank line, a paragraph running across a page break kept whole.
// Pure (no Poppler), so it can be tested with synthetic pages.
#include <QRectF>
#include <QString>
#include <QVector>

namespace precis {

struct PdfLine {
    QString text;  // words of one visual line in reading order, single-spaced
    QRectF box;    // page coordinates in points, y grows downwards
};

struct PdfPageLines {
    QVector<PdfLine> lines;  // reading order
};

struct PdfText {
    QString text;
    QVector<int> page_offsets;     // one per input page: where its text starts in `text`
    int header_footer_lines_removed = 0;
    QVector<int> pages_without_text;  // 1-based numbers of pages with no text at all
};

PdfText assemble_pdf_text(const QVector<PdfPageLines>& pages);

// Joins two lines of one paragraph: "infor-" + "mation" -> "information" (a hyphen
// at line end after a letter, followed by a lowercase letter; also soft hyphens),
// otherwise with a single space. Exposed for tests.
QString join_wrapped_lines(const QString& first, const QString& second);

}  // namespace precis
