#include "ui/settings_dialog.h"

#include <algorithm>
#include <vector>

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSettings>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStringList>
#include <QTabWidget>
#include <QVBoxLayout>

#include "app/file_names.h"
#include "app/models/model_store.h"
#include "app/paths.h"
#include "app/qt_file_names.h"
#include "app/worker/compute_type_setting.h"
#include "app/worker/engine_thread.h"
#include "engine/core/error.h"
#include "kernels/device_query.h"
#include "ui/attention_explanations.h"
#include "ui/classifier_settings_box.h"
#include "ui/default_model_box.h"
#include "ui/model_catalog_dialog.h"
#include "ui/screen_fit.h"

namespace precis::ui {

namespace {

QSpinBox* spin(int lo, int hi, QWidget* parent, const QString& tip = {}) {
    auto* s = new QSpinBox(parent);
    s->setRange(lo, hi);
    s->setToolTip(tip);
    return s;
}

const SparsityType kSparsityTypes[] = {SparsityType::None,        SparsityType::Norm,       SparsityType::Pooling,
                                       SparsityType::Stride,      SparsityType::BlockStride, SparsityType::BosPooling,
                                       SparsityType::Lsh};

}  // namespace

SettingsDialog::SettingsDialog(const EngineSettings& settings, EngineThread* engine, QWidget* parent)
    : QDialog(parent), engine_(engine) {
    setWindowTitle(tr("Settings"));
    setMinimumWidth(660);

    // --- method
    method_ = new QComboBox(this);
    method_->addItem(tr("Automatic: neural when a model is installed, else extractive"), "auto");
    method_->addItem(tr("Extractive: the document's own most central sentences"), "extractive");
    method_->addItem(tr("Neural: written by the model"), "neural");
    method_->setToolTip(tr("Extractive summaries need no model: they quote the document's most central sentences, "
                           "in order, and highlight them in the text"));
    extractive_sentences_ = spin(0, 200, this, tr("How many sentences an extractive summary quotes"));
    extractive_sentences_->setSpecialValueText(tr("automatic (by document length)"));

    // --- model
    model_dir_ = new QLineEdit(this);
    model_dir_->setObjectName("model-folder");
    // Empty is the usual case: the window follows the one default model (default_model_box.h).
    model_dir_->setPlaceholderText(tr("Empty: the default model"));
    model_dir_->setToolTip(tr("A model folder for this window only, instead of the default model; the precis "
                              "commands keep using the default"));
    default_model_ = new DefaultModelBox(this);
    auto* browse = new QPushButton(tr("Browse…"), this);
    import_ = new QPushButton(tr("Import model…"), this);
    import_->setToolTip(tr("Add a HuggingFace BART or LSG-BART folder to %1; BART is converted to LSG with the LSG settings below")
                            .arg(QString::fromStdString(user_models_dir().string())));
    import_->setEnabled(engine_ != nullptr);
    model_note_ = new QLabel(this);
    model_note_->setWordWrap(true);
    model_note_->hide();  // shown once an import has something to say
    import_bar_ = new QProgressBar(this);
    import_bar_->setTextVisible(false);
    import_bar_->hide();
    cancel_import_ = new QPushButton(tr("Cancel import"), this);
    cancel_import_->setToolTip(tr("Stop the import; nothing is added to your models"));
    cancel_import_->hide();
    auto* model_row = new QHBoxLayout;
    model_row->addWidget(model_dir_, 1);
    model_row->addWidget(browse);
    model_row->addWidget(import_);
    auto* download = new QPushButton(tr("Download…"), this);
    download->setObjectName("download-models");
    download->setToolTip(tr("Pick a model from the catalog and download it from the HuggingFace Hub"));
    model_row->addWidget(download);

    device_ = new QComboBox(this);
    device_->setObjectName("device");
    device_->addItem(tr("Automatic"), "auto");
    device_->addItem(tr("CPU"), "cpu");
    if (cuda::compiled_with_cuda()) {
        device_->addItem(tr("CUDA GPU"), "cuda");
    } else {
        // Offered greyed out, so the choice exists and says why it cannot be made.
        device_->addItem(tr("CUDA GPU (not in this build)"), "cuda");
        if (auto* m = qobject_cast<QStandardItemModel*>(device_->model())) m->item(2)->setEnabled(false);
    }
    device_->setToolTip(tr("Automatic takes the GPU when it has room for the model, else the CPU. "
                           "If the GPU fails (out of memory, a CUDA error), the run goes on on the CPU and says so."));
    dtype_ = new QComboBox(this);
    dtype_->setObjectName("gpu-precision");
    dtype_->addItem(tr("Automatic (fp16)"), "auto");
    dtype_->addItem(tr("fp32 (exact)"), "fp32");
    dtype_->addItem(tr("fp16"), "fp16");
    dtype_->addItem(tr("bf16"), "bf16");
    dtype_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    dtype_->setToolTip(tr("How the GPU computes: automatic is fp16, on the GPU's tensor cores; fp32 matches the reference "
                          "exactly; fp16 and bf16 are faster on the GPU (bf16 from Ampere cards on), "
                          "and their summaries can differ slightly. Runs on the CPU ignore it (see Weights)."));
    // What this machine has, so the choice is not made blind.
    device_info_ = new QLabel(this);
    device_info_->setObjectName("device-info");
    // One short line per GPU: no word wrap, whose height guess would pad the row.
    device_info_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    show_devices();

    compute_type_ = new QComboBox(this);
    compute_type_->addItem(tr("Automatic (int8 only when memory is short)"), "auto");
    compute_type_->addItem(tr("fp32 (exact)"), "fp32");
    compute_type_->addItem(tr("int8 (a quarter of the memory, faster)"), "int8");
    compute_type_->addItem(tr("fp16 weights (half the memory)"), "fp16-weights");
    compute_type_->setToolTip(tr("How the model's weights are held in memory; remembered for each model folder. "
                                 "int8 summaries differ slightly from fp32 ones."));
    // Each model keeps its own choice: picking another folder shows what was chosen for it.
    connect(model_dir_, &QLineEdit::textChanged, this, [this](const QString& dir) {
        const QString remembered = QSettings().value(compute_type_settings_key(dir), "auto").toString();
        compute_type_->setCurrentIndex(std::max(0, compute_type_->findData(remembered)));
    });

    auto* model_box = new QGroupBox(tr("Summaries, model and device"), this);
    auto* mf = new QFormLayout(model_box);
    mf->addRow(tr("Method:"), method_);
    mf->addRow(tr("Extractive length:"), extractive_sentences_);
    mf->addRow(tr("Default model:"), default_model_);
    mf->addRow(tr("Other folder:"), model_row);
    mf->addRow(QString(), model_note_);
    auto* import_row = new QHBoxLayout;
    import_row->addWidget(import_bar_, 1);
    import_row->addWidget(cancel_import_);
    mf->addRow(QString(), import_row);
    // The precision shares the device's row: it only matters for the GPU, and the dialog
    // must stay short enough for 700-pixel-high screens.
    auto* device_row = new QHBoxLayout;
    device_row->addWidget(device_, 1);
    auto* dtype_label = new QLabel(tr("GPU precision:"), this);
    dtype_label->setBuddy(dtype_);
    device_row->addWidget(dtype_label);
    device_row->addWidget(dtype_);
    mf->addRow(tr("Device:"), device_row);
    mf->addRow(QString(), device_info_);
    mf->addRow(tr("Weights:"), compute_type_);

    // --- attention
    attention_ = new QComboBox(this);
    attention_->addItem(tr("As the model was saved"), "model");
    attention_->addItem(tr("LSG (local, sparse, global)"), "lsg");
    attention_->addItem(tr("Full attention"), "full");
    attention_->addItem(tr("Fovea"), "fovea");
    max_positions_ = spin(0, 65536, this,
                          tr("The longest input the model reads, in tokens. Beyond what it was trained on, its "
                             "position table is repeated (0: the model's own length)"));
    max_positions_->setSpecialValueText(tr("model's own"));
    max_positions_->setSingleStep(1024);
    long_mode_ = new QComboBox(this);
    long_mode_->setObjectName("long-mode");
    long_mode_->addItem(tr("Automatic: extend, then section by section"), "auto");
    long_mode_->addItem(tr("Section by section"), "sections");
    long_mode_->addItem(tr("Extend in one pass (LSG)"), "extend");
    long_mode_->addItem(tr("First tokens only"), "truncate");
    long_mode_->setToolTip(tr("A document longer than the model reads: an LSG model reads up to four times the length it "
                              "was trained on in one pass; past that (or with full attention) the document is summarized "
                              "section by section, following its chapters or PDF bookmarks, and the section summaries "
                              "are combined. Every page counts, and the outline of sections is shown beside the summary."));
    lsg_override_ = new QCheckBox(tr("Override the model's LSG settings"), this);
    lsg_override_->setObjectName("lsg-override");
    lsg_box_ = new QGroupBox(tr("LSG"), this);
    sparsity_type_ = new QComboBox(this);
    sparsity_type_->setObjectName("sparsity-type");
    // Named as the attention panel names them: what each keeps of the far text, then its
    // configuration name.
    for (SparsityType t : kSparsityTypes) sparsity_type_->addItem(pattern_title(choice_for(t)), int(t));
    sparsity_type_->setToolTip(tr("What a word sees of the text beyond its neighbours (the attention panel shows each)"));
    block_size_ = spin(1, 4096, this,
                       tr("Tokens per block: each word reads its own block and the blocks on either side in full"));
    sparse_block_size_ = spin(0, 4096, this,
                              tr("How far past its neighbours, in tokens, a word looks through the sparse keys "
                                 "(0: no sparse keys)"));
    sparsity_factor_ = spin(1, 512, this,
                            tr("Past its neighbours a word sees 1 key for every this many tokens (fewer: sharper "
                               "but slower)"));
    num_global_ = spin(1, 512, this,
                       tr("Extra tokens before the text: every word reads them and they read every word, "
                          "carrying the whole document's context"));
    num_global_->setObjectName("global-tokens");
    auto* lf = new QFormLayout(lsg_box_);
    lf->addRow(lsg_override_);
    lf->addRow(tr("Sparsity type:"), sparsity_type_);
    lf->addRow(tr("Block size:"), block_size_);
    lf->addRow(tr("Sparse block size:"), sparse_block_size_);
    lf->addRow(tr("Sparsity factor:"), sparsity_factor_);
    lf->addRow(tr("Global tokens:"), num_global_);
    fovea_box_ = new QGroupBox(tr("Fovea"), this);
    fovea_block_ = spin(1, 4096, this);
    fovea_wing_ = spin(1, 64, this);
    auto* ff = new QFormLayout(fovea_box_);
    ff->addRow(tr("Block size:"), fovea_block_);
    ff->addRow(tr("Wing:"), fovea_wing_);
    auto* attention_box = new QGroupBox(tr("Encoder attention"), this);
    auto* af = new QFormLayout(attention_box);
    af->addRow(tr("Attention:"), attention_);
    // Two settings on one row: the dialog must stay short enough for 700-pixel-high screens.
    auto* positions_row = new QHBoxLayout;
    positions_row->addWidget(max_positions_);
    positions_row->addWidget(new QLabel(tr("Long documents:"), this));
    positions_row->addWidget(long_mode_, 1);
    af->addRow(tr("Maximum input positions:"), positions_row);
    auto* attention_parts = new QHBoxLayout;
    attention_parts->addWidget(lsg_box_);
    attention_parts->addWidget(fovea_box_);
    af->addRow(attention_parts);

    // --- generation
    generation_box_ = new QGroupBox(tr("Override the model's generation settings"), this);
    generation_box_->setCheckable(true);
    generation_box_->setObjectName("generation");
    beams_ = spin(1, 16, this, tr("Beam search width (1: greedy)"));
    length_penalty_ = new QDoubleSpinBox(this);
    length_penalty_->setRange(-5, 5);
    length_penalty_->setSingleStep(0.1);
    length_penalty_->setToolTip(tr("Above 1 favours longer summaries, below 1 shorter ones"));
    min_length_ = spin(0, 4096, this, tr("Minimum summary length in tokens"));
    max_length_ = spin(2, 4096, this, tr("Maximum summary length in tokens"));
    no_repeat_ = spin(0, 10, this, tr("Never repeat an n-gram of this size (0: allow)"));
    beams_->setObjectName("beams");
    min_length_->setObjectName("min-length");
    max_length_->setObjectName("max-length");
    auto* gf = new QFormLayout(generation_box_);
    gf->addRow(tr("Beams:"), beams_);
    gf->addRow(tr("Length penalty:"), length_penalty_);
    gf->addRow(tr("Minimum length:"), min_length_);
    gf->addRow(tr("Maximum length:"), max_length_);
    gf->addRow(tr("No-repeat n-gram size:"), no_repeat_);

    classifier_ = new ClassifierSettingsBox(this);

    error_ = new QLabel(this);
    error_->setWordWrap(true);
    error_->setStyleSheet(QStringLiteral("color: #b91c1c;"));
    error_->hide();
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel | QDialogButtonBox::RestoreDefaults, this);

