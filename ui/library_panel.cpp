#include "ui/library_panel.h"

#include <QAction>
#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMap>
#include <QSet>
#include <QMenu>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QHBoxLayout>
#include <QVBoxLayout>

#include "app/library/current_labels.h"
#include "app/library/library.h"
#include "ui/failed_files_view.h"
#include "ui/focus_frame.h"
#include "ui/library_model.h"
#include "ui/library_snippet_delegate.h"

namespace precis::ui {

LibraryPanel::LibraryPanel(Library& library, QWidget* parent)
    : QWidget(parent),
      library_(library),
      model_(new LibraryModel(this)),
      proxy_(new LibraryFilterProxy(this)),
      search_(new QLineEdit(this)),
      labels_(new QComboBox(this)),
      table_(new QTableView(this)),
      count_(new QLabel(this)),
      empty_(new QLabel(this)),
      failed_toggle_(new QToolButton(this)),
      failed_files_(new FailedFilesView(this)),
      search_delay_(new QTimer(this)) {
    search_->setPlaceholderText(tr("Search documents and summaries (Ctrl+F)"));
    search_->setClearButtonEnabled(true);
    labels_->setToolTip(tr("Show only documents whose newest classification gave them this label"));
    proxy_->setSourceModel(model_);
    table_->setModel(proxy_);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setShowGrid(false);
    table_->setAlternatingRowColors(true);
    table_->setWordWrap(false);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setSectionResizeMode(LibraryModel::TitleColumn, QHeaderView::Stretch);
    for (int c = LibraryModel::PagesColumn; c < LibraryModel::ColumnCount; ++c)
        table_->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    // The list is newest first already; the date is in each row's tooltip. The title needs the room.
    table_->setColumnHidden(LibraryModel::AddedColumn, true);
    table_->setContextMenuPolicy(Qt::CustomContextMenu);
    // Tab leaves the list for the next pane; the arrow keys move between documents.
    table_->setTabKeyNavigation(false);
    // The same frame as the other panes while the keyboard is here (issue 42: the style's own
    // cue was a faint dotted cell); the failed-files list stands in the table's place.
    show_keyboard_focus(table_);
    show_keyboard_focus(failed_files_);
    auto* remove = new QAction(tr("Remove from library"), table_);
    remove->setShortcut(QKeySequence::Delete);
    remove->setShortcutContext(Qt::WidgetShortcut);
    table_->addAction(remove);
    connect(remove, &QAction::triggered, this, [this] {
        if (const qint64 id = selected_document()) emit delete_requested(id);
    });
    count_->setForegroundRole(QPalette::PlaceholderText);
    empty_->setObjectName("no-match");
    empty_->setWordWrap(true);
    empty_->setAlignment(Qt::AlignHCenter | Qt::AlignTop);
    empty_->setMargin(16);
    empty_->setTextFormat(Qt::RichText);
    empty_->hide();
    connect(empty_, &QLabel::linkActivated, this, &LibraryPanel::clear_filters);
    table_->setItemDelegateForColumn(LibraryModel::TitleColumn, new LibrarySnippetDelegate(table_));
    failed_toggle_->setCheckable(true);
    failed_toggle_->setToolTip(tr("Files batch runs could not summarize, with the reason"));
    failed_files_->hide();
    connect(failed_toggle_, &QToolButton::toggled, this, [this](bool on) {
        failed_files_->setVisible(on);
        update_count();
        update_empty_message();  // shows the table again, or the message in its place
    });

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(search_);
    layout->addWidget(labels_);
    layout->addWidget(table_, 1);
    layout->addWidget(empty_, 1);
    layout->addWidget(failed_files_, 1);
    auto* footer = new QHBoxLayout;
    footer->addWidget(count_, 1);
    footer->addWidget(failed_toggle_);
    layout->addLayout(footer);

    // Search as the user types, but not on every keystroke of a long word.
    search_delay_->setSingleShot(true);
    search_delay_->setInterval(250);
    connect(search_, &QLineEdit::textChanged, search_delay_, qOverload<>(&QTimer::start));
    connect(search_delay_, &QTimer::timeout, this, &LibraryPanel::apply_filters);
    connect(labels_, &QComboBox::currentIndexChanged, this, &LibraryPanel::apply_filters);
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
        if (current.isValid()) emit document_selected(current.data(LibraryModel::DocumentIdRole).toLongLong());
    });
    connect(table_, &QWidget::customContextMenuRequested, this, &LibraryPanel::show_context_menu);
    refresh();
}

void LibraryPanel::refresh() {
    const qint64 keep = selected_document();
    model_->set_items(library_.documents());
    // Only documents classified at all are looked at: an unclassified library costs nothing.
    QSet<qint64> classified;
    for (const QString& l : library_.labels())
        for (const DocumentInfo& d : library_.documents_with_label(l)) classified.insert(d.id);
    fill_label_filter(QVector<qint64>(classified.begin(), classified.end()));
    const QVector<FailedBatchFile> failed = library_.failed_batch_files();
    failed_files_->set_files(failed);
    failed_toggle_->setText(tr("Failed files (%1)").arg(failed.size()));
    failed_toggle_->setVisible(!failed.isEmpty());
    if (failed.isEmpty()) failed_toggle_->setChecked(false);
    apply_filters();
    if (keep) {
        const QSignalBlocker block(table_->selectionModel());
        select_document(keep);
    }
}

