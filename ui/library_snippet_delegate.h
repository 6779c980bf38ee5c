#pragma once
// Draws a library row's title with, while a search is active, the matching passage on a
// second line (the match in bold), so the user sees why each document was found without
// hovering. Rows without a snippet are drawn as usual.
#include <QStyledItemDelegate>

namespace precis::ui {

class LibrarySnippetDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;
};

}  // namespace precis::ui
