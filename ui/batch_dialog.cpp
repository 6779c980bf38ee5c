#include "ui/batch_dialog.h"

#include <QAction>
#include <QCheckBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

#include "app/batch/batch_counts.h"
#include "app/models/model_store.h"
#include "app/qt_file_names.h"
#include "app/worker/engine_thread.h"
#include "app/worker/model_cache.h"
#include "app/worker/settings_description.h"
#include "ui/quit_keys.h"
#include "ui/screen_fit.h"

namespace precis::ui {

BatchDialog::BatchDialog(const QString& library_path, std::shared_ptr<ModelCache> models, EngineSettings settings,
                         QWidget* parent)
    : QDialog(parent), library_path_(library_path), models_(std::move(models)), settings_(std::move(settings)) {
    setWindowTitle(tr("Batch summarize"));
    folder_ = new QLineEdit(this);
    folder_->setPlaceholderText(tr("A folder of PDF, text or Markdown files"));
    browse_ = new QPushButton(tr("Browse…"), this);
    recursive_ = new QCheckBox(tr("Include subfolders"), this);
    retry_failed_ = new QCheckBox(tr("Retry files that failed before"), this);
    classify_ = new QCheckBox(tr("Also classify each file (the classifier and labels from Settings)"), this);
    settings_line_ = new QLabel(this);
    settings_line_->setWordWrap(true);
    settings_line_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Two lines at least: a form squeezed by a long report must not clip the model's name.
    settings_line_->setMinimumHeight(2 * settings_line_->fontMetrics().lineSpacing());
    overall_ = new QProgressBar(this);
    // The count goes in a label beside the bar: text drawn on the bar is hard to read half-filled.
    overall_->setTextVisible(false);
    overall_count_ = new QLabel(this);
    overall_->setRange(0, 1);
    overall_->setValue(0);
    current_ = new QLabel(this);
    current_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    current_->setMinimumWidth(420);
    file_bar_ = new QProgressBar(this);
    file_bar_->setTextVisible(false);
    stage_ = new QLabel(this);
    log_ = new QListWidget(this);
    log_->setWordWrap(true);
    log_->setMinimumHeight(120);
    report_ = new QLabel(this);
    report_->setWordWrap(true);
    start_ = new QPushButton(tr("Start"), this);
    start_->setDefault(true);
    cancel_ = new QPushButton(tr("Cancel"), this);
    close_ = new QPushButton(tr("Close"), this);

    auto* folder_row = new QHBoxLayout;
    folder_row->addWidget(folder_, 1);
    folder_row->addWidget(browse_);
    auto* form = new QFormLayout;
    form->addRow(tr("Folder:"), folder_row);
    form->addRow(QString(), recursive_);
    form->addRow(QString(), retry_failed_);
    form->addRow(QString(), classify_);
    form->addRow(tr("Will use:"), settings_line_);
    auto* overall_row = new QHBoxLayout;
    overall_row->addWidget(overall_, 1);
    overall_row->addWidget(overall_count_);
    form->addRow(tr("Overall:"), overall_row);
    form->addRow(tr("Current file:"), current_);
    auto* file_row = new QHBoxLayout;
    file_row->addWidget(file_bar_, 1);
    file_row->addWidget(stage_, 1);
    form->addRow(tr("This file:"), file_row);
    auto* buttons = new QHBoxLayout;
    buttons->addStretch();
    buttons->addWidget(start_);
    buttons->addWidget(cancel_);
    buttons->addWidget(close_);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(log_, 1);
    layout->addWidget(report_);
    layout->addLayout(buttons);
    resize(fit_size(QSize(720, 600), available_screen(this)));

    connect(browse_, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Folder to summarize"), folder_->text());
        if (!dir.isEmpty()) folder_->setText(path_from_dialog(dir));  // Qt's decoding lost bytes that are not UTF-8
    });
    connect(start_, &QPushButton::clicked, this, &BatchDialog::start);
    connect(cancel_, &QPushButton::clicked, this, &BatchDialog::cancel);
    // Ctrl+Q here quits Precis as it does from the main window (which asks about the batch).
    auto* quit = new QAction(this);
    quit->setShortcuts(quit_keys());
    quit->setShortcutContext(Qt::WindowShortcut);
    connect(quit, &QAction::triggered, this, [this] {
        if (QWidget* main = parentWidget()) main->window()->close();
        else reject();
    });
    addAction(quit);
    connect(close_, &QPushButton::clicked, this, &BatchDialog::reject);
    set_running(false);
    show_settings();
}