    // Two tabs: the summarizer's settings and the classifier's, each model chosen on its own
    // (and the dialog no taller than the summarizer's part alone).
    auto* summaries_page = new QWidget(this);
    auto* summaries_layout = new QVBoxLayout(summaries_page);
    summaries_layout->setContentsMargins(6, 6, 6, 0);
    summaries_layout->addWidget(model_box);
    summaries_layout->addWidget(attention_box);
    summaries_layout->addWidget(generation_box_);
    auto* classification_page = new QWidget(this);
    auto* classification_layout = new QVBoxLayout(classification_page);
    classification_layout->setContentsMargins(6, 6, 6, 0);
    classification_layout->addWidget(classifier_);
    classification_layout->addStretch();
    tabs_ = new QTabWidget(this);
    // Each page scrolls where the screen is shorter than the page (1024x700: screen_fit.h).
    tabs_->addTab(scrolling(summaries_page, this), tr("&Summaries"));
    tabs_->addTab(scrolling(classification_page, this), tr("C&lassification"));

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(tabs_);
    layout->addWidget(error_);
    layout->addWidget(buttons);

    connect(browse, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Model folder"), model_dir_->text());
        if (!dir.isEmpty()) model_dir_->setText(path_from_dialog(dir));  // Qt's decoding lost bytes that are not UTF-8
    });
    connect(import_, &QPushButton::clicked, this, &SettingsDialog::import_model);
    connect(download, &QPushButton::clicked, this, [this] {
        ModelCatalogDialog catalog(this);
        connect(&catalog, &ModelCatalogDialog::model_installed, this, &SettingsDialog::take_installed_model);
        connect(&catalog, &ModelCatalogDialog::default_changed, this, &SettingsDialog::follow_new_default);
        catalog.exec();
    });
    connect(attention_, &QComboBox::currentIndexChanged, this, &SettingsDialog::update_enabled);
    connect(device_, &QComboBox::currentIndexChanged, this, &SettingsDialog::update_enabled);
    connect(lsg_override_, &QCheckBox::toggled, this, &SettingsDialog::update_enabled);
    // Ticked, an override shows its own values to edit; unticked, the model's (greyed).
    connect(lsg_override_, &QCheckBox::toggled, this, [this](bool on) { follow_override(lsg_override_, on); });
    connect(generation_box_, &QGroupBox::toggled, this, [this](bool on) { follow_override(generation_box_, on); });
    connect(model_dir_, &QLineEdit::textChanged, this, &SettingsDialog::show_model_values);
    connect(default_model_->combo(), &QComboBox::currentIndexChanged, this, &SettingsDialog::show_model_values);
    connect(buttons, &QDialogButtonBox::accepted, this, &SettingsDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &SettingsDialog::reject);
    connect(buttons->button(QDialogButtonBox::RestoreDefaults), &QPushButton::clicked, this, [this] { load(EngineSettings{}); });
    if (engine_) {
        connect(engine_->worker(), &EngineWorker::progress, this, [this](const QString& stage, int done, int total) {
            if (!importing_) return;
            QString text = stage;
            if (!text.isEmpty()) text[0] = text[0].toUpper();
            model_note_->setText(text);
            import_bar_->setRange(0, std::max(0, total));
            if (total > 0) import_bar_->setValue(done);
        });
        connect(engine_->worker(), &EngineWorker::model_imported, this, [this](const QString& dir, const QString& message) {
            if (!importing_) return;
            end_import(message.toHtmlEscaped());
            take_imported_model(dir);
        });
        connect(engine_->worker(), &EngineWorker::failed, this, [this](quint64 ticket, const QString& message) {
            if (!importing_ || ticket != import_ticket_) return;
            end_import(QStringLiteral("<span style='color:#b91c1c'>%1</span>").arg(message.toHtmlEscaped()));
        });
        connect(engine_->worker(), &EngineWorker::cancelled, this, [this](quint64 ticket) {
            if (!importing_ || ticket != import_ticket_) return;
            end_import(tr("Import cancelled; nothing was added to your models."));
        });
        connect(cancel_import_, &QPushButton::clicked, this, [this] {
            if (!importing_) return;
            cancel_import_->setEnabled(false);
            model_note_->setText(tr("Cancelling the import…"));
            engine_->cancel();
        });
    }
    load(settings);
}

