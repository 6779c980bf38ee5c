#include "ui/pdf_pages_view.h"

#include <QAction>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>

#include "ui/pdf_page_canvas.h"

namespace precis::ui {

namespace {

constexpr double kZoomStep = 1.25;

QToolButton* tool_button(QAction* action, QWidget* parent) {
    auto* b = new QToolButton(parent);
    b->setDefaultAction(action);
    b->setAutoRaise(true);
    return b;
}

}  // namespace

PdfPagesView::PdfPagesView(QWidget* parent)
    : QWidget(parent), canvas_(new PdfPageCanvas(this)), message_(new QLabel(this)), zoom_label_(new QLabel(this)),
      page_(new QSpinBox(this)), page_count_(new QLabel(this)) {
    // Shortcuts live on this widget: they act while the focus is in the Pages tab.
    const auto action = [this](const QString& text, const QList<QKeySequence>& keys, auto slot) {
        auto* a = new QAction(text, this);
        a->setShortcuts(keys);
        a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        a->setToolTip(QStringLiteral("%1 (%2)").arg(text, keys.first().toString(QKeySequence::NativeText)));
        addAction(a);
        connect(a, &QAction::triggered, this, slot);
        connect(a, &QAction::triggered, this, &PdfPagesView::update_controls);
        return a;
    };
    QAction* out = action(tr("Zoom out"), {QKeySequence(Qt::CTRL | Qt::Key_Minus)},
                          [this] { canvas_->set_zoom(canvas_->zoom() / kZoomStep); });
    QAction* in = action(tr("Zoom in"), {QKeySequence(Qt::CTRL | Qt::Key_Equal), QKeySequence(Qt::CTRL | Qt::Key_Plus)},
                         [this] { canvas_->set_zoom(canvas_->zoom() * kZoomStep); });
    QAction* fit = action(tr("Fit width"), {QKeySequence(Qt::CTRL | Qt::Key_0)}, [this] { canvas_->fit_width(); });
    action(tr("Go to page"), {QKeySequence(Qt::CTRL | Qt::Key_G)}, [this] {
        page_->setFocus(Qt::ShortcutFocusReason);
        page_->selectAll();
    });
    out->setText(QStringLiteral("−"));
    in->setText(QStringLiteral("+"));
    zoom_out_ = tool_button(out, this);
    zoom_in_ = tool_button(in, this);
    fit_ = tool_button(fit, this);
    page_->setToolTip(tr("Page number: type one and press Enter to go there (Ctrl+G)"));
    page_->setKeyboardTracking(false);
    page_->setMinimum(1);
    zoom_label_->setMinimumWidth(48);
    message_->setWordWrap(true);
    message_->setAlignment(Qt::AlignCenter);
    message_->hide();

    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(4, 2, 4, 2);
    bar->addWidget(zoom_out_);
    bar->addWidget(zoom_label_);
    bar->addWidget(zoom_in_);
    bar->addWidget(fit_);
    bar->addStretch();
    bar->addWidget(new QLabel(tr("Page"), this));
    bar->addWidget(page_);
    bar->addWidget(page_count_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(bar);
    layout->addWidget(message_, 1);
    layout->addWidget(canvas_, 1);
    setFocusProxy(canvas_);

    connect(page_, &QSpinBox::valueChanged, this, [this](int page) { canvas_->scroll_to_page(page - 1); });
    connect(canvas_, &PdfPageCanvas::page_changed, this, [this](int page, int) {
        const QSignalBlocker block(page_);
        page_->setValue(page + 1);
    });
    connect(canvas_, &PdfPageCanvas::zoom_changed, this, &PdfPagesView::update_controls);
    update_controls();
}

void PdfPagesView::load(const QString& path, const QString& password) {
    QString why;
    const bool ok = canvas_->load(path, password, &why);
    message_->setText(why);
    message_->setVisible(!ok);
    canvas_->setVisible(ok);
    update_controls();
}

void PdfPagesView::clear() {
    canvas_->clear();
    message_->hide();
    canvas_->show();
    update_controls();
}

void PdfPagesView::set_highlights(const QVector<SourcePassage>& passages, const QString& text) {
    canvas_->set_highlights(passages, text);
}

void PdfPagesView::scroll_to_page(int page) { canvas_->scroll_to_page(page); }

void PdfPagesView::reveal_passage(const SourcePassage& passage) {
    canvas_->reveal_passage(passage);
    update_controls();
}

int PdfPagesView::rendered_pages() const { return canvas_->rendered_pages(); }

bool PdfPagesView::visible_pages_rendered() const { return canvas_->visible_pages_rendered(); }

void PdfPagesView::update_controls() {
    const int n = canvas_->page_count();
    {
        const QSignalBlocker block(page_);
        page_->setMaximum(std::max(1, n));
        page_->setValue(canvas_->current_page() + 1);
    }
    page_->setEnabled(n > 0);
    page_count_->setText(tr("of %1").arg(n));
    zoom_label_->setText(QStringLiteral("%1%").arg(std::lround(canvas_->zoom() * 100)));
    zoom_label_->setToolTip(canvas_->fitting_width() ? tr("Fitting the width of the pane") : QString());
    for (QToolButton* b : {zoom_out_, zoom_in_, fit_}) b->setEnabled(n > 0);
}

}  // namespace precis::ui