BatchDialog::~BatchDialog() = default;

QMessageBox* BatchDialog::stop_question() const { return stop_question_.data(); }

void BatchDialog::set_folder(const QString& folder) { folder_->setText(folder); }
void BatchDialog::set_recursive(bool recursive) { recursive_->setChecked(recursive); }
void BatchDialog::set_classify(bool classify) { classify_->setChecked(classify); }
void BatchDialog::set_retry_failed(bool retry) { retry_failed_->setChecked(retry); }

void BatchDialog::set_settings(const EngineSettings& settings) {
    settings_ = settings;
    show_settings();
}

void BatchDialog::show_settings() {
    QString line = describe_engine_settings(settings_);
    // The default model is called so, as the status bar does, rather than by where it was found.
    if (!uses_extractive(settings_)) {
        if (const std::optional<ResolvedModel> model = find_model(settings_)) {
            const std::filesystem::path def = models::default_model_folder();
            std::error_code ec;
            const QString where = QStringLiteral(" (%1)").arg(model->source);
            const qsizetype at = line.indexOf(where);
            if (!def.empty() && std::filesystem::equivalent(model->dir, def, ec) && at >= 0)
                line.replace(at, where.size(), tr(" (default)"));
        }
    }
    settings_line_->setText(line);
    settings_line_->setToolTip(tr("Change these in Settings (Ctrl+,) before starting; a folder run with other settings "
                                  "is a new job."));
}

void BatchDialog::set_running(bool running) {
    running_ = running;
    if (!running && stop_question_) stop_question_->done(QMessageBox::No);  // nothing left to stop
    start_->setEnabled(!running);
    cancel_->setEnabled(running);
    folder_->setEnabled(!running);
    browse_->setEnabled(!running);
    recursive_->setEnabled(!running);
    retry_failed_->setEnabled(!running);
    classify_->setEnabled(!running);
}

void BatchDialog::start() {
    if (running_) return;
    const QString folder = folder_->text().trimmed();
    if (folder.isEmpty() || !QFileInfo(folder).isDir()) {
        report_->setText(tr("<span style='color:#b91c1c'>Choose an existing folder first.</span>"));
        return;
    }
    if (!engine_) {
        // Created on first use: a dialog that is only looked at starts no thread.
        engine_ = std::make_unique<EngineThread>(library_path_, models_);
        EngineWorker* w = engine_->worker();
        connect(w, &EngineWorker::batch_file_started, this, &BatchDialog::on_file_started);
        connect(w, &EngineWorker::batch_file_finished, this, &BatchDialog::on_file_finished);
        connect(w, &EngineWorker::batch_finished, this, &BatchDialog::on_finished);
        connect(w, &EngineWorker::failed, this, &BatchDialog::on_failed);
        connect(w, &EngineWorker::cancelled, this, [this](quint64) {
            set_running(false);
            report_->setText(tr("Cancelled before any file was started."));
        });
        connect(w, &EngineWorker::notice, this, [this](const QString& m) { log_->addItem(m); });
        connect(w, &EngineWorker::progress, this, [this](const QString& stage, int done, int total) {
            stage_->setText(stage);
            file_bar_->setRange(0, total > 0 ? total : 0);
            if (total > 0) file_bar_->setValue(done);
        });
        emit engine_started(w);
    }
    log_->clear();
    report_->clear();
    overall_count_->setText(tr("listing files…"));
    current_->clear();
    total_ = finished_ = 0;
    overall_->setRange(0, 0);
    set_running(true);
    BatchRequest r;
    r.root = folder;
    r.recursive = recursive_->isChecked();
    r.retry_failed = retry_failed_->isChecked();
    r.classify = classify_->isChecked();
    r.settings = settings_;
    engine_->run_batch(r);
}

void BatchDialog::cancel() {
    if (!running_ || !engine_) return;
    engine_->cancel();
    cancel_->setEnabled(false);
    stage_->setText(tr("cancelling…"));
}