void SettingsDialog::load(const EngineSettings& s) {
    method_->setCurrentIndex(std::max(0, method_->findData(s.method)));
    extractive_sentences_->setValue(s.extractive_sentences);
    model_dir_->setText(s.model_dir);
    // Without the CUDA backend the GPU item cannot be chosen: a stored "cuda" shows as Automatic.
    const bool cuda_offered = cuda::compiled_with_cuda();
    device_->setCurrentIndex(std::max(0, device_->findData(s.device == "cuda" && !cuda_offered ? QStringLiteral("auto") : s.device)));
    dtype_->setCurrentIndex(std::max(0, dtype_->findData(s.dtype)));
    compute_type_->setCurrentIndex(std::max(0, compute_type_->findData(s.compute_type)));
    attention_->setCurrentIndex(std::max(0, attention_->findData(s.attention)));
    override_ = s;
    {
        const QSignalBlocker quiet(lsg_override_);  // the values come below, once
        lsg_override_->setChecked(s.lsg_override);
    }
    fovea_block_->setValue(s.fovea_block_size);
    fovea_wing_->setValue(s.fovea_wing);
    max_positions_->setValue(s.max_positions);
    long_mode_->setCurrentIndex(std::max(0, long_mode_->findData(s.long_mode)));
    {
        const QSignalBlocker quiet(generation_box_);
        generation_box_->setChecked(s.generation_override);
    }
    if (s.lsg_override) show_lsg_override();
    if (s.generation_override) show_generation_override();
    show_model_values();
    classifier_->load(s.classifier);
    update_enabled();
}

