#include "app/ingest/pdf_pages.h"

#include <memory>
#include <mutex>
#include <poppler/qt6/poppler-qt6.h>

namespace precis {

namespace {

// Poppler reports every syntax problem of a damaged file on stderr; ingestion turns
// failures into IngestError instead, so its chatter is dropped.
void quiet_poppler() {
    static std::once_flag once;
    std::call_once(once, [] { Poppler::setDebugErrorFunction([](const QString&, const QVariant&) {}, QVariant()); });
}

// The visual lines of one page, in Poppler's reading order.
PdfPageLines page_lines(Poppler::Page& page) {
    PdfPageLines out;
    PdfLine line;
    for (const std::unique_ptr<Poppler::TextBox>& box : page.textList()) {
        line.text += box->text();
        if (box->hasSpaceAfter()) line.text += QLatin1Char(' ');
        line.box = line.box.isNull() ? box->boundingBox() : line.box.united(box->boundingBox());
        if (!box->nextWord()) {  // end of a visual line
            line.text = line.text.trimmed();
            if (!line.text.isEmpty()) out.lines.push_back(line);
            line = PdfLine();
        }
    }
    line.text = line.text.trimmed();
    if (!line.text.isEmpty()) out.lines.push_back(line);
    return out;
}

// The 0-based page of this file an outline item points to, or -1: no destination, a page of
// another file, or a page the file does not have.
int target_page(const Poppler::OutlineItem& item, int page_count) {
    if (!item.externalFileName().isEmpty()) return -1;
    const QSharedPointer<const Poppler::LinkDestination> destination = item.destination();
    if (!destination) return -1;
    const int page = destination->pageNumber() - 1;  // Poppler counts from 1
    return page >= 0 && page < page_count ? page : -1;
}

// Appends `items` and, depth first, their children to `out`, within kMaxOutlineDepth and
// kMaxOutlineEntries. Children are read only when wanted (Poppler loads them lazily).
void walk_outline(const QVector<Poppler::OutlineItem>& items, int level, int page_count, QVector<OutlineEntry>& out) {
    for (const Poppler::OutlineItem& item : items) {
        if (out.size() >= kMaxOutlineEntries) return;
        if (item.isNull()) continue;
        OutlineEntry entry;
        entry.title = item.name().simplified().left(kMaxOutlineTitle);
        entry.level = level;
        entry.page = target_page(item, page_count);
        out.push_back(std::move(entry));
        if (level + 1 < kMaxOutlineDepth && item.hasChildren())
            walk_outline(item.children(), level + 1, page_count, out);
    }
}

}  // namespace

PdfOpenFailure read_pdf_pages(const QByteArray& bytes, const QString& password, PdfPageSink& sink) {
    quiet_poppler();
    const QByteArray pw = password.toLatin1();
    std::unique_ptr<Poppler::Document> pdf = Poppler::Document::loadFromData(bytes, pw, pw);
    if (!pdf) return PdfOpenFailure::NotAPdf;
    if (pdf->isLocked() && !password.isEmpty()) {
        // Poppler takes Latin-1, but AES-256 (PDF 2.0) passwords are UTF-8: try that too.
        const QByteArray utf8 = password.toUtf8();
        if (utf8 != pw) pdf->unlock(utf8, utf8);
    }
    if (pdf->isLocked()) return password.isEmpty() ? PdfOpenFailure::NeedsPassword : PdfOpenFailure::WrongPassword;
    const int page_count = pdf->numPages();
    if (page_count <= 0) return PdfOpenFailure::NoPages;
    sink.opened(page_count);
    for (int i = 0; i < page_count; ++i) {
        std::unique_ptr<Poppler::Page> page = pdf->page(i);
        if (!page) {
            sink.page(i, nullptr);
            continue;
        }
        const PdfPageLines lines = page_lines(*page);
        sink.page(i, &lines);
    }
    // The title is read first but reported last (title() ends the report): no Poppler work
    // follows the outline's report, so a reader that stalls has reported only its opening
    // and pages, which is what a stall message counts (where_it_stopped in ingest.cpp).
    const QString title = pdf->info(QStringLiteral("Title")).simplified();
    QVector<OutlineEntry> outline;
    walk_outline(pdf->outline(), 0, page_count, outline);
    if (!outline.isEmpty()) sink.outline(outline);
    sink.title(title);
    return PdfOpenFailure::None;
}

void PdfPagesCollector::opened(int page_count) { pages_.pages.resize(page_count); }

void PdfPagesCollector::page(int index, const PdfPageLines* lines) {
    if (index < 0 || index >= pages_.pages.size()) return;
    if (lines)
        pages_.pages[index] = *lines;
    else
        pages_.unreadable_pages.push_back(index + 1);
}

void PdfPagesCollector::outline(const QVector<OutlineEntry>& entries) { pages_.outline = entries; }

void PdfPagesCollector::title(const QString& title) {
    pages_.title = title;
    pages_.complete = true;
}

}  // namespace precis
