#include "ui/outline_view.h"

#include <QApplication>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QStyledItemDelegate>

#include <algorithm>

#include "ui/focus_frame.h"
#include "ui/outline_model.h"
#include "ui/word_elide.h"

namespace precis::ui {

namespace {

constexpr int kRowPadding = 6;  // above and below a row's text, together

QFont location_font(const QFont& base) {
    QFont f = base;
    if (base.pointSizeF() > 0) f.setPointSizeF(base.pointSizeF() * 0.9);
    return f;
}

// One line per row: the title on the left, cut with an ellipsis when the pane is narrow, and
// where the section is on the right, in a quieter colour, never cut.
class OutlineDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override {
        QStyleOptionViewItem opt = option;
        initStyleOption(&opt, index);
        const QString title = opt.text;
        const QString where = index.data(OutlineModel::LocationRole).toString();
        opt.text.clear();  // the style draws background, selection and focus; the text is ours
        QStyle* style = opt.widget ? opt.widget->style() : QApplication::style();
        style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, opt.widget);

        const QRect area = style->subElementRect(QStyle::SE_ItemViewItemText, &opt, opt.widget).adjusted(3, 0, -3, 0);
        const bool selected = opt.state & QStyle::State_Selected;
        QFont title_font = opt.font;
        title_font.setBold(index.data(OutlineModel::SectionRole).toInt() < 0);  // "Whole document"
        const QFont where_font = location_font(opt.font);
        const QFontMetrics where_metrics(where_font);
        const int where_width = where_metrics.horizontalAdvance(where);
        painter->save();
        painter->setClipRect(area);
        painter->setFont(where_font);
        painter->setPen(opt.palette.color(selected ? QPalette::HighlightedText : QPalette::PlaceholderText));
        painter->drawText(area, Qt::AlignRight | Qt::AlignVCenter, where);
        painter->setFont(title_font);
        painter->setPen(opt.palette.color(selected ? QPalette::HighlightedText : QPalette::Text));
        const int title_room = std::max(0, area.width() - where_width - 10);
        painter->drawText(QRect(area.left(), area.top(), title_room, area.height()), Qt::AlignLeft | Qt::AlignVCenter,
                          QFontMetrics(title_font).elidedText(title, Qt::ElideRight, title_room));
        painter->restore();
    }

    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override {
        QSize size = QStyledItemDelegate::sizeHint(option, index);
        size.setHeight(std::max(size.height(), QFontMetrics(option.font).height() + kRowPadding));
        return size;
    }
};

}  // namespace

OutlineView::OutlineView(QWidget* parent) : QListView(parent), model_(new OutlineModel(this)) {
    setModel(model_);
    setItemDelegate(new OutlineDelegate(this));
    setSelectionMode(QAbstractItemView::SingleSelection);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setUniformItemSizes(true);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setTabKeyNavigation(false);
    setToolTip(tr("The document's sections: choose one to read its summary and see where it starts in the document "
                  "(arrow keys, Enter)"));
    show_keyboard_focus(this);
    setMinimumHeight(height_for_rows(3));
    connect(selectionModel(), &QItemSelectionModel::currentChanged, this, [this](const QModelIndex& current) {
        if (current.isValid()) emit section_selected(OutlineModel::section_of(current.row()));
    });
}

int OutlineView::row_height() const {
    const int listed = model_->rowCount() > 0 ? sizeHintForRow(0) : -1;
    return listed > 0 ? listed : fontMetrics().height() + kRowPadding;
}

int OutlineView::height_for_rows(int rows) const { return rows * row_height() + 2 * frameWidth(); }

void OutlineView::set_outline(const DocumentOutline& outline, int text_length) {
    const QSignalBlocker block(selectionModel());
    model_->set_outline(outline, text_length);
    if (model_->rowCount() > 0) setCurrentIndex(model_->index(0));
    scrollToTop();
}

void OutlineView::clear_outline() { set_outline({}, 0); }

int OutlineView::current_section() const {
    return currentIndex().isValid() ? OutlineModel::section_of(currentIndex().row()) : -1;
}