EngineSettings SettingsDialog::settings() const {
    // Unticked, the LSG and generation boxes show the model's values: the override's own
    // (override_) are kept for next time.
    EngineSettings s = override_;
    s.method = method_->currentData().toString();
    s.extractive_sentences = extractive_sentences_->value();
    s.model_dir = model_dir_->text().trimmed();
    s.device = device_->currentData().toString();
    s.dtype = dtype_->currentData().toString();
    s.compute_type = compute_type_->currentData().toString();
    s.attention = attention_->currentData().toString();
    s.lsg_override = lsg_override_->isChecked();
    if (s.lsg_override) read_lsg_boxes(s);
    s.fovea_block_size = fovea_block_->value();
    s.fovea_wing = fovea_wing_->value();
    s.max_positions = max_positions_->value();
    s.long_mode = long_mode_->currentData().toString();
    s.generation_override = generation_box_->isChecked();
    if (s.generation_override) read_generation_boxes(s);
    s.classifier = classifier_->settings();
    return s;
}

void SettingsDialog::show_devices() {
    const auto gib = [](uint64_t bytes) { return QString::number(double(bytes) / double(uint64_t(1) << 30), 'f', 1); };
    std::string why;
    const std::vector<cuda::DeviceInfo> gpus = cuda::list_devices(&why);
    QStringList lines;
    for (const cuda::DeviceInfo& d : gpus) {
        // With several GPUs, the index tells them apart (runs use the first).
        const QString name = gpus.size() > 1 ? QStringLiteral("cuda:%1 %2").arg(d.index).arg(QString::fromStdString(d.name))
                                             : QString::fromStdString(d.name);
        lines << tr("%1 — %2 GiB free of %3 GiB").arg(name, gib(d.free_bytes), gib(d.total_bytes));
    }
    // A build with the CUDA backend on a machine without a GPU: the choice stays (a GPU may be
    // attached later) and says that none was found, not that the build lacks CUDA.
    if (cuda::compiled_with_cuda())
        device_->setItemText(device_->findData("cuda"), gpus.empty() ? tr("CUDA GPU (none found)") : tr("CUDA GPU"));
    if (gpus.empty()) {
        QString reason = why.empty() ? tr("no usable GPU") : QString::fromStdString(why);
        reason[0] = reason[0].toUpper();
        lines << tr("%1: runs use the CPU.").arg(reason);
    }
    device_info_->setText(lines.join('\n'));
}

