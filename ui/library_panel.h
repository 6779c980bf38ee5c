#pragma once
// The left column: every document in the library, a search box (full-text search over
// documents and summaries) and a label filter (documents classified with a label).
#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QTableView;
class QTimer;

namespace precis {
class Library;
}

namespace precis::ui {

class LibraryFilterProxy;
class LibraryModel;

class LibraryPanel : public QWidget {
    Q_OBJECT
public:
    LibraryPanel(Library& library, QWidget* parent = nullptr);

    // Re-reads the library (after a summary, an import, a batch file), keeping the selection.
    void refresh();
    void select_document(qint64 document_id);
    qint64 selected_document() const;
    void focus_search();
    QLineEdit* search_box() const { return search_; }
    QTableView* table() const { return table_; }
    QComboBox* label_filter() const { return labels_; }

signals:
    void document_selected(qint64 document_id);
    void delete_requested(qint64 document_id);

private:
    void apply_filters();
    void show_context_menu(const QPoint& pos);

    Library& library_;
    LibraryModel* model_;
    LibraryFilterProxy* proxy_;
    QLineEdit* search_;
    QComboBox* labels_;
    QTableView* table_;
    QLabel* count_;
    QTimer* search_delay_;
};

}  // namespace precis::ui