void BatchDialog::reject() {
    // Esc, Close and the title bar's close: a running batch is stopped only if the person
    // says so, as the main window asks before quitting (the file in progress would be lost).
    if (running_) {
        QMessageBox box(QMessageBox::Question, tr("Stop the batch"),
                        tr("A batch is running. Stop it? Files already summarized stay in the library, and starting "
                           "the same batch again resumes it; the file in progress is summarized again then."),
                        QMessageBox::Yes | QMessageBox::No, this);
        box.setDefaultButton(QMessageBox::No);  // a stray Enter keeps the batch going
        stop_question_ = &box;
        const int answer = box.exec();
        stop_question_ = nullptr;
        // Finished while asking: the question was closed, and the report stays to be read.
        if (answer != QMessageBox::Yes || !running_) return;
        cancel();
    }
    QDialog::reject();
}

void BatchDialog::on_file_started(int finished, int total, const QString& path) {
    total_ = total;
    finished_ = finished;
    overall_->setRange(0, std::max(total, 1));
    overall_->setValue(finished);
    overall_count_->setText(tr("%1 of %2 files").arg(finished).arg(total));
    current_->setText(QDir(folder_->text()).relativeFilePath(path));
    current_->setToolTip(path);
    file_bar_->setRange(0, 0);
    stage_->setText(tr("reading"));
}

void BatchDialog::on_file_finished(const QString& path, bool ok, const QString& error) {
    overall_->setValue(++finished_);
    overall_count_->setText(tr("%1 of %2 files").arg(finished_).arg(total_));
    const QString name = QDir(folder_->text()).relativeFilePath(path);
    auto* item = new QListWidgetItem(ok ? tr("✓ %1").arg(name) : tr("✗ %1 — %2").arg(name, error), log_);
    if (!ok) item->setForeground(QColor(0xb9, 0x1c, 0x1c));
    log_->scrollToBottom();
    if (ok) emit library_changed();
}

void BatchDialog::on_finished(const BatchOutcome& o) {
    set_running(false);
    overall_->setRange(0, std::max(o.total, 1));
    overall_->setValue(o.done_before + o.done_now + o.kept + int(o.failures.size() + o.failed_before.size()));
    overall_count_->setText(tr("%1 of %2 files").arg(overall_->value()).arg(o.total));
    file_bar_->setRange(0, 1);
    file_bar_->setValue(o.cancelled ? 0 : 1);
    stage_->clear();
    current_->clear();
    // The whole job, not just this run: a resumed run still reports what failed before.
    BatchCounts counts;
    counts.total = o.total;
    counts.done_before = o.done_before;
    counts.done_now = o.done_now;
    counts.kept = o.kept;
    counts.failed_before = int(o.failed_before.size());
    counts.failed_now = int(o.failures.size());
    for (int i = 0; i < o.failed_before.size(); ++i) {
        const BatchFileFailure& f = o.failed_before[i];
        const QString name = QDir(folder_->text()).relativeFilePath(f.path);
        auto* item = new QListWidgetItem(tr("✗ %1 — %2 (earlier run)").arg(name, f.reason));
        item->setForeground(QColor(0xb9, 0x1c, 0x1c));
        log_->insertItem(i, item);  // earlier failures first, in the job's order, as they happened first
    }
    QString text;
    if (o.total == 0)
        text = tr("The folder has no PDF, text or Markdown files.");
    else
        text = tr("%1: %2%3.")
                   .arg(o.cancelled ? tr("Cancelled") : tr("Finished"), batch_counts_text(counts),
                        o.classified >= 0 ? tr(", %1 classified").arg(o.classified) : QString());
    if (o.retried > 0) text += tr(" %n earlier failure(s) tried again.", nullptr, o.retried);
    if (o.cancelled) text += tr(" Start again to resume where it stopped.");
    // The failed files and their reasons are the list's ✗ lines (it scrolls); listed here as
    // well, a few of them pushed the list and the buttons out of a 600-pixel dialog.
    if (counts.failed() > 0)
        text += QStringLiteral("<br>") +
                tr("The files that failed are marked ✗ above, each with the reason. To try them again, tick “Retry "
                   "files that failed before” and press Start; they are listed under “Failed files” in the library too.");
    report_->setText(text);
    emit finished_batch(o);
}

void BatchDialog::on_failed(quint64, const QString& message) {
    // The batch could not run at all (no model, unreadable folder, ...).
    set_running(false);
    overall_->setRange(0, 1);
    overall_->setValue(0);
    report_->setText(QStringLiteral("<span style='color:#b91c1c'>%1</span>").arg(message.toHtmlEscaped()));
}

}  // namespace precis::ui
