#pragma once
// The left column: every document in the library, a search box (full-text search over
// documents and summaries, each hit with a snippet of the match), a label filter
// (only labels some document's newest classification gave it, with how many), a message in
// place of the list when the filters leave nothing, and a "Failed files" toggle that swaps the table
// for the files batch jobs could not summarize.
#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QTableView;
class QToolButton;
class QTimer;

namespace precis {
class Library;
}

namespace precis::ui {

class FailedFilesView;
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
    QToolButton* failed_toggle() const { return failed_toggle_; }
    FailedFilesView* failed_files() const { return failed_files_; }
    QLabel* count_label() const { return count_; }
    // Shown instead of the list when the search and label leave no document, saying so.
    QLabel* empty_message() const { return empty_; }
    void clear_filters();

signals:
    void document_selected(qint64 document_id);
    void delete_requested(qint64 document_id);

private:
    void apply_filters();
    void update_count();  // documents shown, or failed files while those are shown
    void fill_label_filter(const QVector<qint64>& documents);
    void update_empty_message();
    void show_context_menu(const QPoint& pos);

    Library& library_;
    LibraryModel* model_;
    LibraryFilterProxy* proxy_;
    QLineEdit* search_;
    QComboBox* labels_;
    QTableView* table_;
    QLabel* count_;
    QLabel* empty_;
    QToolButton* failed_toggle_;
    FailedFilesView* failed_files_;
    QTimer* search_delay_;
};

}  // namespace precis::ui