void OutlineView::mousePressEvent(QMouseEvent* event) {
    const QModelIndex before = currentIndex();
    QListView::mousePressEvent(event);
    // A click on the row already chosen scrolls the document back to its start.
    if (before.isValid() && indexAt(event->position().toPoint()) == before && event->button() == Qt::LeftButton)
        emit section_selected(OutlineModel::section_of(before.row()));
}

void OutlineView::keyPressEvent(QKeyEvent* event) {
    if ((event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter) && currentIndex().isValid()) {
        emit section_selected(current_section());
        event->accept();
        return;
    }
    QListView::keyPressEvent(event);
}

SectionCaption::SectionCaption(QWidget* parent) : QLabel(parent) {
    setTextFormat(Qt::PlainText);
    setWordWrap(false);
    setTextInteractionFlags(Qt::TextSelectableByMouse);
    setStyleSheet(QStringLiteral("QLabel { font-weight: bold; background: palette(alternate-base); "
                                 "border: 1px solid palette(mid); padding: 3px 6px; }"));
}

void SectionCaption::set_caption(const SectionCaptionText& caption) {
    caption_ = caption;
    setToolTip(caption_.full());
    fit();
}

QSize SectionCaption::sizeHint() const { return {120, QLabel::sizeHint().height()}; }

QSize SectionCaption::minimumSizeHint() const { return {60, QLabel::minimumSizeHint().height()}; }

void SectionCaption::resizeEvent(QResizeEvent* event) {
    QLabel::resizeEvent(event);
    fit();
}

void SectionCaption::fit() {
    const QFontMetrics metrics = fontMetrics();
    const int room = std::max(1, contentsRect().width() - 2);
    const QString whole = caption_.full();
    if (metrics.horizontalAdvance(whole) <= room) {
        setText(whole);
        return;
    }
    // Too long for one line: which section and where on the first ("Section 12 of 38 (pages
    // 88-93)"), its title on the second, shortened at a word: cutting a title mid-word could
    // turn "CHAPTER XII." into a misleading "CHAPTER XI…".
    QString head = caption_.head.trimmed();
    if (head.endsWith(u':')) head.chop(1);
    setText(metrics.elidedText(head + caption_.tail, Qt::ElideRight, room) + u'\n' +
            elide_at_word(caption_.title, metrics, room));
}

OutlineSplitter::OutlineSplitter(OutlineView* outline, QWidget* reading, QWidget* parent)
    : QSplitter(Qt::Vertical, parent), outline_(outline) {
    addWidget(outline_);
    addWidget(reading);
    setStretchFactor(0, 0);
    setStretchFactor(1, 1);
    setChildrenCollapsible(false);
    outline_->hide();
    connect(this, &QSplitter::splitterMoved, this, [this] { user_sized_ = true; });
}

void OutlineSplitter::set_outline_visible(bool visible) {
    outline_->setVisible(visible);
    if (visible) arrange(true);  // a new outline: its own size, not the last one's
}

void OutlineSplitter::resizeEvent(QResizeEvent* event) {
    QSplitter::resizeEvent(event);
    arrange(false);
}

void OutlineSplitter::arrange(bool force) {
    const Qt::Orientation want = width() >= kBesideWidth ? Qt::Horizontal : Qt::Vertical;
    const bool turned = want != orientation();
    if (turned) setOrientation(want);
    if (turned || force) user_sized_ = false;
    // Kept in proportion as the window resizes, until the user drags the handle.
    if (outline_->isHidden() || user_sized_) return;
    if (want == Qt::Horizontal) {
        const int outline_width = width() * 9 / 20;
        setSizes({outline_width, width() - outline_width});
        return;
    }
    // Whole rows, as many as the outline has, up to two fifths of the height (three at
    // least); the text keeps the rest.
    const int rows = std::max(1, outline_->outline_model()->rowCount());
    const int fit = std::max(3, (height() * 2 / 5 - outline_->height_for_rows(0)) / std::max(1, outline_->row_height()));
    const int outline_height = outline_->height_for_rows(std::min(rows, fit));
    setSizes({outline_height, std::max(0, height() - outline_height)});
}

}  // namespace precis::ui