void SettingsDialog::update_enabled() {
    // The precision is the GPU's; the CPU keeps its own (Weights). A build without the CUDA
    // backend never reaches a GPU, whatever the device says.
    dtype_->setEnabled(cuda::compiled_with_cuda() && device_->currentData().toString() != QLatin1String("cpu"));
    const QString kind = attention_->currentData().toString();
    lsg_box_->setEnabled(kind == "lsg" || kind == "model");
    for (QWidget* w : {static_cast<QWidget*>(sparsity_type_), static_cast<QWidget*>(block_size_),
                       static_cast<QWidget*>(sparse_block_size_), static_cast<QWidget*>(sparsity_factor_),
                       static_cast<QWidget*>(num_global_)})
        w->setEnabled(lsg_override_->isChecked());
    fovea_box_->setEnabled(kind == "fovea");
}

void SettingsDialog::accept() {
    if (importing_) {
        error_->setText(tr("A model is being imported: wait for it to finish, or cancel the import."));
        error_->show();
        return;
    }
    const EngineSettings s = settings();
    if (s.method == QLatin1String("neural") && !find_model(s)) {
        error_->setText(tr("Neural summaries need a model: import one (Import model…) or choose a model folder, "
                           "or pick the automatic or extractive method."));
        error_->show();
        return;
    }
    if (s.lsg_override) {
        try {
            lsg_settings_for(s, LsgSettings{}).validate("The LSG settings");
        } catch (const Error& e) {
            error_->setText(QString::fromUtf8(e.what()));
            error_->show();
            return;
        }
    }
    if (s.generation_override && s.min_length >= s.max_length) {
        error_->setText(tr("The minimum summary length must be below the maximum length."));
        error_->show();
        return;
    }
    if (!s.model_dir.isEmpty() && !QFileInfo::exists(s.model_dir + QStringLiteral("/config.json"))) {
        error_->setText(tr("The model folder %1 has no config.json.").arg(s.model_dir));
        error_->show();
        return;
    }
    if (const QString problem = classifier_->problem(); !problem.isEmpty()) {
        tabs_->setCurrentIndex(kClassificationTab);
        error_->setText(problem);
        error_->show();
        return;
    }
    default_changed_ = default_model_->changed();
    if (const QString problem = default_model_->apply(); !problem.isEmpty()) {
        tabs_->setCurrentIndex(0);
        error_->setText(problem);
        error_->show();
        return;
    }
    QDialog::accept();
}

