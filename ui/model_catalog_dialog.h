#pragma once
// Models > Download (from Settings): the curated catalog with task, what each model is good
// for, input length, size and licence; Download fetches the selected one from the
// HuggingFace Hub on a worker thread (app/models/hub_download.h) with a progress bar,
// speed and time left, and Cancel. A cancelled or failed download installs nothing; the
// same download later resumes where it stopped. A summarizer downloaded while another model
// is the default asks whether it becomes the default (the one the window and every
// `precis` command use, persisted by app/models/model_store); the first one becomes the
// default by itself and the dialog says so.
#include <QDialog>

#include <atomic>
#include <filesystem>
#include <memory>
#include <vector>

#include "app/models/catalog.h"
#include "app/models/hub_download.h"

class QCheckBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QTableWidget;
class QThread;

namespace precis::ui {

struct ModelCatalogOptions {
    std::filesystem::path catalog;      // empty: the bundled catalog (model_catalog_path())
    std::filesystem::path models_root;  // empty: user_models_dir()
    QString endpoint;                   // empty: $HF_ENDPOINT, else huggingface.co
};

class ModelCatalogDialog : public QDialog {
    Q_OBJECT
public:
    explicit ModelCatalogDialog(QWidget* parent = nullptr, ModelCatalogOptions options = {});
    ~ModelCatalogDialog() override;  // cancels and waits for a running download

    // Downloads catalog row `row` (what Download does for the selected row); `convert`
    // asks for the LSG conversion the entry offers.
    void start_download(int row, bool convert = false);
    // Downloads a repository that is not in the catalog (owner/name, as `precis model download`
    // takes it, with the same checks: an id that is not one, or a repo Precis cannot run, is
    // refused in one sentence and nothing is installed).
    void start_download_repo(const QString& repo);
    QLineEdit* repo_field() const { return repo_; }
    void cancel_download();
    bool downloading() const { return thread_ != nullptr; }
    // The question after a summarizer download while another model is the default: its
    // text, and the buttons that answer it (hidden when nothing is asked).
    QLabel* default_question() const { return default_question_; }
    QPushButton* make_default_button() const { return make_default_; }
    QPushButton* keep_default_button() const { return keep_default_; }
    QString status_text() const;
    const std::vector<models::CatalogEntry>& entries() const { return entries_; }
    // The size that shows every column whole; the dialog opens at it, fitted to the screen.
    QSize comfortable_size() const;
    QTableWidget* table() const { return table_; }
    void reject() override;  // cancels a running download first

signals:
    void model_installed(const QString& dir);
    // The default model changed here (became default on its own, or the user said so).
    void default_changed(const QString& name);

private:
    void fill_table();
    void update_buttons();
    void on_progress(const models::DownloadProgress& p);
    void on_finished(const QString& message, const QString& dir, bool ok, bool became_default);
    void ask_about_default(const QString& name, const QString& dir);
    void answer_default(bool make_default);
    void start(const models::DownloadRequest& request);  // on the worker thread

    ModelCatalogOptions options_;
    std::vector<models::CatalogEntry> entries_;
    QTableWidget* table_;
    QCheckBox* convert_;
    QPushButton* download_;
    QLineEdit* repo_;
    QPushButton* download_repo_;
    QPushButton* cancel_;
    QProgressBar* bar_;
    QLabel* status_;
    QWidget* default_row_;
    QLabel* default_question_;
    QPushButton* make_default_;
    QPushButton* keep_default_;
    QString offered_default_;  // the model the question is about
    QThread* thread_ = nullptr;
    std::shared_ptr<std::atomic<bool>> cancel_flag_;
    QString downloading_repo_;
};

}  // namespace precis::ui
