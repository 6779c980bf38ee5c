#pragma once
// The Poppler half of PDF ingestion: the text lines of every page, the outline (bookmarks),
// the title, or why the file could not be opened. It runs either inside Precis or in the
// precis-pdf-reader process (pdf_reader_process.h), so it reports through a sink and throws
// nothing of its own: the caller turns a failure into the user-facing IngestError.
#include <QByteArray>
#include <QString>
#include <QVector>

#include "app/ingest/ingest.h"
#include "app/ingest/pdf_layout.h"

namespace precis {

enum class PdfOpenFailure : int {
    None = 0,
    NotAPdf = 1,        // Poppler could not load it
    NeedsPassword = 2,  // encrypted, and no password was given
    WrongPassword = 3,  // encrypted, and the password given does not open it
    NoPages = 4,        // it opened but has no pages
};

// What of a PDF's outline is read: a hostile file can nest bookmarks without end or hold
// millions of them; a reader wants the chapters and sections, not all of that.
inline constexpr int kMaxOutlineDepth = 3;          // levels 0, 1 and 2
inline constexpr int kMaxOutlineEntries = 10'000;
inline constexpr qsizetype kMaxOutlineTitle = 1000;  // characters of one entry's title

// Receives what Poppler reads, in order: opened(), then one page() per page, then outline()
// when the file has one, then title(). Each call is one step of progress (a "beat" for the
// stall limit).
class PdfPageSink {
public:
    virtual ~PdfPageSink() = default;
    virtual void opened(int page_count) = 0;
    // `lines` is null for a page Poppler could not load.
    virtual void page(int index, const PdfPageLines* lines) = 0;
    // Depth first, within the limits above; each entry's title, level and page (-1 for
    // one that points nowhere in this file); offset is left -1 (ingest.cpp finds it).
    virtual void outline(const QVector<OutlineEntry>& entries) = 0;
    virtual void title(const QString& title) = 0;
};

// Reads the PDF in `bytes` (unlocking it with `password` if it is encrypted). Returns None
// after reporting everything to `sink`, else why the file did not open (nothing reported).
PdfOpenFailure read_pdf_pages(const QByteArray& bytes, const QString& password, PdfPageSink& sink);

// What read_pdf_pages reported, collected (the in-process reader, and the parent side of
// the reader process).
struct PdfPages {
    QVector<PdfPageLines> pages;  // one per page of the file
    QVector<int> unreadable_pages;  // 1-based
    QVector<OutlineEntry> outline;  // empty when the file has none
    QString title;
    PdfOpenFailure failure = PdfOpenFailure::None;
    bool complete = false;  // title() was reported: nothing is missing
};

class PdfPagesCollector : public PdfPageSink {
public:
    void opened(int page_count) override;
    void page(int index, const PdfPageLines* lines) override;
    void outline(const QVector<OutlineEntry>& entries) override;
    void title(const QString& title) override;
    PdfPages& result() { return pages_; }

private:
    PdfPages pages_;
};

}  // namespace precis