void SettingsDialog::import_model() {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Import a HuggingFace BART or LSG-BART folder"));
    if (!dir.isEmpty()) start_import(path_from_dialog(dir));
}

void SettingsDialog::start_import(const QString& source_dir) {
    if (!engine_ || importing_) return;
    importing_ = true;
    import_->setEnabled(false);
    model_note_->setText(tr("Importing %1… (a BART model is converted to LSG; this can take a minute)").arg(source_dir));
    model_note_->show();
    import_bar_->setRange(0, 0);
    import_bar_->show();
    cancel_import_->setEnabled(true);
    cancel_import_->show();
    error_->hide();
    import_ticket_ = engine_->import_model(source_dir, settings());
}

void SettingsDialog::end_import(const QString& note) {
    importing_ = false;
    import_->setEnabled(true);
    import_bar_->hide();
    cancel_import_->hide();
    model_note_->setText(note);
    model_note_->show();
}

void SettingsDialog::reject() {
    if (importing_ && engine_) engine_->cancel();
    QDialog::reject();
}

void SettingsDialog::take_installed_model(const QString& dir) {
    const models::ModelInfo info = models::describe_model(native_path(dir));
    if (info.usable && info.task != QLatin1String("summarization")) {
        classifier_->folder()->setText(dir);
        tabs_->setCurrentIndex(kClassificationTab);
        return;
    }
    // A summarizer is listed among the models the default can be; whether it becomes the
    // default the catalog asked (follow_new_default). It never becomes this window's model
    // behind the default's back (issue 31: the window and `precis model default` disagreed).
    default_model_->refresh();
    tabs_->setCurrentIndex(0);
}

