// The main window's run queue: Summarize or Classify during a run adds the document to the
// queue (RunQueuePanel) instead of starting it; when the run ends the next waiting entry
// starts. The progress line names the document and what is being done to it.
#include <QFileInfo>
#include <QStatusBar>

#include "app/library/library.h"
#include "app/worker/engine_thread.h"
#include "ui/classification_view.h"
#include "ui/main_window.h"
#include "ui/run_queue_panel.h"
#include "ui/run_status.h"
#include "ui/summary_panel.h"

namespace precis::ui {

using Task = RunQueuePanel::Task;

void MainWindow::summarize_current() { enqueue_current(int(Task::Summarize)); }

void MainWindow::enqueue_current(int task_value) {
    const Task task = Task(task_value);
    if (!current_document_) {
        show_status(tr("Open a document first (Ctrl+O)."), 5000);
        return;
    }
    const auto doc = library_->document(current_document_);
    if (!doc) return;
    const QString name = QFileInfo(doc->path).fileName();
    const std::optional<RunQueuePanel::Entry> running = running_entry_ ? queue_->entry(running_entry_) : std::nullopt;
    if (queue_->is_waiting(current_document_, task) ||
        (running && running->document_id == current_document_ && running->task == task)) {
        show_status(task == Task::Classify ? tr("%1 is already waiting to be classified.").arg(name)
                                                        : tr("%1 is already in the summary queue.").arg(name),
                                 5000);
        for (const RunQueuePanel::Entry& e : queue_->entries())  // the message goes with its entry
            if (e.document_id == current_document_ && e.task == task && e.state == RunQueuePanel::State::Waiting)
                queued_status_entry_ = e.id;
        return;
    }
    const int entry = queue_->add(current_document_, name, task);
    if (running_entry_) {
        if (task == Task::Classify)
            summary_panel_->classification_view()->set_pending(current_document_, tr("waiting in the queue"));
        const int ahead = queue_->waiting_count();
        show_status(
            task == Task::Classify
                ? tr("%1 is queued: it will be classified after the %n run(s) ahead of it.", nullptr, ahead).arg(name)
                : tr("%1 is queued: it will be summarized after the %n run(s) ahead of it.", nullptr, ahead).arg(name),
            8000);
        queued_status_entry_ = entry;  // cleared with its entry (clear_stale_queue_status)
        return;
    }
    start_next_run();
}

void MainWindow::start_next_run() {
    if (running_entry_ || closing_) return;
    while (const std::optional<RunQueuePanel::Entry> next = queue_->next_waiting()) {
        if (!library_->document(next->document_id)) {  // removed from the library while it waited
            queue_->set_state(next->id, RunQueuePanel::State::Cancelled);
            continue;
        }
        running_entry_ = next->id;
        clear_stale_queue_status(next->id);  // "queued" is no longer true of it
        running_outcome_ = int(RunQueuePanel::State::Failed);  // until the worker says otherwise
        queue_->set_state(next->id, RunQueuePanel::State::Running);
        if (next->task == Task::Classify) {
            summary_panel_->classification_view()->set_pending(next->document_id, tr("classifying…"));
            running_ticket_ = engine_->classify(next->document_id, settings_);
            requests_.insert(running_ticket_, Request::Classify);
            run_status_->start(tr("Classifying %1").arg(next->name));
            return;
        }
        streaming_document_ = next->document_id;
        streaming_text_.clear();
        if (next->document_id == current_document_) summary_panel_->show_streaming(QString());
        running_ticket_ = engine_->summarize(next->document_id, settings_);
        requests_.insert(running_ticket_, Request::Summarize);
        run_status_->start(tr("Summarizing %1").arg(next->name));
        return;
    }
}

void MainWindow::finish_run(quint64 ticket, int state) {
    if (ticket != running_ticket_ || !running_entry_) return;
    const std::optional<RunQueuePanel::Entry> entry = queue_->entry(running_entry_);
    if (entry && entry->task == Task::Classify) summary_panel_->classification_view()->set_pending(entry->document_id, {});
    queue_->set_state(running_entry_, RunQueuePanel::State(state));
    running_entry_ = 0;
    running_ticket_ = 0;
    streaming_document_ = 0;
    streaming_text_.clear();
}

void MainWindow::clear_stale_queue_status(int entry) {
    if (queued_status_entry_ == 0 || entry != queued_status_entry_) return;
    statusBar()->clearMessage();
    statusBar()->setToolTip(QString());
    queued_status_entry_ = 0;
}

}  // namespace precis::ui
