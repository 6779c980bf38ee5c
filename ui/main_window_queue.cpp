// The main window's run queue: Summarize or Classify during a run adds the document to the
// queue (RunQueuePanel) instead of starting it; when the run ends the next waiting entry
// starts, and when several summaries wait they start together as one batched request
// (EngineWorker::summarize_many), which makes them in a fraction of the time one after
// another takes. The progress line names the document, or the number summarized together.
#include <QFileInfo>
#include <QSet>
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
using State = RunQueuePanel::State;

namespace {

// Documents summarized together at most, as a folder batch reads them ahead of the model
// (app/batch/batch_runner.cpp): enough to keep the engine's batch full; the rest wait for
// the next run.
constexpr int kMostSummariesTogether = 64;

}  // namespace

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
        (running && running->document_id == current_document_ && running->task == task) ||
        (task == Task::Summarize && batch_entries_.contains(current_document_))) {
        show_status(task == Task::Classify ? tr("%1 is already waiting to be classified.").arg(name)
                                                        : tr("%1 is already in the summary queue.").arg(name),
                                 5000);
        for (const RunQueuePanel::Entry& e : queue_->entries())  // the message goes with its entry
            if (e.document_id == current_document_ && e.task == task && e.state == RunQueuePanel::State::Waiting)
                queued_status_entry_ = e.id;
        return;
    }
    const int entry = queue_->add(current_document_, name, task);
    if (running_ticket_) {  // a run of the queue is going: one entry, or a batch
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
    if (running_ticket_ || closing_) return;
    // An entry whose document was removed from the library while it waited never starts.
    auto first_startable = [this]() -> std::optional<RunQueuePanel::Entry> {
        while (const std::optional<RunQueuePanel::Entry> e = queue_->next_waiting()) {
            if (library_->document(e->document_id)) return e;
            queue_->set_state(e->id, State::Cancelled);
        }
        return std::nullopt;
    };
    const std::optional<RunQueuePanel::Entry> next = first_startable();
    if (!next) return;
    running_outcome_ = int(State::Failed);  // until the worker says otherwise
    if (next->task == Task::Classify) {
        running_entry_ = next->id;
        clear_stale_queue_status(next->id);  // "queued" is no longer true of it
        queue_->set_state(next->id, State::Running);
        summary_panel_->classification_view()->set_pending(next->document_id, tr("classifying…"));
        running_ticket_ = engine_->classify(next->document_id, settings_);
        requests_.insert(running_ticket_, Request::Classify);
        run_status_->start(tr("Classifying %1").arg(next->name));
        return;
    }
    // Every waiting summary goes, also those behind a waiting classification: made together
    // they take little longer than one, and the classification runs right after.
    QVector<RunQueuePanel::Entry> together;
    QSet<qint64> documents_together;  // a document once per run: its summary ends its one entry
    for (const RunQueuePanel::Entry& e : queue_->waiting(Task::Summarize, kMostSummariesTogether)) {
        if (!library_->document(e.document_id)) {
            queue_->set_state(e.id, State::Cancelled);
        } else if (!documents_together.contains(e.document_id)) {
            together << e;
            documents_together.insert(e.document_id);
        }
    }
    if (together.size() >= 2) {
        QVector<int> entries;
        QVector<qint64> documents;
        for (const RunQueuePanel::Entry& e : together) {
            entries << e.id;
            documents << e.document_id;
            batch_entries_.insert(e.document_id, e.id);
            clear_stale_queue_status(e.id);
        }
        batch_stored_ = 0;
        queue_->set_states(entries, State::Running);
        // A batched run streams no text: the shown document says "Generating…" until its summary comes.
        if (batch_entries_.contains(current_document_)) summary_panel_->show_streaming(QString());
        running_ticket_ = engine_->summarize_many(documents, settings_);
        requests_.insert(running_ticket_, Request::Summarize);
        run_status_->start(tr("Summarizing %1 documents together").arg(documents.size()));
        return;
    }
    running_entry_ = next->id;
    clear_stale_queue_status(next->id);
    queue_->set_state(next->id, State::Running);
    streaming_document_ = next->document_id;
    streaming_text_.clear();
    if (next->document_id == current_document_) summary_panel_->show_streaming(QString());
    running_ticket_ = engine_->summarize(next->document_id, settings_);
    requests_.insert(running_ticket_, Request::Summarize);
    run_status_->start(tr("Summarizing %1").arg(next->name));
}

void MainWindow::finish_run(quint64 ticket, int state) {
    if (!running_ticket_ || ticket != running_ticket_) return;
    if (running_entry_) {
        const std::optional<RunQueuePanel::Entry> entry = queue_->entry(running_entry_);
        if (entry && entry->task == Task::Classify) summary_panel_->classification_view()->set_pending(entry->document_id, {});
        queue_->set_state(running_entry_, State(state));
    }
    // A batched run's entries not reported one by one: cancelled, or failed with the request.
    if (!batch_entries_.isEmpty()) queue_->set_states(batch_entries_.values(), State(state));
    batch_entries_.clear();
    running_entry_ = 0;
    running_ticket_ = 0;
    streaming_document_ = 0;
    streaming_text_.clear();
}

void MainWindow::on_document_failed(quint64 ticket, qint64 document_id, const QString& message) {
    if (ticket != running_ticket_) return;
    const int entry = batch_entries_.take(document_id);
    if (!entry) return;
    const std::optional<RunQueuePanel::Entry> e = queue_->entry(entry);
    queue_->set_state(entry, State::Failed);  // only this one: the others run on
    if (document_id == current_document_) summary_panel_->end_streaming();
    show_error(tr("Summarize"), e ? tr("%1: %2").arg(e->name, message) : message);
}

void MainWindow::clear_stale_queue_status(int entry) {
    if (queued_status_entry_ == 0 || entry != queued_status_entry_) return;
    statusBar()->clearMessage();
    statusBar()->setToolTip(QString());
    queued_status_entry_ = 0;
}

}  // namespace precis::ui
