// The main window's keyboard: Tab walks library -> document -> outline (a sectioned summary's)
// -> summary -> passages -> history -> summary buttons; F6 / Shift+F6 jump between panes; the
// summary's Copy, Export and Delete have shortcuts. (The menus and toolbar are in main_window.cpp.)
#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QScrollArea>
#include <QLineEdit>
#include <QListWidget>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>

#include "ui/attention_panel.h"
#include "ui/document_view.h"
#include "ui/library_panel.h"
#include "ui/main_window.h"
#include "ui/outline_view.h"
#include "ui/run_queue_panel.h"
#include "ui/summary_panel.h"

namespace precis::ui {

namespace {

// Where the focus goes when a pane is entered with F6.
QWidget* focus_target(QWidget* pane) {
    if (auto* library = qobject_cast<LibraryPanel*>(pane)) return library->table();
    if (auto* document = qobject_cast<DocumentView*>(pane)) return document->tabs()->currentWidget();
    if (auto* summary = qobject_cast<SummaryPanel*>(pane)) return summary->text_view();
    if (auto* queue = qobject_cast<RunQueuePanel*>(pane)) return queue->list();
    return pane;
}

}  // namespace

void MainWindow::build_keyboard() {
    // Tab order: the chain the issue asks for, each pane's controls in reading order.
    const QList<QWidget*> chain = {library_panel_->search_box(), library_panel_->table(),
                                   document_view_->text_view(),  summary_panel_->outline_view(),
                                   summary_panel_->text_view(),
                                   summary_panel_->passage_list(), summary_panel_->history()};
    for (int i = 0; i + 1 < chain.size(); ++i) setTabOrder(chain[i], chain[i + 1]);

    auto* next_pane = new QAction(tr("Next pane"), this);
    next_pane->setShortcut(Qt::Key_F6);
    connect(next_pane, &QAction::triggered, this, [this] { focus_pane(+1); });
    auto* previous_pane = new QAction(tr("Previous pane"), this);
    previous_pane->setShortcut(Qt::SHIFT | Qt::Key_F6);
    connect(previous_pane, &QAction::triggered, this, [this] { focus_pane(-1); });

    auto* copy = new QAction(tr("&Copy summary"), this);
    copy->setShortcut(Qt::CTRL | Qt::SHIFT | Qt::Key_C);
    connect(copy, &QAction::triggered, summary_panel_, &SummaryPanel::copy_to_clipboard);
    auto* export_summary = new QAction(tr("&Export summary…"), this);
    export_summary->setShortcut(Qt::CTRL | Qt::Key_E);
    connect(export_summary, &QAction::triggered, summary_panel_, &SummaryPanel::export_summary);
    auto* delete_summary = new QAction(tr("&Delete summary…"), this);
    delete_summary->setShortcut(Qt::CTRL | Qt::SHIFT | Qt::Key_Delete);
    connect(delete_summary, &QAction::triggered, summary_panel_, &SummaryPanel::delete_summary);

    // A Summary menu makes them visible (with their keys) and reachable with Alt+U.
    QMenu* summary = new QMenu(tr("S&ummary"), this);
    summary->addAction(copy);
    summary->addAction(export_summary);
    summary->addSeparator();
    summary->addAction(delete_summary);
    connect(summary, &QMenu::aboutToShow, this, [=, this] {
        for (QAction* a : {copy, export_summary, delete_summary}) a->setEnabled(summary_panel_->has_summary());
    });
    connect(summary, &QMenu::aboutToHide, this, [=] {
        for (QAction* a : {copy, export_summary, delete_summary}) a->setEnabled(true);
    });
    const QList<QAction*> top = menuBar()->actions();
    menuBar()->insertMenu(top.size() >= 3 ? top[3] : nullptr, summary);  // after Document

    QMenu* view = nullptr;
    for (QAction* a : menuBar()->actions())
        if (a->menu() && a->text() == tr("&View")) view = a->menu();
    if (view) {
        view->addSeparator();
        view->addAction(next_pane);
        view->addAction(previous_pane);
    } else {
        addAction(next_pane);
        addAction(previous_pane);
    }
}

QList<QWidget*> MainWindow::panes() const {
    QList<QWidget*> list = {library_panel_, document_view_, summary_panel_};
    if (queue_->isVisible()) list.insert(1, queue_);
    for (QDockWidget* dock : findChildren<QDockWidget*>()) {
        QWidget* pane = dock->widget();
        if (auto* area = qobject_cast<QScrollArea*>(pane)) pane = area->widget();  // the attention dock scrolls
        if (dock->isVisible() && pane) list << pane;
    }
    return list;
}

void MainWindow::focus_pane(int step) {
    const QList<QWidget*> list = panes();
    QWidget* focus = QApplication::focusWidget();
    int at = -1;
    for (int i = 0; i < list.size(); ++i)
        if (focus && (focus == list[i] || list[i]->isAncestorOf(focus))) at = i;
    const int n = int(list.size());
    const int next = at < 0 ? (step > 0 ? 0 : n - 1) : ((at + step) % n + n) % n;
    QWidget* target = focus_target(list[next]);
    if (target->focusPolicy() == Qt::NoFocus) target = target->nextInFocusChain();
    target->setFocus(Qt::OtherFocusReason);
}

}  // namespace precis::ui
