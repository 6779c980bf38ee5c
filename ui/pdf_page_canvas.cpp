#include "ui/pdf_page_canvas.h"

#include <QPainter>
#include <QPaintEvent>
#include <QScrollBar>
#include <QTimer>

#include <poppler-qt6.h>

#include <algorithm>
#include <cmath>

#include "ui/document_view.h"

namespace precis::ui {

namespace {

constexpr int kGap = 12;            // pixels between pages and around them
constexpr int kMarginPages = 1;     // rendered ahead above and below the view
constexpr int kCarryPages = 3;      // how far a passage may run onto later pages
constexpr int kContextWords = 3;    // words before a passage that tell a repeated opening apart

}  // namespace

PdfPageCanvas::PdfPageCanvas(QWidget* parent) : QAbstractScrollArea(parent), render_timer_(new QTimer(this)) {
    cache_.setMaxCost(int(kCacheBytes / 1024));
    viewport()->setBackgroundRole(QPalette::Dark);
    viewport()->setAutoFillBackground(true);
    setFocusPolicy(Qt::StrongFocus);  // PgUp / PgDn / arrows scroll
    render_timer_->setSingleShot(true);
    render_timer_->setInterval(0);
    connect(render_timer_, &QTimer::timeout, this, &PdfPageCanvas::render_one);
}

PdfPageCanvas::~PdfPageCanvas() = default;

void PdfPageCanvas::clear() {
    render_timer_->stop();
    document_.reset();
    page_points_.clear();
    cache_.clear();
    words_.clear();
    passages_.clear();
    passage_words_.clear();
    words_before_.clear();
    revealed_ = -1;
    renders_ = 0;
    first_page_ms_ = -1;
    last_page_reported_ = -1;
    relayout();
    viewport()->update();
}

bool PdfPageCanvas::load(const QString& path, const QString& password, QString* why) {
    clear();
    since_load_.start();
    const QByteArray secret = password.toUtf8();
    document_ = Poppler::Document::load(path, secret, secret);
    if (document_ && document_->isLocked() && !secret.isEmpty()) document_->unlock(secret, secret);
    if (!document_ || document_->isLocked()) {
        if (why)
            *why = document_ ? tr("This PDF is password-protected: open the file again (File > Open) and give its password to "
                                  "see its pages.")
                             : tr("The PDF %1 can no longer be read.").arg(path);
        document_.reset();
        return false;
    }
    document_->setRenderHint(Poppler::Document::Antialiasing);
    document_->setRenderHint(Poppler::Document::TextAntialiasing);
    const int n = document_->numPages();
    page_points_.reserve(n);
    for (int i = 0; i < n; ++i) {
        std::unique_ptr<Poppler::Page> page = document_->page(i);
        page_points_ << (page ? page->pageSizeF() : QSizeF(595, 842));
    }
    if (fit_width_) fit_width(); else relayout();
    verticalScrollBar()->setValue(0);
    schedule_render();
    emit_page_if_changed();
    return true;
}

void PdfPageCanvas::set_highlights(const QVector<SourcePassage>& passages, const QString& text) {
    passages_ = passages;
    passage_words_.clear();
    words_before_.clear();
    revealed_ = -1;
    for (const SourcePassage& p : passages) {
        passage_words_ << passage_words(text.mid(p.begin, p.end - p.begin));
        // A short stretch before the passage is plenty to pick the sentence over a title line.
        const int from = std::max(0, p.begin - 200);
        const QStringList before = passage_words(text.mid(from, p.begin - from));
        words_before_ << before.mid(std::max<qsizetype>(0, before.size() - kContextWords));
    }
    cache_.clear();  // the marks are drawn into the cached pages
    schedule_render();
    viewport()->update();
}

QSize PdfPageCanvas::page_pixels(int page) const {
    return (page_points_[page] * pixels_per_point()).toSize();
}

void PdfPageCanvas::relayout() {
    tops_.resize(page_points_.size());
    int y = kGap, width = 0;
    for (int i = 0; i < page_points_.size(); ++i) {
        tops_[i] = y;
        const QSize s = page_pixels(i);
        y += s.height() + kGap;
        width = std::max(width, s.width());
    }
    content_height_ = page_points_.isEmpty() ? 0 : y;
    content_width_ = page_points_.isEmpty() ? 0 : width + 2 * kGap;
    const QSize view = viewport()->size();
    verticalScrollBar()->setRange(0, std::max(0, content_height_ - view.height()));
    verticalScrollBar()->setPageStep(view.height());
    verticalScrollBar()->setSingleStep(40);
    horizontalScrollBar()->setRange(0, std::max(0, content_width_ - view.width()));
    horizontalScrollBar()->setPageStep(view.width());
    horizontalScrollBar()->setSingleStep(40);
}

double PdfPageCanvas::max_zoom() const {
    double largest = 0;  // square points
    for (const QSizeF& s : page_points_) largest = std::max(largest, s.width() * s.height());
    if (largest <= 0) return kMaxZoom;
    const double pixels = double(kCacheBytes) / 4 / 4;  // 4 bytes a pixel, 4 pages in the cache
    return std::clamp(std::sqrt(pixels / largest) * 72.0 / 96.0, kMinZoom, kMaxZoom);
}

void PdfPageCanvas::set_zoom(double zoom) {
    fit_width_ = false;
    zoom = std::clamp(zoom, kMinZoom, max_zoom());
    if (std::abs(zoom - zoom_) < 1e-3) return;
    const int keep = current_page();
    zoom_ = zoom;
    relayout();
    scroll_to_page(keep);
    schedule_render();
    viewport()->update();
    emit zoom_changed(zoom_);
}

void PdfPageCanvas::fit_width() {
    fit_width_ = true;
    if (page_points_.isEmpty()) return;
    double widest = 0;
    for (const QSizeF& s : page_points_) widest = std::max(widest, s.width());
    // The scroll bar takes room too; leave it, so fitting does not make it appear and re-fit.
    const int room = viewport()->width() - 2 * kGap;
    const double zoom = std::clamp(room / (widest * 96.0 / 72.0), kMinZoom, max_zoom());
    const int keep = current_page();
    const bool changed = std::abs(zoom - zoom_) >= 1e-3;
    zoom_ = zoom;
    relayout();
    if (changed) {
        scroll_to_page(keep);
        emit zoom_changed(zoom_);
    }
    schedule_render();
    viewport()->update();
}

int PdfPageCanvas::current_page() const {
    if (tops_.isEmpty()) return 0;
    const int middle = verticalScrollBar()->value() + viewport()->height() / 2;
    const auto it = std::upper_bound(tops_.begin(), tops_.end(), middle);
    return std::max(0, int(it - tops_.begin()) - 1);
}

void PdfPageCanvas::scroll_to_page(int page) {
    if (page < 0 || page >= tops_.size()) return;
    verticalScrollBar()->setValue(tops_[page] - kGap);
    emit_page_if_changed();
}

QPair<int, int> PdfPageCanvas::pages_wanted() const {
    if (tops_.isEmpty()) return {0, -1};
    const int top = verticalScrollBar()->value();
    const int bottom = top + std::max(1, viewport()->height());
    const int first = std::max(0, int(std::upper_bound(tops_.begin(), tops_.end(), top) - tops_.begin()) - 1);
    const int last = std::max(first, int(std::upper_bound(tops_.begin(), tops_.end(), bottom) - tops_.begin()) - 1);
    return {std::max(0, first - kMarginPages), std::min(int(tops_.size()) - 1, last + kMarginPages)};
}

quint64 PdfPageCanvas::cache_key(int page) const {
    return (quint64(page) << 32) | quint64(std::lround(zoom_ * 1000));
}

qint64 PdfPageCanvas::cached_bytes() const { return qint64(cache_.totalCost()) * 1024; }

bool PdfPageCanvas::visible_pages_rendered() const {
    const auto [first, last] = pages_wanted();
    for (int i = first; i <= last; ++i)
        if (!cache_.contains(cache_key(i))) return false;
    return document_ != nullptr;
}

void PdfPageCanvas::schedule_render() {
    if (document_ && !render_timer_->isActive()) render_timer_->start();
}

void PdfPageCanvas::render_one() {
    if (!document_) return;
    const auto [first, last] = pages_wanted();
    // The pages in view first (top down), then the margin.
    const int view_first = std::min(last, first + (first > 0 ? kMarginPages : 0));
    QVector<int> order;
    for (int i = view_first; i <= last; ++i) order << i;
    for (int i = first; i < view_first; ++i) order << i;
    for (int page : order) {
        if (cache_.contains(cache_key(page))) continue;
        auto* image = new QImage(render_page(page));
        ++renders_;
        if (first_page_ms_ < 0) first_page_ms_ = since_load_.elapsed();
        const qint64 kib = std::max<qint64>(1, image->sizeInBytes() / 1024);
        cache_.insert(cache_key(page), image, int(kib));  // may evict pages out of view
        viewport()->update();
        render_timer_->start();  // one page per event-loop turn: the window stays responsive
        return;
    }
}

const QVector<PageWord>& PdfPageCanvas::words_on(int page) {
    auto it = words_.find(page);
    if (it == words_.end()) {
        QVector<PageWord> words;
        if (std::unique_ptr<Poppler::Page> p = document_->page(page))
            for (const std::unique_ptr<Poppler::TextBox>& box : p->textList()) words.push_back({box->text(), box->boundingBox()});
        it = words_.insert(page, words);
    }
    return *it;
}

int PdfPageCanvas::carried_into(int passage, int page) {
    const SourcePassage& p = passages_[passage];
    const int total = int(passage_words_[passage].size());
    int carried = 0;
    for (int q = p.page; q < page; ++q) {
        const PassageMarks marks = marks_on(passage, q, carried);
        if (marks.matched == 0 || carried + marks.matched >= total) return 0;  // not found, or ended on page q
        carried += marks.matched;
    }
    return carried;
}

PassageMarks PdfPageCanvas::marks_on(int passage, int page, int from) {
    // The words before the passage only tell apart places on its own first page.
    return mark_passage(words_on(page), passage_words_[passage], from,
                        from == 0 ? words_before_[passage] : QStringList());
}

QRect PdfPageCanvas::page_rect(int page) const {
    const QSize size = page_pixels(page);
    const int free = std::max(0, viewport()->width() - content_width_);
    return QRect(kGap + free / 2 + (content_width_ - 2 * kGap - size.width()) / 2, tops_[page], size.width(), size.height());
}

QVector<QRect> PdfPageCanvas::passage_boxes_in_view(int index) {
    QVector<QRect> out;
    if (!document_ || index < 0 || index >= passages_.size()) return out;
    const int page = passages_[index].page;
    if (page < 0 || page >= page_count()) return out;
    const QRect at = page_rect(page);
    const double s = pixels_per_point();
    const QPoint scroll(horizontalScrollBar()->value(), verticalScrollBar()->value());
    for (const QRectF& r : marks_on(index, page, 0).lines)
        out << QRectF(at.x() + r.x() * s, at.y() + r.y() * s, r.width() * s, r.height() * s).toAlignedRect().translated(-scroll);
    return out;
}

void PdfPageCanvas::reveal_passage(const SourcePassage& passage) {
    const int index = int(passages_.indexOf(passage));
    revealed_ = index;
    if (index < 0 || passage.page < 0 || passage.page >= page_count()) {
        scroll_to_page(passage.page);
        viewport()->update();
        return;
    }
    QRect box;
    for (const QRect& r : passage_boxes_in_view(index)) box = box.united(r);
    if (box.isNull()) {  // its words are not on the page as the text has them: the page at least
        scroll_to_page(passage.page);
        viewport()->update();
        return;
    }
    // In content pixels; the passage's middle to the view's middle, or its top a little below
    // the view's top when the passage is taller than the view.
    box.translate(horizontalScrollBar()->value(), verticalScrollBar()->value());
    const int view_h = viewport()->height(), view_w = viewport()->width();
    const int y = box.height() + 2 * kGap < view_h ? box.center().y() - view_h / 2 : box.top() - 2 * kGap;
    verticalScrollBar()->setValue(y);
    if (box.left() < horizontalScrollBar()->value() || box.right() > horizontalScrollBar()->value() + view_w)
        horizontalScrollBar()->setValue(box.width() + 2 * kGap < view_w ? box.center().x() - view_w / 2 : box.left() - kGap);
    emit_page_if_changed();
    viewport()->update();
}

QImage PdfPageCanvas::render_page(int index) {
    std::unique_ptr<Poppler::Page> page = document_->page(index);
    const double dpi = 72.0 * pixels_per_point();
    if (!page) return QImage();
    QImage image = page->renderToImage(dpi, dpi);
    double heaviest = 0;
    for (const SourcePassage& p : passages_) heaviest = std::max(heaviest, p.weight);
    QPainter painter(&image);
    painter.setCompositionMode(QPainter::CompositionMode_Multiply);
    const double s = pixels_per_point();
    for (int i = 0; i < passages_.size(); ++i) {
        const SourcePassage& p = passages_[i];
        if (p.page < 0 || p.page > index || index - p.page > kCarryPages) continue;
        // A passage begins on its own page; one that ran off an earlier page continues
        // here from the words already found there.
        const int from = p.page == index ? 0 : carried_into(i, index);
        if (p.page != index && from == 0) continue;
        const PassageMarks marks = marks_on(i, index, from);
        for (const QRectF& r : marks.lines)
            painter.fillRect(QRectF(r.x() * s, r.y() * s, r.width() * s, r.height() * s), passage_colour(p.weight, heaviest));
    }
    return image;
}

void PdfPageCanvas::paintEvent(QPaintEvent* event) {
    QPainter painter(viewport());
    const int dx = horizontalScrollBar()->value(), dy = verticalScrollBar()->value();
    const QRect view = event->rect().translated(dx, dy);
    bool missing = false;
    for (int i = 0; i < tops_.size(); ++i) {
        const QRect page = page_rect(i);
        if (page.top() > view.bottom()) break;
        if (!page.intersects(view)) continue;
        const QRect at = page.translated(-dx, -dy);
        if (const QImage* image = cache_.object(cache_key(i))) {
            painter.drawImage(at, *image);
            if (revealed_ >= 0 && passages_[revealed_].page == i) outline_revealed(painter);
        } else {
            painter.fillRect(at, Qt::white);
            painter.setPen(Qt::gray);
            painter.drawText(at, Qt::AlignCenter, tr("Page %1").arg(i + 1));
            missing = true;
        }
    }
    if (missing) schedule_render();
}

void PdfPageCanvas::outline_revealed(QPainter& painter) {
    // Drawn over the cached page, not into it: revealing another passage repaints, not re-renders.
    const QVector<QRect> lines = passage_boxes_in_view(revealed_);
    if (lines.isEmpty()) return;
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing);
    const QColor ink(0xB4, 0x53, 0x09);  // a darker amber than the highlight it frames
    painter.setPen(QPen(ink, 1.5));
    painter.setBrush(Qt::NoBrush);
    QRect all;
    for (const QRect& r : lines) {
        painter.drawRect(QRectF(r).adjusted(-1.5, 0.5, 1.5, -0.5));  // inside its line: no overlap with the next
        all = all.united(r);
    }
    // A bar in the margin beside the lines, so the passage is found at a glance at any zoom.
    painter.fillRect(QRectF(all.left() - 9, all.top(), 4, all.height()), ink);
    painter.restore();
}

void PdfPageCanvas::resizeEvent(QResizeEvent* event) {
    QAbstractScrollArea::resizeEvent(event);
    if (fit_width_) fit_width(); else relayout();
    schedule_render();
}

void PdfPageCanvas::scrollContentsBy(int, int) {
    viewport()->update();
    schedule_render();
    emit_page_if_changed();
}

void PdfPageCanvas::emit_page_if_changed() {
    const int page = current_page();
    if (page == last_page_reported_) return;
    last_page_reported_ = page;
    emit page_changed(page, page_count());
}

}  // namespace precis::ui
