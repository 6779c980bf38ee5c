#pragma once
// Where a summary's source passage lies on a rendered PDF page. The passage comes from the
// ingested text, which differs from the page's words: ingestion joined hyphenated line
// breaks and dropped running headers and footers. So the passage's words are matched in
// order against the page's word boxes, tolerant of both, and the matched boxes are merged
// into one rectangle per printed line. A passage that runs onto the next page carries the
// count of words already found, and the next page continues from there.
#include <QRectF>
#include <QString>
#include <QStringList>
#include <QVector>

namespace precis::ui {

struct PageWord {
    QString text;
    QRectF box;  // in PDF points, as Poppler reports it
};

// A passage's words reduced to what survives on the page: lower case, letters and digits
// only; words that were only punctuation are dropped.
QStringList passage_words(const QString& passage);

struct PassageMarks {
    QVector<QRectF> lines;  // one rectangle per printed line, in PDF points
    int matched = 0;        // passage words found on this page, counted from `from`
};

// Finds `words[from...]` on `page`. A fresh passage (from == 0) may start anywhere;
// a continuation must start near the top of the page (after a header or page number).
// Where the opening words occur more than once (a title line repeating the sentence's
// first words), the place that matches the most words wins; at a tie, the place whose
// preceding page words agree with `before` (the words the text has just before the
// passage, passage_words() of them, last ones last), then the first.
PassageMarks mark_passage(const QVector<PageWord>& page, const QStringList& words, int from,
                          const QStringList& before = {});

}  // namespace precis::ui
