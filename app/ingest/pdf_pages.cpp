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
    sink.title(pdf->info(QStringLiteral("Title")).simplified());
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

void PdfPagesCollector::title(const QString& title) {
    pages_.title = title;
    pages_.complete = true;
}

}  // namespace precis
