#include "ui/pdf_pages_view.h"

#include <QLabel>
#include <QPainter>
#include <QScrollBar>
#include <QTimer>
#include <QVBoxLayout>

#include <poppler-qt6.h>

#include "ui/document_view.h"
#include "ui/pdf_passage_marks.h"

namespace precis::ui {

namespace {

constexpr double kDpi = 110.0;

QVector<PageWord> words_on(const Poppler::Page& page) {
    QVector<PageWord> words;
    for (const std::unique_ptr<Poppler::TextBox>& box : page.textList()) words.push_back({box->text(), box->boundingBox()});
    return words;
}

}  // namespace

PdfPagesView::PdfPagesView(QWidget* parent)
    : QScrollArea(parent), container_(new QWidget), column_(new QVBoxLayout(container_)), render_timer_(new QTimer(this)) {
    column_->setSpacing(12);
    column_->setAlignment(Qt::AlignHCenter | Qt::AlignTop);
    setWidget(container_);
    setWidgetResizable(true);
    setBackgroundRole(QPalette::Dark);
    render_timer_->setInterval(0);
    connect(render_timer_, &QTimer::timeout, this, &PdfPagesView::render_next_page);
}

PdfPagesView::~PdfPagesView() = default;

void PdfPagesView::clear() {
    render_timer_->stop();
    qDeleteAll(pages_);
    pages_.clear();
    document_.reset();
    passages_.clear();
    passage_words_.clear();
    carried_.clear();
    next_page_ = 0;
}

void PdfPagesView::load(const QString& path, const QString& password) {
    clear();
    const QByteArray secret = password.toUtf8();
    document_ = Poppler::Document::load(path, secret, secret);
    if (document_ && document_->isLocked() && !secret.isEmpty()) document_->unlock(secret, secret);
    if (!document_ || document_->isLocked()) {
        auto* why = new QLabel(document_ ? tr("This PDF is password-protected: open the file again (File > Open) "
                                              "and give its password to see its pages.")
                                         : tr("The PDF %1 can no longer be read.").arg(path),
                               container_);
        why->setWordWrap(true);
        column_->addWidget(why);
        pages_ << why;
        document_.reset();
        return;
    }
    document_->setRenderHint(Poppler::Document::Antialiasing);
    document_->setRenderHint(Poppler::Document::TextAntialiasing);
    for (int i = 0; i < document_->numPages(); ++i) {
        auto* label = new QLabel(container_);
        label->setAlignment(Qt::AlignCenter);
        if (std::unique_ptr<Poppler::Page> page = document_->page(i))
            label->setFixedSize((page->pageSizeF() * kDpi / 72.0).toSize());
        label->setStyleSheet(QStringLiteral("background: white;"));
        column_->addWidget(label);
        pages_ << label;
    }
    restart_rendering();
}

void PdfPagesView::set_highlights(const QVector<SourcePassage>& passages, const QString& text) {
    passages_ = passages;
    passage_words_.clear();
    for (const SourcePassage& p : passages) passage_words_ << passage_words(text.mid(p.begin, p.end - p.begin));
    if (document_) restart_rendering();
}

void PdfPagesView::restart_rendering() {
    next_page_ = 0;
    carried_.fill(0, passages_.size());
    render_timer_->start();
}

void PdfPagesView::render_next_page() {
    if (!document_ || next_page_ >= document_->numPages()) {
        render_timer_->stop();
        return;
    }
    const int index = next_page_++;
    std::unique_ptr<Poppler::Page> page = document_->page(index);
    if (!page) return;
    QImage image = page->renderToImage(kDpi, kDpi);
    double heaviest = 0;
    for (const SourcePassage& p : passages_) heaviest = std::max(heaviest, p.weight);
    QPainter painter(&image);
    painter.setCompositionMode(QPainter::CompositionMode_Multiply);
    QVector<PageWord> words;
    bool have_words = false;
    const double s = kDpi / 72.0;
    for (int i = 0; i < passages_.size(); ++i) {
        const SourcePassage& p = passages_[i];
        // A passage begins on its own page; pages are rendered in order, so one that ran
        // off the previous page continues here from the words already found.
        const bool begins_here = p.page == index && carried_[i] == 0;
        const bool continues_here = p.page < index && carried_[i] > 0;
        if (!begins_here && !continues_here) continue;
        if (!have_words) {
            words = words_on(*page);
            have_words = true;
        }
        const PassageMarks marks = mark_passage(words, passage_words_[i], carried_[i]);
        carried_[i] = marks.matched > 0 && carried_[i] + marks.matched < passage_words_[i].size()
                          ? carried_[i] + marks.matched
                          : 0;
        for (const QRectF& r : marks.lines)
            painter.fillRect(QRectF(r.x() * s, r.y() * s, r.width() * s, r.height() * s), passage_colour(p.weight, heaviest));
    }
    painter.end();
    pages_[index]->setPixmap(QPixmap::fromImage(image));
}

void PdfPagesView::scroll_to_page(int page) {
    if (page < 0 || page >= pages_.size()) return;
    ensureWidgetVisible(pages_[page], 0, 0);
    verticalScrollBar()->setValue(pages_[page]->y());
}

}  // namespace precis::ui