void SettingsDialog::take_imported_model(const QString& dir) {
    // Imported for use: it is chosen as the one default (written on OK, so Cancel undoes it),
    // not made this window's own folder behind the default's back.
    default_model_->refresh();
    const QString name = QString::fromStdString(native_path(dir).filename().string());
    const int at = default_model_->combo()->findData(name);
    if (at < 0) {  // not among the models the default can be (outside the models folder)
        model_dir_->setText(dir);
        return;
    }
    default_model_->combo()->setCurrentIndex(at);
    model_dir_->clear();
    model_note_->setText(model_note_->text() +
                         tr("<br>%1 becomes the default model when you press OK: the window and the precis commands "
                            "summarize with it.")
                             .arg(name.toHtmlEscaped()));
}

void SettingsDialog::follow_new_default(const QString&) {
    default_model_->refresh();
    // The new default is what the window is to use: a folder chosen for this window alone
    // would hide it, so that choice is cleared (and said).
    if (!model_dir_->text().trimmed().isEmpty()) {
        model_dir_->clear();
        model_note_->setText(tr("The window now uses the default model; the other folder was cleared."));
        model_note_->show();
    }
}

void SettingsDialog::showEvent(QShowEvent* event) {
    QDialog::showEvent(event);
    // All of the page where the screen has room (Qt alone would stop a new window at two
    // thirds of the screen); on a shorter screen as tall as it allows, the pages scrolling.
    if (!sized_) resize(fit_size(sizeHint(), available_screen(this)));
    sized_ = true;
    keep_within_screen(this);
}

}  // namespace precis::ui
