#pragma once
// The main window: library (left), document with highlighted source passages (middle),
// summary with its history (right), the attention panel as a dock, and the running job
// in the status bar. Everything slow goes to the engine worker thread; this window only
// reacts to its signals, so it never blocks.
#include <QElapsedTimer>
#include <QHash>
#include <QMainWindow>

#include <memory>
#include <optional>

#include "app/worker/engine_settings.h"
#include "app/worker/worker_types.h"
#include "ui/model_banner.h"

class QDockWidget;
class QLabel;

namespace precis {
class EngineThread;
class Library;
class ModelCache;
}  // namespace precis

namespace precis::ui {

class AttentionPanel;
class BatchDialog;
class DocumentView;
class LibraryPanel;
class ModelFolderWatcher;

class RecentFiles;
class RunQueuePanel;
class RunStatus;
class StatusMessage;
class SummaryPanel;

// A run or batch that has gone on this long is worth a question before Esc cancels it or
// the window closes on it; a shorter one is cheap to redo.
inline constexpr int kConfirmLosingWorkAfterMs = 3000;

struct MainWindowOptions {
    QString library_path;  // empty: $PRECIS_LIBRARY, else the user's default library
};

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(MainWindowOptions options = {}, QWidget* parent = nullptr);
    ~MainWindow() override;

    void open_file(const QString& path, const QString& password = {});
    void show_document(qint64 document_id);
    void summarize_current();
    // Queues a classification of the open document with the classifier from Settings
    // (ui/main_window_classify.cpp); says how to get a classifier when there is none.
    void classify_current();
    void cancel_run();  // at once, no question
    // Esc / Document > Cancel: asks first when the run has gone on for a while.
    void cancel_run_confirmed();
    // The panes in F6 order (library, document, summary, then the queue and attention
    // panel when shown); step +1 / -1 moves the focus to the next / previous one.
    QList<QWidget*> panes() const;
    void focus_pane(int step);
    void set_confirm_after_ms(int ms) { confirm_after_ms_ = ms; }  // tests
    BatchDialog* open_batch_dialog();

    Library& library() const { return *library_; }
    const QString& library_path() const { return library_path_; }
    EngineThread* engine() const { return engine_.get(); }
    const EngineSettings& settings() const { return settings_; }
    void set_settings(const EngineSettings& settings);  // stores them and reloads the model
    const std::optional<ModelInfo>& model_info() const { return model_info_; }
    LibraryPanel* library_panel() const { return library_panel_; }
    DocumentView* document_view() const { return document_view_; }
    SummaryPanel* summary_panel() const { return summary_panel_; }
    AttentionPanel* attention_panel() const { return attention_panel_; }
    QDockWidget* attention_dock() const { return attention_dock_; }
    RunStatus* run_status() const { return run_status_; }
    RunQueuePanel* run_queue() const { return queue_; }
    ModelBanner* test_model_banner() const { return banner_; }
    QLabel* model_label() const { return model_label_; }
    StatusMessage* status_message() const { return status_message_; }
    ModelFolderWatcher* model_watcher() const { return model_watcher_; }
    // The models on disk changed (ModelFolderWatcher): loads the model the window should now
    // use when that is another one (a first model installed, the default changed or removed);
    // else only the label is brought up to date.
    void refresh_models();
    qint64 current_document() const { return current_document_; }

signals:
    void document_shown(qint64 document_id);

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void closeEvent(QCloseEvent* event) override;

private:
    // Clears the status bar's "queued" message when its entry leaves the queue or starts.
    void clear_stale_queue_status(int entry);
    enum class Request { PrepareModel, Open, Summarize, Classify, Trace, Capture };
    void build_layout();
    void build_actions_and_menus();
    void build_keyboard();  // ui/main_window_keys.cpp: tab order, F6, summary shortcuts
    // True when the user agrees to lose `what` (or nothing worth asking about runs).
    bool confirm_losing_work(const QString& title, const QString& question);
    bool work_worth_asking_about() const;
    void connect_engine();
    void track(quint64 ticket, Request kind, const QString& what);
    // ui/main_window_queue.cpp: the run queue (summaries and classifications).
    void enqueue_current(int task);  // task: a RunQueuePanel::Task
    // The next waiting work: a Classify alone; a Summarize alone when it is the only one
    // waiting, else the waiting Summarize entries together as one request.
    void start_next_run();
    void finish_run(quint64 ticket, int state);  // state: a RunQueuePanel::State
    // A batched run's document that failed alone; its entry is marked Failed.
    void on_document_failed(quint64 ticket, qint64 document_id, const QString& message);
    // ui/main_window_classify.cpp: what Classify says when it cannot run, and the labels
    // pane's note about a waiting classification removed from the queue.
    void show_classifier_missing(const QString& message);
    void forget_removed_classifications();
    void show_error(const QString& title, const QString& message);
    // A status-bar message, whole in the bar (currentMessage) and its tooltip; the
    // StatusMessage label shows it fitted to the room the run status and model label leave.
    void show_status(const QString& message, int timeout_ms);

