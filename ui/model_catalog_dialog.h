#pragma once
// Models > Download (from Settings): the curated catalog with task, what each model is good
// for, input length, size and licence; Download fetches the selected one from the
// HuggingFace Hub on a worker thread (app/models/hub_download.h) with a progress bar,
// speed and time left, and Cancel. A cancelled or failed download installs nothing; the
// same download later resumes where it stopped.
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
    QString status_text() const;
    const std::vector<models::CatalogEntry>& entries() const { return entries_; }
    void reject() override;  // cancels a running download first

signals:
    void model_installed(const QString& dir);

private:
    void fill_table();
    void update_buttons();
    void on_progress(const models::DownloadProgress& p);
    void on_finished(const QString& message, const QString& dir, bool ok);
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
    QThread* thread_ = nullptr;
    std::shared_ptr<std::atomic<bool>> cancel_flag_;
    QString downloading_repo_;
};

}  // namespace precis::ui
