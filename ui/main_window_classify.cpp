// The main window's classification: Classify (Ctrl+L) checks that a classifier can run
// before queueing (so a missing model or missing zero-shot labels is said at once, with
// what to do), and shows the stored labels when the run ends. The run itself goes through
// the run queue (main_window_queue.cpp) and the worker thread like a summary.
#include <QFileInfo>
#include <QMessageBox>
#include <QPushButton>
#include <QStatusBar>
#include <QTabWidget>

#include "app/library/library.h"
#include "app/worker/classifier_settings.h"
#include "ui/classification_view.h"
#include "ui/library_panel.h"
#include "ui/main_window.h"
#include "ui/run_queue_panel.h"
#include "ui/settings_dialog.h"
#include "ui/summary_panel.h"

namespace precis::ui {

void MainWindow::classify_current() {
    if (!current_document_) {
        show_status(tr("Open a document first (Ctrl+O)."), 5000);
        return;
    }
    const std::optional<ResolvedClassifier> classifier = find_classifier_model(settings_.classifier);
    if (!classifier) {
        show_classifier_missing(no_classifier_message());
        return;
    }
    const QString folder = QString::fromStdString(classifier->dir.filename().string());
    if (classifier->task == QLatin1String("summarization")) {
        show_classifier_missing(tr("%1 is a summarization model: it cannot classify. Choose a classification or "
                                   "zero-shot model in Settings > Classification.")
                                    .arg(folder));
        return;
    }
    if (classifier->task == QLatin1String("zero-shot labels") && classifier_labels(settings_.classifier).isEmpty()) {
        show_classifier_missing(tr("%1 is a zero-shot model: it picks from labels you give it. Enter them, separated "
                                   "by commas (for example: invoice, contract, letter), in Settings > Classification.")
                                    .arg(folder));
        return;
    }
    connect(queue_, &RunQueuePanel::removed, this, &MainWindow::forget_removed_classifications, Qt::UniqueConnection);
    enqueue_current(int(RunQueuePanel::Task::Classify));
}

void MainWindow::forget_removed_classifications() {
    ClassificationView* view = summary_panel_->classification_view();
    const std::optional<RunQueuePanel::Entry> running = running_entry_ ? queue_->entry(running_entry_) : std::nullopt;
    for (const qint64 document_id : view->pending_documents()) {
        const bool classifying = running && running->task == RunQueuePanel::Task::Classify && running->document_id == document_id;
        if (!classifying && !queue_->is_waiting(document_id, RunQueuePanel::Task::Classify)) view->set_pending(document_id, {});
    }
}

void MainWindow::show_classifier_missing(const QString& message) {
    show_status(message, 15000);
    // Not exec(): the window keeps running (and tests keep going) while the message shows.
    auto* box = new QMessageBox(QMessageBox::Information, tr("Classify"), message, QMessageBox::Close, this);
    box->setObjectName(QStringLiteral("classifier-missing"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    QPushButton* download = box->addButton(tr("Download a model…"), QMessageBox::ActionRole);
    QPushButton* settings = box->addButton(tr("Settings…"), QMessageBox::ActionRole);
    connect(download, &QPushButton::clicked, this, &MainWindow::download_model);
    connect(settings, &QPushButton::clicked, this, [this] {
        SettingsDialog dialog(settings_, engine_.get(), this);
        dialog.tabs()->setCurrentIndex(SettingsDialog::kClassificationTab);
        if (dialog.exec() == QDialog::Accepted) set_settings(dialog.settings());
    });
    box->open();
}

void MainWindow::on_classification_finished(const ClassificationOutcome& outcome) {
    running_outcome_ = int(RunQueuePanel::State::Done);
    library_panel_->refresh();  // the label filter offers the new labels
    if (outcome.document_id == current_document_) summary_panel_->classification_view()->show_document(outcome.document_id);
    const auto doc = library_->document(outcome.document_id);
    const QString name = doc ? QFileInfo(doc->path).fileName() : QString();
    QString message = tr("Classified %1: %2 (%3%), stored in the library.")
                          .arg(name, outcome.top_label)
                          .arg(outcome.top_score * 100.0, 0, 'f', 1);
    if (outcome.truncated)
        message += tr(" The classifier read the first %1 of %2 tokens.").arg(outcome.tokens_read).arg(outcome.input_tokens);
    show_status(message, 10000);
}

}  // namespace precis::ui
