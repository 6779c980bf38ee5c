#include "ui/library_model.h"

#include <QFileInfo>
#include <QLocale>

#include "app/file_names.h"

namespace precis::ui {

LibraryModel::LibraryModel(QObject* parent) : QAbstractTableModel(parent) {}

void LibraryModel::set_items(QVector<DocumentListItem> items) {
    beginResetModel();
    items_ = std::move(items);
    snippets_.clear();
    endResetModel();
}

void LibraryModel::set_snippets(QHash<qint64, QString> snippets) {
    snippets_ = std::move(snippets);
    if (!items_.isEmpty()) emit dataChanged(index(0, 0), index(int(items_.size()) - 1, ColumnCount - 1), {Qt::ToolTipRole, SnippetRole});
}

int LibraryModel::row_of(qint64 document_id) const {
    for (int i = 0; i < items_.size(); ++i)
        if (items_[i].document.id == document_id) return i;
    return -1;
}

qint64 LibraryModel::document_id_at(int row) const {
    return row >= 0 && row < items_.size() ? items_[row].document.id : 0;
}

int LibraryModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(items_.size()); }

int LibraryModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant LibraryModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= items_.size()) return {};
    const DocumentListItem& item = items_[index.row()];
    const DocumentInfo& d = item.document;
    if (role == DocumentIdRole) return d.id;
    if (role == SnippetRole) return index.column() == TitleColumn ? snippets_.value(d.id) : QString();
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
            case TitleColumn: return d.title.isEmpty() ? path_for_display(QFileInfo(d.path).fileName()) : d.title;
            case PagesColumn: return d.pages > 0 ? QVariant(d.pages) : QVariant(QStringLiteral("text"));
            case SummariesColumn: return item.summary_count;
            case AddedColumn: return QLocale().toString(d.added_at.toLocalTime(), QLocale::ShortFormat);
        }
    }
    if (role == Qt::ToolTipRole) {
        QString tip = QStringLiteral("<b>%1</b><br>%2<br>Added %3")
                          .arg(d.title.toHtmlEscaped(), path_for_display(d.path).toHtmlEscaped(),
                               QLocale().toString(d.added_at.toLocalTime(), QLocale::ShortFormat));
        if (!item.labels.isEmpty()) tip += QStringLiteral("<br>Labels: %1").arg(item.labels.join(", ").toHtmlEscaped());
        if (item.latest_summary)
            tip += QStringLiteral("<hr>%1").arg(item.latest_summary->summary.left(300).toHtmlEscaped());
        if (auto it = snippets_.find(d.id); it != snippets_.end()) tip += QStringLiteral("<hr><i>%1</i>").arg(*it);
        return tip;
    }
    if (role == Qt::TextAlignmentRole && index.column() != TitleColumn) return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant LibraryModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case TitleColumn: return tr("Document");
        case PagesColumn: return tr("Pages");
        case SummariesColumn: return tr("Summaries");
        case AddedColumn: return tr("Added");
    }
    return {};
}

void LibraryFilterProxy::set_allowed(std::optional<QSet<qint64>> ids) {
    allowed_ = std::move(ids);
    invalidateFilter();
}

bool LibraryFilterProxy::filterAcceptsRow(int source_row, const QModelIndex& source_parent) const {
    if (!allowed_) return true;
    const QModelIndex idx = sourceModel()->index(source_row, 0, source_parent);
    return allowed_->contains(idx.data(LibraryModel::DocumentIdRole).toLongLong());
}

}  // namespace precis::ui