    void on_model_ready(const ModelInfo& info);
    void show_model_label();
    void reload_model();
    void on_document_opened(const OpenedDocument& opened);
    void on_summary_finished(const SummaryOutcome& outcome);
    void on_classification_finished(const ClassificationOutcome& outcome);
    void on_failed(quint64 ticket, const QString& message);
    void on_cancelled(quint64 ticket);
    void on_password_needed(const QString& path, bool wrong_password);

    void choose_files();
    void show_settings();
    void show_about();
    void download_model();    // the catalog (from the no-model banner)
    void use_model_folder();  // a model folder already on disk (from the no-model banner)
    void delete_document(qint64 document_id);
    void update_attention_document();

    QString library_path_;
    std::unique_ptr<Library> library_;  // the UI thread's own connection (reads, deletes)
    std::shared_ptr<ModelCache> models_;
    std::unique_ptr<EngineThread> engine_;
    EngineSettings settings_;
    std::optional<ModelInfo> model_info_;
    QHash<quint64, Request> requests_;  // what each outstanding ticket is for
    QHash<quint64, QString> opening_;   // an Open ticket's file: Open Recent gets it only once it opened
    // Passwords of encrypted PDFs opened in this session, by absolute path, so their pages
    // can be rendered; kept in memory only, never written to disk.
    QHash<QString, QString> pdf_passwords_;
    qint64 current_document_ = 0;
    qint64 streaming_document_ = 0;
    QString streaming_text_;     // the running summary so far, to show again on return
    int running_entry_ = 0;      // the queue entry being summarized or classified
    int queued_status_entry_ = 0;  // the entry the status bar's "queued" message is about
    quint64 running_ticket_ = 0;
    int running_outcome_ = 0;    // RunQueuePanel::State the running entry ends in
    // A batched run's entries still running, by document (a document is queued once); each
    // leaves as its summary or failure arrives; running_entry_ is 0 meanwhile.
    QHash<qint64, int> batch_entries_;
    int batch_stored_ = 0;       // the batched run's summaries stored so far
    bool closing_ = false;
    QElapsedTimer busy_since_;  // restarted whenever the engine becomes busy
    int confirm_after_ms_ = kConfirmLosingWorkAfterMs;

    LibraryPanel* library_panel_;
    RunQueuePanel* queue_;
    DocumentView* document_view_;
    SummaryPanel* summary_panel_;
    AttentionPanel* attention_panel_;
    QDockWidget* attention_dock_;
    RunStatus* run_status_;
    ModelBanner* banner_;
    QLabel* model_label_;
    StatusMessage* status_message_;
    ModelFolderWatcher* model_watcher_ = nullptr;
    RecentFiles* recent_ = nullptr;
    BatchDialog* batch_dialog_ = nullptr;
    QAction* summarize_action_ = nullptr;
    QAction* classify_action_ = nullptr;
    QAction* cancel_action_ = nullptr;
};

}  // namespace precis::ui
