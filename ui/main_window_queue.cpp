// The main window's summary queue: Summarize during a run adds the document to the queue
// (RunQueuePanel) instead of starting it; when the run ends the next waiting document
// starts. The progress line names the document being summarized.
#include <QFileInfo>
#include <QStatusBar>

#include "app/library/library.h"
#include "app/worker/engine_thread.h"
#include "ui/main_window.h"
#include "ui/run_queue_panel.h"
#include "ui/run_status.h"
#include "ui/summary_panel.h"

namespace precis::ui {

void MainWindow::summarize_current() {
    if (!current_document_) {
        statusBar()->showMessage(tr("Open a document first (Ctrl+O)."), 5000);
        return;
    }
    const auto doc = library_->document(current_document_);
    if (!doc) return;
    const QString name = QFileInfo(doc->path).fileName();
    if (queue_->is_waiting(current_document_) ||
        (running_entry_ && queue_->entry(running_entry_) && queue_->entry(running_entry_)->document_id == current_document_)) {
        statusBar()->showMessage(tr("%1 is already in the summary queue.").arg(name), 5000);
        return;
    }
    queue_->add(current_document_, name);
    if (running_entry_) {
        statusBar()->showMessage(tr("%1 is queued: it will be summarized after the %n run(s) ahead of it.", nullptr,
                                    queue_->waiting_count())
                                     .arg(name),
                                 8000);
        return;
    }
    start_next_summary();
}

void MainWindow::start_next_summary() {
    if (running_entry_ || closing_) return;
    while (const std::optional<RunQueuePanel::Entry> next = queue_->next_waiting()) {
        if (!library_->document(next->document_id)) {  // removed from the library while it waited
            queue_->set_state(next->id, RunQueuePanel::State::Cancelled);
            continue;
        }
        running_entry_ = next->id;
        running_outcome_ = int(RunQueuePanel::State::Failed);  // until the worker says otherwise
        queue_->set_state(next->id, RunQueuePanel::State::Running);
        streaming_document_ = next->document_id;
        streaming_text_.clear();
        if (next->document_id == current_document_) summary_panel_->show_streaming(QString());
        running_ticket_ = engine_->summarize(next->document_id, settings_);
        requests_.insert(running_ticket_, Request::Summarize);
        run_status_->start(tr("Summarizing %1").arg(next->name));
        return;
    }
}

void MainWindow::finish_summary(quint64 ticket, int state) {
    if (ticket != running_ticket_ || !running_entry_) return;
    queue_->set_state(running_entry_, RunQueuePanel::State(state));
    running_entry_ = 0;
    running_ticket_ = 0;
    streaming_document_ = 0;
    streaming_text_.clear();
}

}  // namespace precis::ui
