#include "ui/model_catalog_dialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollBar>
#include <QTableWidget>
#include <QThread>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

#include "app/models/model_store.h"
#include "app/paths.h"
#include "app/file_names.h"
#include "engine/core/error.h"
#include "ui/screen_fit.h"

namespace precis::ui {

using namespace precis::models;
using models::ModelInfo;  // an installed model of the store, not the worker's ModelInfo (worker_types.h)
namespace fs = std::filesystem;

namespace {

enum Column { ColModel, ColTask, ColGoodFor, ColInput, ColRouge, ColSize, ColLicence, ColState, ColCount };

bool is_installed(const CatalogEntry& e, const std::vector<ModelInfo>& have) {
    for (const ModelInfo& m : have)
        if (m.repo == e.repo) return true;
    return false;
}

}  // namespace

ModelCatalogDialog::ModelCatalogDialog(QWidget* parent, ModelCatalogOptions options)
    : QDialog(parent), options_(std::move(options)) {
    setWindowTitle(tr("Download a model"));
    auto* intro = new QLabel(tr("Models Precis runs, from the HuggingFace Hub. Each downloads once into %1; "
                                "sizes are approximate, licences as the model cards state them.")
                                 .arg(QString::fromStdString(
                                     (options_.models_root.empty() ? user_models_dir() : options_.models_root).string())),
                             this);
    intro->setWordWrap(true);

    table_ = new QTableWidget(0, ColCount, this);
    table_->setObjectName("catalog");
    table_->setHorizontalHeaderLabels(
        {tr("Model"), tr("Task"), tr("Good for"), tr("Input"), tr("ROUGE-1 / 2 / L / Lsum"), tr("Size"), tr("Licence"), QString()});
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setSectionResizeMode(ColGoodFor, QHeaderView::Stretch);

    convert_ = new QCheckBox(tr("Convert to LSG-4096 after download (reads 4,096 tokens instead of 1,024)"), this);
    convert_->setObjectName("convert");
    download_ = new QPushButton(tr("Download"), this);
    download_->setObjectName("download");
    cancel_ = new QPushButton(tr("Cancel download"), this);
    cancel_->setObjectName("cancel");
    bar_ = new QProgressBar(this);
    bar_->setObjectName("progress");
    bar_->setRange(0, 1000);
    bar_->setValue(0);
    bar_->setTextVisible(true);
    status_ = new QLabel(this);
    status_->setObjectName("status");
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* actions = new QHBoxLayout;
    actions->addWidget(convert_, 1);
    actions->addWidget(download_);
    actions->addWidget(cancel_);
    // Any other repository of the Hub, as the command line takes it.
    repo_ = new QLineEdit(this);
    repo_->setObjectName("repo");
    repo_->setPlaceholderText(tr("owner/name of another HuggingFace model, e.g. facebook/bart-large-cnn"));
    repo_->setClearButtonEnabled(true);
    download_repo_ = new QPushButton(tr("Download repository"), this);
    download_repo_->setObjectName("download-repo");
    auto* other = new QHBoxLayout;
    other->addWidget(new QLabel(tr("Not in the list:"), this));
    other->addWidget(repo_, 1);
    other->addWidget(download_repo_);

    // Asked after a download, in the dialog itself: no second window over this one.
    default_row_ = new QWidget(this);
    default_row_->setObjectName("default-question");
    default_question_ = new QLabel(default_row_);
    default_question_->setWordWrap(true);
    make_default_ = new QPushButton(tr("Make it the default"), default_row_);
    make_default_->setObjectName("make-default");
    keep_default_ = new QPushButton(default_row_);
    keep_default_->setObjectName("keep-default");
    auto* question = new QHBoxLayout(default_row_);
    question->setContentsMargins(0, 0, 0, 0);
    question->addWidget(default_question_, 1);
    question->addWidget(make_default_);
    question->addWidget(keep_default_);
    default_row_->hide();
    connect(make_default_, &QPushButton::clicked, this, [this] { answer_default(true); });
    connect(keep_default_, &QPushButton::clicked, this, [this] { answer_default(false); });

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addWidget(table_, 1);
    layout->addLayout(actions);
    layout->addLayout(other);
    layout->addWidget(bar_);
    layout->addWidget(status_);
    layout->addWidget(default_row_);
    layout->addWidget(buttons);

    connect(buttons, &QDialogButtonBox::rejected, this, &ModelCatalogDialog::reject);
    connect(table_, &QTableWidget::itemSelectionChanged, this, &ModelCatalogDialog::update_buttons);
    connect(download_, &QPushButton::clicked, this, [this] {
        const int row = table_->currentRow();
        if (row >= 0) start_download(row, convert_->isChecked() && convert_->isEnabled());
    });
    connect(cancel_, &QPushButton::clicked, this, &ModelCatalogDialog::cancel_download);
    connect(download_repo_, &QPushButton::clicked, this, [this] { start_download_repo(repo_->text().trimmed()); });
    connect(repo_, &QLineEdit::returnPressed, download_repo_, &QPushButton::click);
    connect(repo_, &QLineEdit::textChanged, this, &ModelCatalogDialog::update_buttons);

    try {
        entries_ = load_catalog(options_.catalog);
    } catch (const std::exception& e) {
        status_->setText(QString::fromStdString(e.what()));
    }
    fill_table();
    if (!entries_.empty()) table_->selectRow(0);
    resize(fit_size(comfortable_size(), available_screen(this)));
    update_buttons();
}

ModelCatalogDialog::~ModelCatalogDialog() {
    if (thread_) {
        cancel_flag_->store(true);
        thread_->wait();
        delete thread_;
    }
}

QSize ModelCatalogDialog::comfortable_size() const {
    // As wide as the table's columns with nothing cut ("Good for" and ROUGE were cut at a
    // fixed 1000 pixels on a 1600-pixel screen); a narrower screen elides the "Good for"
    // column, whose whole text is each cell's tooltip.
    const QAbstractItemView* view = table_;  // QTableView hides the public size hint
    int columns = 2 * table_->frameWidth() + table_->verticalScrollBar()->sizeHint().width();
    for (int c = 0; c < ColCount; ++c)
        columns += std::max(view->sizeHintForColumn(c), table_->horizontalHeader()->sectionSizeHint(c));
    const QMargins margins = layout()->contentsMargins();
    return {std::max(1000, columns + margins.left() + margins.right()), 560};
}

void ModelCatalogDialog::fill_table() {
    const std::vector<ModelInfo> have = installed_models(options_.models_root);
    table_->setRowCount(int(entries_.size()));
    for (int row = 0; row < int(entries_.size()); ++row) {
        const CatalogEntry& e = entries_[size_t(row)];
        // Every cell's tooltip has the model's whole description, which a narrow screen cuts.
        const QString about = e.good_for + (e.rouge.isEmpty() ? QString() : QStringLiteral("\n") + tr("ROUGE-1 / 2 / L / Lsum on %1: %2").arg(e.rouge_dataset, e.rouge_figures));
        auto set = [&](int col, const QString& text) {
            auto* item = new QTableWidgetItem(text);
            item->setToolTip(about);
            table_->setItem(row, col, item);
        };
        set(ColModel, e.repo + (e.recommended ? tr("  (recommended)") : QString()));
        set(ColTask, e.task);
        set(ColGoodFor, e.good_for);
        set(ColInput, QString::number(e.input_tokens) + (e.attention == "LSG" ? tr(" LSG") : QString()));
        // The figures alone keep the column narrow; the dataset they were measured on is in the tooltip.
        set(ColRouge, e.rouge.isEmpty() ? tr("–") : e.rouge_figures);
        set(ColSize, e.params_millions ? "~" + format_bytes(e.approx_bytes()) : tr("?"));
        set(ColLicence, e.licence.isEmpty() ? tr("see card") : e.licence);
        set(ColState, is_installed(e, have) ? tr("installed") : QString());
    }
}

void ModelCatalogDialog::update_buttons() {
    const int row = table_->currentRow();
    const bool busy = downloading();
    const bool offers = row >= 0 && row < int(entries_.size()) && entries_[size_t(row)].offer_lsg_conversion > 0;
    download_->setEnabled(!busy && row >= 0);
    convert_->setEnabled(!busy && offers);
    cancel_->setEnabled(busy);
    table_->setEnabled(!busy);
    repo_->setEnabled(!busy);
    download_repo_->setEnabled(!busy && !repo_->text().trimmed().isEmpty());
}

QString ModelCatalogDialog::status_text() const { return status_->text(); }

void ModelCatalogDialog::start_download(int row, bool convert) {
    if (downloading() || row < 0 || row >= int(entries_.size())) return;
    const CatalogEntry& e = entries_[size_t(row)];
    DownloadRequest req;
    req.repo = e.repo;
    req.revision = e.revision;
    if (convert && e.offer_lsg_conversion > 0) req.convert_lsg = e.offer_lsg_conversion;
    start(req);
}

void ModelCatalogDialog::start_download_repo(const QString& repo) {
    if (downloading() || repo.isEmpty()) return;
    DownloadRequest req;
    req.repo = repo;
    start(req);
}

void ModelCatalogDialog::start(const DownloadRequest& request) {
    DownloadRequest req = request;
    req.models_root = options_.models_root;
    req.endpoint = options_.endpoint;
    downloading_repo_ = req.repo;
    default_row_->hide();
    cancel_flag_ = std::make_shared<std::atomic<bool>>(false);
    bar_->setValue(0);
    status_->setText(tr("Asking the Hub for the files of %1…").arg(req.repo));

    auto flag = cancel_flag_;
    thread_ = QThread::create([this, req, flag] {
        DownloadCallbacks cb;
        cb.should_abort = [flag] { return flag->load(); };
        cb.progress = [this](const DownloadProgress& p) {
            QMetaObject::invokeMethod(this, [this, p] { on_progress(p); }, Qt::QueuedConnection);
        };
        QString message, dir;
        bool ok = false, became_default = false;
        try {
            const DownloadResult r = download_model(req, cb);
            dir = QString::fromStdString(r.dir.string());
            message = tr("Installed %1 in %2 (%3 in %4).")
                          .arg(r.repo, dir, format_bytes(r.bytes), format_duration(r.seconds));
            became_default = r.became_default;
            ok = true;
        } catch (const Cancelled&) {
            message = tr("Cancelled: nothing was installed. Downloading it again resumes where it stopped.");
        } catch (const std::exception& ex) {
            message = QString::fromStdString(ex.what());
        }
        QMetaObject::invokeMethod(
            this, [this, message, dir, ok, became_default] { on_finished(message, dir, ok, became_default); },
            Qt::QueuedConnection);
    });
    thread_->start();
    update_buttons();
}

void ModelCatalogDialog::cancel_download() {
    if (!downloading()) return;
    cancel_flag_->store(true);
    status_->setText(tr("Cancelling…"));
}

void ModelCatalogDialog::on_progress(const DownloadProgress& p) {
    if (!downloading()) return;
    if (p.stage == DownloadStage::Converting) {
        bar_->setRange(0, 0);
        status_->setText(tr("Converting %1 to LSG…").arg(downloading_repo_));
        return;
    }
    if (p.total > 0) bar_->setValue(int(1000.0 * double(p.done) / double(p.total)));
    QString text = tr("%1: %2 of %3").arg(downloading_repo_, format_bytes(p.done), format_bytes(p.total));
    if (p.bytes_per_second > 0)
        text += tr(" · %1/s · %2 left").arg(format_bytes(qint64(p.bytes_per_second)), format_duration(p.seconds_left));
    if (!p.file.isEmpty()) text += tr(" · %1").arg(p.file);
    if (!cancel_flag_->load()) status_->setText(text);
}

void ModelCatalogDialog::on_finished(const QString& message, const QString& dir, bool ok, bool became_default) {
    if (thread_) {
        thread_->wait();
        delete thread_;
        thread_ = nullptr;
    }
    bar_->setRange(0, 1000);
    bar_->setValue(ok ? 1000 : 0);
    if (!ok) {
        status_->setText(QStringLiteral("<span style='color:#b91c1c'>%1</span>").arg(message.toHtmlEscaped()));
        update_buttons();
        return;
    }
    const ModelInfo info = describe_model(native_path(dir));
    const QString name = QString::fromStdString(native_path(dir).filename().string());
    QString text = message;
    if (became_default) {
        text += tr(" It is now the default model: the window and the precis commands summarize with it "
                   "(change it in Settings or with precis model default).");
    } else if (info.usable && info.task != QLatin1String("summarization")) {
        text += tr(" It labels documents (%1): Classify uses it; the default model for summaries is unchanged.").arg(info.task);
    }
    status_->setText(text);
    fill_table();
    emit model_installed(dir);
    if (became_default) emit default_changed(name);
    else if (info.usable && info.task == QLatin1String("summarization")) ask_about_default(name, dir);
    update_buttons();
}

void ModelCatalogDialog::ask_about_default(const QString& name, const QString& dir) {
    // Only a model in the user's models folder can be named as the default (model_store).
    std::error_code ec;
    const fs::path root = options_.models_root.empty() ? user_models_dir() : options_.models_root;
    if (!fs::equivalent(root, user_models_dir(), ec)) return;
    if (default_model_name() == name) return;
    const fs::path current = default_model_folder();
    const QString current_name = current.empty() ? QString() : QString::fromStdString(current.filename().string());
    offered_default_ = name;
    default_question_->setText(
        current_name.isEmpty()
            ? tr("Make <b>%1</b> the default model? The window and the precis commands summarize with the default.")
                  .arg(name.toHtmlEscaped())
            : tr("Make <b>%1</b> the default model? The window and the precis commands summarize with the default, "
                 "now <b>%2</b>.")
                  .arg(name.toHtmlEscaped(), current_name.toHtmlEscaped()));
    keep_default_->setText(current_name.isEmpty() ? tr("Not now") : tr("Keep %1").arg(current_name));
    default_row_->setToolTip(QString::fromStdString(native_path(dir).string()));
    default_row_->show();
}

void ModelCatalogDialog::answer_default(bool make_default) {
    default_row_->hide();
    const QString name = std::exchange(offered_default_, QString());
    if (!make_default || name.isEmpty()) return;
    try {
        set_default_model(name);
    } catch (const std::exception& e) {
        status_->setText(QStringLiteral("<span style='color:#b91c1c'>%1</span>").arg(QString::fromUtf8(e.what()).toHtmlEscaped()));
        return;
    }
    status_->setText(tr("%1 is now the default model: the window and the precis commands summarize with it.").arg(name));
    emit default_changed(name);
}

void ModelCatalogDialog::reject() {
    cancel_download();
    QDialog::reject();
}

}  // namespace precis::ui
