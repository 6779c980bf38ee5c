#include "ui/library_snippet_delegate.h"

#include <QAbstractTextDocumentLayout>
#include <QApplication>
#include <QPainter>
#include <QTextDocument>

#include "ui/library_model.h"

namespace precis::ui {

namespace {

QFont snippet_font(const QFont& base) {
    QFont f = base;
    f.setPointSizeF(base.pointSizeF() > 0 ? base.pointSizeF() * 0.9 : 9);
    return f;
}

}  // namespace

void LibrarySnippetDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const {
    const QString snippet = index.data(LibraryModel::SnippetRole).toString();
    if (snippet.isEmpty()) {
        QStyledItemDelegate::paint(painter, option, index);
        return;
    }
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    const QString title = opt.text;
    opt.text.clear();  // the style draws background, focus and selection; the text is ours
    QStyle* style = opt.widget ? opt.widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, opt.widget);

    const QRect area = style->subElementRect(QStyle::SE_ItemViewItemText, &opt, opt.widget).adjusted(2, 1, -2, -1);
    const bool selected = opt.state & QStyle::State_Selected;
    const QColor text_colour = opt.palette.color(selected ? QPalette::HighlightedText : QPalette::Text);
    painter->save();
    painter->setClipRect(area);
    const QFontMetrics title_metrics(opt.font);
    painter->setFont(opt.font);
    painter->setPen(text_colour);
    painter->drawText(QRect(area.left(), area.top(), area.width(), title_metrics.height()), Qt::AlignLeft | Qt::AlignVCenter,
                      title_metrics.elidedText(title, Qt::ElideRight, area.width()));

    // The snippet arrives as escaped HTML with <b> around the matched words (and the
    // library's own ellipses where it cuts the text).
    QTextDocument doc;
    doc.setDefaultFont(snippet_font(opt.font));
    doc.setDocumentMargin(0);
    QTextOption no_wrap;
    no_wrap.setWrapMode(QTextOption::NoWrap);
    doc.setDefaultTextOption(no_wrap);
    doc.setHtml(snippet);
    QAbstractTextDocumentLayout::PaintContext context;
    context.palette = opt.palette;
    context.palette.setColor(QPalette::Text, selected ? text_colour : opt.palette.color(QPalette::PlaceholderText));
    painter->translate(area.left(), area.top() + title_metrics.height());
    context.clip = QRectF(0, 0, area.width(), area.height() - title_metrics.height());
    doc.documentLayout()->draw(painter, context);
    painter->restore();
}

QSize LibrarySnippetDelegate::sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const {
    QSize size = QStyledItemDelegate::sizeHint(option, index);
    if (!index.data(LibraryModel::SnippetRole).toString().isEmpty())
        size.setHeight(QFontMetrics(option.font).height() + QFontMetrics(snippet_font(option.font)).height() + 6);
    return size;
}

}  // namespace precis::ui
