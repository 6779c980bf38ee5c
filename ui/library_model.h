#pragma once
// The library's documents as a table (title, pages, summaries, added), newest first, and
// a proxy that shows only the documents a search or label filter let through.
#include <QAbstractTableModel>
#include <QHash>
#include <QSet>
#include <QSortFilterProxyModel>

#include <optional>

#include "app/library/library.h"

namespace precis::ui {

class LibraryModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { TitleColumn, PagesColumn, SummariesColumn, AddedColumn, ColumnCount };
    static constexpr int DocumentIdRole = Qt::UserRole + 1;
    // A search hit's passage as HTML (matched words in <b>), on the title column; empty otherwise.
    static constexpr int SnippetRole = Qt::UserRole + 2;

    explicit LibraryModel(QObject* parent = nullptr);

    void set_items(QVector<DocumentListItem> items);
    // Extra text shown under a document's tooltip (a search hit's snippet); cleared by set_items.
    void set_snippets(QHash<qint64, QString> snippets);
    int row_of(qint64 document_id) const;  // -1 if absent
    qint64 document_id_at(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    QVector<DocumentListItem> items_;
    QHash<qint64, QString> snippets_;
};

class LibraryFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    // nullopt: show every document.
    void set_allowed(std::optional<QSet<qint64>> ids);

protected:
    bool filterAcceptsRow(int source_row, const QModelIndex& source_parent) const override;

private:
    std::optional<QSet<qint64>> allowed_;
};

}  // namespace precis::ui