void LibraryPanel::fill_label_filter(const QVector<qint64>& documents) {
    // Only labels a document has now (its newest classification predicted it), with how many:
    // a label some run merely scored, or one whose documents were re-classified or removed,
    // would offer a filter that lists nothing.
    QMap<QString, int> in_use;
    for (qint64 id : documents) {
        const QVector<ClassificationRecord> run = newest_classification(library_, id);
        for (const ClassificationRecord& c : run)
            if (is_predicted(c, run)) ++in_use[c.label];
    }
    const QString current_label = labels_->currentData().toString();
    const QSignalBlocker block(labels_);
    labels_->clear();
    labels_->addItem(tr("All labels"), QString());
    for (auto it = in_use.cbegin(); it != in_use.cend(); ++it)
        labels_->addItem(tr("%1 (%2)").arg(it.key()).arg(it.value()), it.key());
    const int i = labels_->findData(current_label);
    labels_->setCurrentIndex(i < 0 ? 0 : i);
    labels_->setVisible(labels_->count() > 1);  // nothing to filter by until something is labelled
}

void LibraryPanel::clear_filters() {
    {
        const QSignalBlocker block(search_);
        search_->clear();
    }
    search_delay_->stop();
    {
        const QSignalBlocker block(labels_);
        labels_->setCurrentIndex(0);
    }
    apply_filters();
}

void LibraryPanel::update_empty_message() {
    const bool failed = failed_files_->isVisibleTo(this);
    const bool nothing = proxy_->rowCount() == 0 && model_->rowCount() > 0;
    const QString query = search_->text().trimmed();
    const QString label = labels_->currentData().toString();
    if (nothing) {
        QString what;
        if (!query.isEmpty() && !label.isEmpty())
            what = tr("No document labelled “%1” matches “%2”.").arg(label.toHtmlEscaped(), query.toHtmlEscaped());
        else if (!query.isEmpty())
            what = tr("No document or summary matches “%1”.").arg(query.toHtmlEscaped());
        else
            what = tr("No document is labelled “%1” now.").arg(label.toHtmlEscaped());
        empty_->setText(what + QStringLiteral("<br><br><a href='clear'>%1</a>").arg(tr("Show all documents")));
    }
    empty_->setVisible(nothing && !failed);
    table_->setVisible(!nothing && !failed);
}

void LibraryPanel::apply_filters() {
    std::optional<QSet<qint64>> allowed;
    const QString query = search_->text().trimmed();
    QHash<qint64, QString> snippets;
    if (!query.isEmpty()) {
        SearchOptions opts;
        opts.limit = 500;
        opts.mark_begin = QStringLiteral("\x01");
        opts.mark_end = QStringLiteral("\x02");
        QSet<qint64> ids;
        try {
            for (const SearchHit& hit : library_.search(query, opts)) {
                ids.insert(hit.document_id);
                const QString snippet = hit.document_snippet.isEmpty() ? hit.summary_snippet : hit.document_snippet;
                snippets.insert(hit.document_id, snippet.toHtmlEscaped()
                                                     .replace(QChar(1), QStringLiteral("<b>"))
                                                     .replace(QChar(2), QStringLiteral("</b>")));
            }
        } catch (const LibraryError&) {
            // A half-typed query FTS cannot parse matches nothing rather than raising an error.
        }
        allowed = ids;
    }
    if (const QString label = labels_->currentData().toString(); !label.isEmpty()) {
        const QSet<qint64> with_label = documents_predicted_as(library_, label);
        allowed = allowed ? allowed->intersect(with_label) : with_label;
    }
    proxy_->set_allowed(allowed);
    model_->set_snippets(snippets);
    table_->resizeRowsToContents();  // a hit's row has a second line for its snippet
    update_count();
    update_empty_message();
}

void LibraryPanel::update_count() {
    if (failed_files_->isVisibleTo(this)) {
        count_->setText(tr("%n file(s) batch runs could not summarize", nullptr, failed_files_->count()));
        return;
    }
    const int shown = proxy_->rowCount(), total = model_->rowCount();
    count_->setText(shown == total ? tr("%n document(s)", nullptr, total) : tr("%1 of %2 documents").arg(shown).arg(total));
}

void LibraryPanel::select_document(qint64 document_id) {
    const int row = model_->row_of(document_id);
    if (row < 0) return;
    const QModelIndex idx = proxy_->mapFromSource(model_->index(row, 0));
    if (!idx.isValid()) return;  // filtered out
    table_->setCurrentIndex(idx);
    table_->scrollTo(idx);
}

qint64 LibraryPanel::selected_document() const {
    const QModelIndex idx = table_->currentIndex();
    return idx.isValid() ? idx.data(LibraryModel::DocumentIdRole).toLongLong() : 0;
}

void LibraryPanel::focus_search() {
    search_->setFocus(Qt::ShortcutFocusReason);
    search_->selectAll();
}

void LibraryPanel::show_context_menu(const QPoint& pos) {
    const QModelIndex idx = table_->indexAt(pos);
    if (!idx.isValid()) return;
    const qint64 id = idx.data(LibraryModel::DocumentIdRole).toLongLong();
    QMenu menu(this);
    menu.addAction(tr("Remove from library"), this, [this, id] { emit delete_requested(id); });
    menu.exec(table_->viewport()->mapToGlobal(pos));
}

}  // namespace precis::ui
