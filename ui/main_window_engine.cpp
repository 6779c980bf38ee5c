// The main window's side of the engine worker: its signals connected, each request tracked
// for the progress line, and the replies (model ready, summary stored, failed, cancelled,
// a password needed) turned into what the person sees. Split from main_window.cpp.
#include <QFileInfo>
#include <QInputDialog>
#include <QLineEdit>
#include <QStatusBar>

#include "app/file_names.h"
#include "app/worker/engine_thread.h"
#include "ui/attention_panel.h"
#include "ui/library_panel.h"
#include "ui/main_window.h"
#include "ui/recent_files.h"
#include "ui/run_queue_panel.h"
#include "ui/run_status.h"
#include "ui/summary_panel.h"

namespace precis::ui {

void MainWindow::connect_engine() {
    EngineWorker* w = engine_->worker();
    connect(w, &EngineWorker::model_ready, this, &MainWindow::on_model_ready);
    connect(w, &EngineWorker::document_opened, this, &MainWindow::on_document_opened);
    connect(w, &EngineWorker::summary_finished, this, &MainWindow::on_summary_finished);
    connect(w, &EngineWorker::classification_finished, this, &MainWindow::on_classification_finished);
    connect(w, &EngineWorker::failed, this, &MainWindow::on_failed);
    connect(w, &EngineWorker::document_failed, this, &MainWindow::on_document_failed);
    connect(w, &EngineWorker::cancelled, this, &MainWindow::on_cancelled);
    connect(w, &EngineWorker::password_needed, this, &MainWindow::on_password_needed);
    connect(w, &EngineWorker::progress, run_status_, &RunStatus::set_stage);
    connect(w, &EngineWorker::notice, this, [this](const QString& m) { show_status(m, 10000); });
    connect(w, &EngineWorker::partial_summary, this, [this](qint64 document_id, const QString& text) {
        if (document_id == streaming_document_) streaming_text_ = text;
        if (document_id == current_document_ && document_id == streaming_document_) summary_panel_->show_streaming(text);
    });
    connect(w, &EngineWorker::sources_traced, this, [this](const SourceTrace& t) {
        summary_panel_->set_passages(t.summary_id, t.passages);
    });
    connect(w, &EngineWorker::attention_captured, attention_panel_, &AttentionPanel::show_capture);
    connect(w, &EngineWorker::request_done, this, [this](quint64 ticket) {
        requests_.remove(ticket);
        opening_.remove(ticket);
        if (ticket == running_ticket_) {
            finish_run(ticket, running_outcome_);
            start_next_run();
        }
    });
    connect(engine_.get(), &EngineThread::busy_changed, this, [this](bool busy) {
        if (busy) busy_since_.start();
        cancel_action_->setEnabled(busy);
        if (!busy) run_status_->finish();
    });
}

void MainWindow::track(quint64 ticket, Request kind, const QString& what) {
    requests_.insert(ticket, kind);
    // The progress line keeps naming the running summary while smaller requests queue behind it.
    if (running_ticket_) return;
    if (kind != Request::PrepareModel || !run_status_->running()) run_status_->start(what);
}

void MainWindow::on_model_ready(const ModelInfo& info) {
    model_info_ = info;
    attention_panel_->set_model_info(info);
    update_attention_document();
    show_model_label();
    banner_->show_for(info);
}

void MainWindow::on_summary_finished(const SummaryOutcome& outcome) {
    QString message = tr("Summary stored in the library.");
    if (const int entry = batch_entries_.take(outcome.document_id)) {
        // One document of a batched run: its entry is done; the others run on.
        if (const std::optional<RunQueuePanel::Entry> e = queue_->entry(entry))
            message = tr("The summary of %1 is stored in the library.").arg(e->name);
        queue_->set_state(entry, RunQueuePanel::State::Done);
        ++batch_stored_;
    } else {
        running_outcome_ = int(RunQueuePanel::State::Done);
        streaming_document_ = 0;
    }
    library_panel_->refresh();
    summary_panel_->set_passages(outcome.summary_id, outcome.passages);
    if (outcome.document_id == current_document_) summary_panel_->show_document(outcome.document_id, outcome.summary_id);
    update_attention_document();
    if (outcome.truncated)
        message += tr(" The model read the first %1 of %2 tokens; the rest was not summarized (Settings: Long documents).")
                       .arg(outcome.tokens_read)
                       .arg(outcome.input_tokens);
    else if (outcome.sections > 0)
        message += outcome.kept_sections > 0
                       ? tr(" Summarized in %1 sections (%2 kept from the cancelled run); the outline is beside the summary.")
                             .arg(outcome.sections)
                             .arg(outcome.kept_sections)
                       : tr(" Summarized in %1 sections; the outline is beside the summary.").arg(outcome.sections);
    show_status(message, 10000);
}

void MainWindow::on_failed(quint64 ticket, const QString& message) {
    const auto it = requests_.constFind(ticket);
    if (it == requests_.constEnd()) return;  // not ours (a settings-dialog import reports there)
    switch (*it) {
        case Request::Summarize:
            if (ticket == running_ticket_) running_outcome_ = int(RunQueuePanel::State::Failed);
            streaming_document_ = 0;
            summary_panel_->end_streaming();
            show_error(tr("Summarize"), message);
            break;
        case Request::Classify:
            if (ticket == running_ticket_) running_outcome_ = int(RunQueuePanel::State::Failed);
            show_error(tr("Classify"), message);
            break;
        case Request::Capture: attention_panel_->capture_failed(message); break;
        case Request::Open:
            recent_->remove(opening_.take(ticket));  // a file that does not open is not offered again
            show_error(tr("Open document"), message);
            break;
        case Request::PrepareModel: show_error(tr("Model"), message); break;
        case Request::Trace: show_error(tr("Source passages"), message); break;
    }
}

void MainWindow::on_cancelled(quint64 ticket) {
    const auto it = requests_.constFind(ticket);
    if (it != requests_.constEnd() && *it == Request::Summarize) {
        if (ticket == running_ticket_) running_outcome_ = int(RunQueuePanel::State::Cancelled);
        streaming_document_ = 0;
        summary_panel_->end_streaming();
    }
    if (it != requests_.constEnd() && *it == Request::Classify && ticket == running_ticket_)
        running_outcome_ = int(RunQueuePanel::State::Cancelled);
    if (it != requests_.constEnd() && *it == Request::Capture) attention_panel_->capture_failed(tr("Cancelled."));
    // A batched run (no single running entry) keeps the summaries that finished before the cancel.
    const bool batch_kept = ticket == running_ticket_ && !running_entry_ && batch_stored_ > 0;
    if (batch_kept && batch_stored_ == 1)
        show_status(tr("Cancelled; the summary that had finished is kept, the others were not stored."), 5000);
    else if (batch_kept)
        show_status(tr("Cancelled; the %1 summaries that had finished are kept, the others were not stored.").arg(batch_stored_), 5000);
    else
        show_status(tr("Cancelled; nothing was stored."), 5000);
}

void MainWindow::on_password_needed(const QString& path, bool wrong_password) {
    auto* dialog = new QInputDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("Password"));
    dialog->setLabelText(wrong_password ? tr("That password did not open %1. Try again:").arg(path_for_display(QFileInfo(path).fileName()))
                                        : tr("%1 is encrypted. Password:").arg(path_for_display(QFileInfo(path).fileName())));
    dialog->setTextEchoMode(QLineEdit::Password);
    connect(dialog, &QInputDialog::textValueSelected, this, [this, path](const QString& password) { open_file(path, password); });
    dialog->open();
}

// --- housekeeping (the settings and model dialogs: main_window_settings.cpp)

}  // namespace precis::ui
