#pragma once
// Batch summarize (Ctrl+B): every PDF, text and Markdown file in a folder into the library,
// on its own engine thread so the main window stays usable. Shows overall and per-file
// progress, the current file, a log, and at the end which files failed and why. A batch
// is resumable: running the same folder again skips what is done, and the report then
// covers the whole job (earlier failures with their reasons, and how to retry them).
// The model and settings the run will use are named before it starts.
#include <QDialog>

#include <QPointer>

#include <memory>

#include "app/worker/engine_settings.h"
#include "app/worker/worker_types.h"

class QCheckBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QMessageBox;
class QProgressBar;
class QPushButton;

namespace precis {
class EngineThread;
class EngineWorker;
class ModelCache;
}

namespace precis::ui {

class BatchDialog : public QDialog {
    Q_OBJECT
public:
    BatchDialog(const QString& library_path, std::shared_ptr<ModelCache> models, EngineSettings settings,
                QWidget* parent = nullptr);
    ~BatchDialog() override;

    void set_folder(const QString& folder);
    void set_recursive(bool recursive);
    void set_classify(bool classify);  // also label each file with the classifier from Settings
    void set_settings(const EngineSettings& settings);  // for the next start
    void start();
    void cancel();
    bool running() const { return running_; }

    QProgressBar* overall_bar() const { return overall_; }
    QProgressBar* file_bar() const { return file_bar_; }
    QListWidget* log() const { return log_; }
    QLabel* report() const { return report_; }
    QLabel* settings_line() const { return settings_line_; }
    // The question Esc / Close asks while a batch runs; null when none is up. The batch
    // finishing (or failing) behind it closes it: there is nothing left to stop.
    QMessageBox* stop_question() const;
    void set_retry_failed(bool retry);

signals:
    // The dialog's engine worker exists: emitted once, on the first start, before any batch
    // is posted to it, so that a test can connect to the worker's own signals in its thread.
    void engine_started(precis::EngineWorker* worker);
    void library_changed();  // a file was summarized into the library
    void finished_batch(const precis::BatchOutcome& outcome);

protected:
    void reject() override;  // Esc / Close: cancels a running batch first

private:
    void on_file_started(int finished, int total, const QString& path);
    void on_file_finished(const QString& path, bool ok, const QString& error);
    void on_finished(const BatchOutcome& outcome);
    void on_failed(quint64 ticket, const QString& message);
    void set_running(bool running);
    void show_settings();

    QString library_path_;
    std::shared_ptr<ModelCache> models_;
    EngineSettings settings_;
    std::unique_ptr<EngineThread> engine_;
    bool running_ = false;
    int total_ = 0, finished_ = 0;
    QLineEdit* folder_;
    QPushButton* browse_;
    QCheckBox* recursive_;
    QCheckBox* retry_failed_;
    QCheckBox* classify_;
    QLabel* settings_line_;
    QProgressBar* overall_;
    QLabel* overall_count_;
    QLabel* current_;
    QProgressBar* file_bar_;
    QLabel* stage_;
    QListWidget* log_;
    QLabel* report_;
    QPushButton* start_;
    QPushButton* cancel_;
    QPushButton* close_;
    QPointer<QMessageBox> stop_question_;
};

}  // namespace precis::ui
