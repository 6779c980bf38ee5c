// The settings dialog's model import, run on the engine thread: a BART folder is converted
// and selected, the import shows progress and can be cancelled (nothing is added), and the
// dialog cannot be closed with OK while an import runs.
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>

#include <cstdlib>
#include <fstream>


#include "app/library/library.h"
#include "app/models/model_store.h"
#include "app/worker/engine_thread.h"
#include "app/worker/model_cache.h"
#include "engine/config/config.h"
#include "kernels/device_query.h"
#include "tests/support/test_models.h"
#include "tests/ui/ui_test_support.h"
#include "ui/classifier_settings_box.h"
#include "ui/default_model_box.h"
#include "ui/settings_dialog.h"

namespace precis::test {
namespace {

namespace fs = std::filesystem;

class SettingsDialogTest : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = scratch_dir("settings-dialog");
        fs::remove_all(user_models_dir());
        library_path_ = QString::fromStdString((dir_ / "library.sqlite").string());
        engine_ = std::make_unique<EngineThread>(library_path_, std::make_shared<ModelCache>());
        dialog_ = std::make_unique<ui::SettingsDialog>(EngineSettings{}, engine_.get());
        dialog_->show();
    }
    void TearDown() override {
        dialog_.reset();
        engine_.reset();
    }

    QPushButton* button(const QString& text) {
        for (QPushButton* b : dialog_->findChildren<QPushButton*>())
            if (b->text() == text) return b;
        return nullptr;
    }
    QString note() {
        for (QLabel* l : dialog_->findChildren<QLabel*>())
            if (l->wordWrap() && l->isVisible() && !l->text().isEmpty()) return l->text();
        return {};
    }
    // The fixture LSG model plus a 1 GiB extra file (sparse: costs no disk until copied), so
    // a copy takes far longer than the moment between starting an import and cancelling it.
    fs::path large_lsg_source() { return padded_fixture_model("lsg-norm", dir_ / "lsg-big", uintmax_t(1) << 30); }

    fs::path dir_;
    QString library_path_;
    std::unique_ptr<EngineThread> engine_;
    std::unique_ptr<ui::SettingsDialog> dialog_;
};

TEST_F(SettingsDialogTest, ImportConvertsBartAndSelectsTheNewModel) {
    dialog_->start_import(QString::fromStdString((fixtures_dir() / "models" / "bart-tiny").string()));
    EXPECT_TRUE(dialog_->importing());
    ASSERT_TRUE(wait_until([&] { return !dialog_->importing(); }));
    const fs::path imported = user_models_dir() / "bart-tiny-lsg";
    // This fixture has no tokenizer, so it cannot be the default: it is this window's folder.
    EXPECT_EQ(dialog_->settings().model_dir.toStdString(), imported.string());
    EXPECT_TRUE(fs::exists(imported / "model.safetensors"));
    EXPECT_TRUE(note().contains("Converted the BART model to LSG")) << note().toStdString();
    const QVector<ModelRecord> models = Library(library_path_).models();
    ASSERT_EQ(models.size(), 1);
    EXPECT_EQ(models[0].path.toStdString(), imported.string());
}

// Issue 31, item 4: an imported model Precis can run is chosen as the one default model
// (written when OK is pressed), not made this window's own folder behind the default's back.
TEST_F(SettingsDialogTest, AnImportedModelIsOfferedAsTheDefault) {
    const fs::path source = dir_ / "tiny-with-tokenizer";
    fs::create_directories(source);
    for (const fs::path& f : {fixtures_dir() / "models/bart-tiny-realvocab/config.json",
                              fixtures_dir() / "models/bart-tiny-realvocab/model.safetensors",
                              fixtures_dir() / "tokenizer/bart/tokenizer.json"})
        fs::copy_file(f, source / f.filename(), fs::copy_options::overwrite_existing);
    dialog_->start_import(QString::fromStdString(source.string()));
    ASSERT_TRUE(wait_until([&] { return !dialog_->importing(); }));
    const QString name = dialog_->default_model_box()->chosen();
    ASSERT_TRUE(name.startsWith("tiny-with-tokenizer")) << name.toStdString() << " / " << note().toStdString();
    EXPECT_TRUE(dialog_->settings().model_dir.isEmpty());  // the fixture folder chosen before is cleared
    EXPECT_TRUE(note().contains(name + " becomes the default model when you press OK")) << note().toStdString();
    EXPECT_NE(models::default_model_name(), name);  // not before OK
    dialog_->accept();
    EXPECT_EQ(models::default_model_name(), name);
}

TEST_F(SettingsDialogTest, CancelImportStopsAndAddsNothing) {
    const fs::path src = large_lsg_source();
    dialog_->start_import(QString::fromStdString(src.string()));
    QPushButton* cancel = button(QStringLiteral("Cancel import"));
    ASSERT_NE(cancel, nullptr);
    EXPECT_TRUE(cancel->isVisible());
    EXPECT_TRUE(dialog_->findChild<QProgressBar*>()->isVisible());
    cancel->click();
    ASSERT_TRUE(wait_until([&] { return !dialog_->importing(); }));
    EXPECT_TRUE(note().contains("cancelled")) << note().toStdString();
    EXPECT_FALSE(cancel->isVisible());
    EXPECT_TRUE(dialog_->settings().model_dir.isEmpty());
    std::error_code ec;
    EXPECT_TRUE(fs::is_empty(user_models_dir(), ec) || !fs::exists(user_models_dir()));
    EXPECT_TRUE(Library(library_path_).models().isEmpty());
}

TEST_F(SettingsDialogTest, OkIsRefusedWhileAnImportRuns) {
    dialog_->start_import(QString::fromStdString(large_lsg_source().string()));
    dialog_->accept();
    EXPECT_TRUE(dialog_->isVisible());
    EXPECT_EQ(dialog_->result(), QDialog::Rejected);  // not accepted
    button(QStringLiteral("Cancel import"))->click();
    ASSERT_TRUE(wait_until([&] { return !dialog_->importing(); }));
    dialog_->accept();
    EXPECT_EQ(dialog_->result(), QDialog::Accepted);
}


TEST_F(SettingsDialogTest, EachModelFolderKeepsItsOwnWeightsSetting) {
    QSettings q;
    q.clear();
    EngineSettings big;
    big.model_dir = QString::fromStdString((dir_ / "bart-large").string());
    big.compute_type = "int8";
    save_engine_settings(q, big);
    EngineSettings small;
    small.model_dir = QString::fromStdString((dir_ / "bart-tiny").string());
    small.compute_type = "fp32";
    save_engine_settings(q, small);
    // Loading reads the setting of the folder now chosen; each folder kept its own.
    EXPECT_EQ(load_engine_settings(q).compute_type, "fp32");
    q.setValue("model/dir", big.model_dir);
    EXPECT_EQ(load_engine_settings(q).compute_type, "int8");

    // The dialog shows what was chosen for a folder as soon as that folder is picked.
    auto* folder = dialog_->findChild<QLineEdit*>("model-folder");
    ASSERT_NE(folder, nullptr);
    folder->setText(big.model_dir);
    EXPECT_EQ(dialog_->settings().compute_type, "int8");
    folder->setText(small.model_dir);
    EXPECT_EQ(dialog_->settings().compute_type, "fp32");
    folder->setText(QString::fromStdString((dir_ / "never-chosen").string()));
    EXPECT_EQ(dialog_->settings().compute_type, "auto");
    q.clear();
}
TEST_F(SettingsDialogTest, DeviceRowSaysWhatThisMachineHas) {
    auto* info = dialog_->findChild<QLabel*>("device-info");
    ASSERT_NE(info, nullptr);
    EXPECT_TRUE(info->isVisible());
    std::string why;
    const std::vector<cuda::DeviceInfo> gpus = cuda::list_devices(&why);
    if (gpus.empty()) {
        // This machine: one line with the reason, and where runs go instead.
        EXPECT_FALSE(why.empty());
        EXPECT_TRUE(info->text().contains(QString::fromStdString(why), Qt::CaseInsensitive)) << info->text().toStdString();
        EXPECT_TRUE(info->text().endsWith(QStringLiteral("runs use the CPU."))) << info->text().toStdString();
        EXPECT_FALSE(info->text().contains('\n'));
    } else {
        for (const cuda::DeviceInfo& d : gpus)
            EXPECT_TRUE(info->text().contains(QString::fromStdString(d.name))) << info->text().toStdString();
        EXPECT_TRUE(info->text().contains(QStringLiteral("GiB free of"))) << info->text().toStdString();
    }
    // The GPU choice says what is true of this build and this machine.
    auto* device = dialog_->findChild<QComboBox*>("device");
    ASSERT_NE(device, nullptr);
    const QString cuda_item = device->itemText(device->findData("cuda"));
    if (!cuda::compiled_with_cuda())
        EXPECT_EQ(cuda_item, "CUDA GPU (not in this build)");
    else
        EXPECT_EQ(cuda_item, gpus.empty() ? "CUDA GPU (none found)" : "CUDA GPU");
}

// A model downloaded from the catalog lands in the role it has: a classifier is never made
// the summaries' model (issue: bart-large-mnli became the summarizer).
TEST_F(SettingsDialogTest, ADownloadedClassifierBecomesTheClassifierNotTheSummarizer) {
    const QString summarizer_before = dialog_->settings().model_dir;
    const auto nli = make_classifier("settings-nli", {{"0", "contradiction"}, {"1", "neutral"}, {"2", "entailment"}}, "");
    std::filesystem::copy_file(fixtures_dir() / "tokenizer/bart/tokenizer.json", nli / "tokenizer.json");
    dialog_->take_installed_model(QString::fromStdString(nli.string()));
    EXPECT_EQ(dialog_->settings().model_dir, summarizer_before);
    EXPECT_EQ(dialog_->settings().classifier.model_dir.toStdString(), nli.string());
    EXPECT_EQ(dialog_->tabs()->currentIndex(), ui::SettingsDialog::kClassificationTab);

    // A summarizer is offered as the default (the catalog asks), never made this window's
    // own folder behind the default's back (tests/ui/one_default_model_test.cpp).
    const auto summarizer = fixtures_dir() / "models/bart-tiny-realvocab";
    dialog_->take_installed_model(QString::fromStdString(summarizer.string()));
    EXPECT_EQ(dialog_->settings().model_dir, summarizer_before);
    EXPECT_EQ(dialog_->tabs()->currentIndex(), 0);
}

// The Classification tab names the classifier Classify will use (issue 42: it said "No
// classifier installed" beside a classifier folder set without typing, as a download sets it).
TEST_F(SettingsDialogTest, TheClassificationTabNamesTheClassifierSet) {
    ui::ClassifierSettingsBox* box = dialog_->classifier_box();
    // None set and none installed: said so.
    EXPECT_TRUE(box->note()->text().startsWith("No classifier is set, and none is installed")) << box->note()->text().toStdString();

    const auto nli = make_classifier("settings-named-nli", {{"0", "contradiction"}, {"1", "neutral"}, {"2", "entailment"}}, "");
    std::filesystem::copy_file(fixtures_dir() / "tokenizer/bart/tokenizer.json", nli / "tokenizer.json");
    dialog_->take_installed_model(QString::fromStdString(nli.string()));  // as the catalog does after a download
    const auto shot = [&](const QString& name) {
        const QString out = qEnvironmentVariable("PRECIS_SHOTS_DIR");
        if (out.isEmpty()) return;
        // The dialog as it opens on each screen (screen_fit.h keeps it within 1024x700).
        for (const QSize size : {QSize(1024, 700), QSize(1600, 1000)}) {
            dialog_->resize(std::min(size.width() - 40, 900), std::min(size.height() - 60, 760));
            QApplication::processEvents();
            dialog_->grab().save(QStringLiteral("%1/%2-%3x%4.png").arg(out, name).arg(size.width()).arg(size.height()));
        }
    };
    EXPECT_FALSE(box->note()->text().contains("No classifier")) << box->note()->text().toStdString();
    EXPECT_TRUE(box->note()->text().startsWith("Classifier: settings-named-nli (this folder).")) << box->note()->text().toStdString();
    EXPECT_TRUE(box->note()->text().contains("Zero-shot")) << box->note()->text().toStdString();
    shot(QStringLiteral("settings-classification-tab"));

    // Set by load (the dialog opened on saved settings), and typed: the same.
    ClassifierSettings saved;
    saved.model_dir = QString::fromStdString(nli.string());
    box->load(saved);
    EXPECT_TRUE(box->note()->text().startsWith("Classifier: settings-named-nli")) << box->note()->text().toStdString();
    box->folder()->setText(QString::fromStdString((dir_ / "nothing-here").string()));
    EXPECT_TRUE(box->note()->text().contains("no config.json")) << box->note()->text().toStdString();
    box->folder()->clear();
    EXPECT_TRUE(box->note()->text().startsWith("No classifier is set")) << box->note()->text().toStdString();
}

// The LSG settings speak plainly: sparsity types named as the attention panel names them,
// and tooltips that say what a number does rather than repeat its label ("Sparsity factor f").
TEST_F(SettingsDialogTest, LsgSettingsAreNamedAndExplainedPlainly) {
    auto* type = dialog_->findChild<QComboBox*>("sparsity-type");
    ASSERT_NE(type, nullptr);
    EXPECT_EQ(type->itemText(type->findData(int(SparsityType::Norm))), "Strongest keys (norm)");
    EXPECT_EQ(type->itemText(type->findData(int(SparsityType::BlockStride))), "Runs of tokens (block_stride)");
    auto* lsg = dialog_->findChild<QGroupBox*>();
    for (QGroupBox* box : dialog_->findChildren<QGroupBox*>())
        if (box->title() == "LSG") lsg = box;
    ASSERT_NE(lsg, nullptr);
    auto* form = qobject_cast<QFormLayout*>(lsg->layout());
    ASSERT_NE(form, nullptr);
    for (QSpinBox* spin : lsg->findChildren<QSpinBox*>()) {
        auto* label = qobject_cast<QLabel*>(form->labelForField(spin));
        ASSERT_NE(label, nullptr);
        const QString name = label->text().remove(':').trimmed();
        SCOPED_TRACE(name.toStdString());
        EXPECT_GT(spin->toolTip().size(), name.size() + 20) << spin->toolTip().toStdString();
        EXPECT_FALSE(spin->toolTip().startsWith(name, Qt::CaseInsensitive)) << spin->toolTip().toStdString();
    }
}

TEST_F(SettingsDialogTest, LongDocumentsAreSummarizedWholeByDefaultAndTheChoiceIsKept) {
    auto* long_mode = dialog_->findChild<QComboBox*>("long-mode");
    ASSERT_NE(long_mode, nullptr);
    EXPECT_EQ(dialog_->settings().long_mode, "auto");
    EXPECT_FALSE(long_mode->toolTip().isEmpty());
    long_mode->setCurrentIndex(long_mode->findData("truncate"));
    EXPECT_EQ(dialog_->settings().long_mode, "truncate");
    EngineSettings s;
    s.long_mode = "sections";
    ui::SettingsDialog again(s, engine_.get());
    EXPECT_EQ(again.settings().long_mode, "sections");
    // To look at: PRECIS_SHOTS_DIR=/tmp/shots build/tests/ui_settings_dialog_test
    if (const char* shots = std::getenv("PRECIS_SHOTS_DIR")) {
        again.resize(again.sizeHint().boundedTo(QSize(1024, 700)));
        again.show();
        QApplication::processEvents();
        again.grab().save(QString::fromUtf8(shots) + "/settings-long-documents.png");
    }
}

TEST_F(SettingsDialogTest, UntickedGenerationSettingsShowTheModelsOwnValues) {
    // A model whose generation_config.json asks for 3 beams, 10-60 tokens.
    const fs::path model = dir_ / "own-generation";
    fs::copy(fixtures_dir() / "models" / "lsg-norm", model, fs::copy_options::recursive);
    std::ofstream(model / "generation_config.json")
        << R"({"num_beams": 3, "min_length": 10, "max_length": 60, "no_repeat_ngram_size": 3,)"
        << R"( "length_penalty": 2.0, "decoder_start_token_id": 2, "eos_token_id": 2})";
    auto* box = dialog_->findChild<QGroupBox*>("generation");
    auto* beams = dialog_->findChild<QSpinBox*>("beams");
    auto* min_length = dialog_->findChild<QSpinBox*>("min-length");
    auto* max_length = dialog_->findChild<QSpinBox*>("max-length");
    ASSERT_TRUE(box && beams && min_length && max_length);
    ASSERT_FALSE(box->isChecked());
    dialog_->findChild<QLineEdit*>("model-folder")->setText(QString::fromStdString(model.string()));
    // Greyed, they say what runs will use: the model's values, not Precis's override defaults.
    EXPECT_FALSE(beams->isEnabled());
    EXPECT_EQ(beams->value(), 3);
    EXPECT_EQ(min_length->value(), 10);
    EXPECT_EQ(max_length->value(), 60);
    EXPECT_TRUE(box->toolTip().contains("own-generation")) << box->toolTip().toStdString();
    const EngineSettings defaults;
    EXPECT_FALSE(dialog_->settings().generation_override);
    EXPECT_EQ(dialog_->settings().num_beams, defaults.num_beams);  // the override's values are not the model's
    if (const char* shots = std::getenv("PRECIS_SHOTS_DIR")) {  // to look at
        dialog_->resize(1024, 700);
        QApplication::processEvents();
        dialog_->grab().save(QString::fromUtf8(shots) + "/settings-model-generation.png");
    }

    // Ticked, the override's values come back to be edited; unticking keeps the edit for next time.
    box->setChecked(true);
    EXPECT_EQ(beams->value(), defaults.num_beams);
    EXPECT_EQ(max_length->value(), defaults.max_length);
    beams->setValue(5);
    box->setChecked(false);
    EXPECT_EQ(beams->value(), 3);
    EXPECT_EQ(dialog_->settings().num_beams, 5);
    box->setChecked(true);
    EXPECT_EQ(beams->value(), 5);
    EXPECT_TRUE(dialog_->settings().generation_override);
}

TEST_F(SettingsDialogTest, UntickedLsgSettingsShowTheModelsOwnValues) {
    const ModelConfig own = parse_model_config(fixtures_dir() / "models" / "lsg-norm-g4" / "config.json");
    ASSERT_TRUE(own.is_lsg);
    const EngineSettings defaults;
    ASSERT_NE(own.lsg.num_global_tokens, defaults.num_global_tokens);  // else the test proves nothing
    auto* lsg_override = dialog_->findChild<QCheckBox*>("lsg-override");
    auto* global_tokens = dialog_->findChild<QSpinBox*>("global-tokens");
    ASSERT_TRUE(lsg_override && global_tokens);
    dialog_->findChild<QLineEdit*>("model-folder")
        ->setText(QString::fromStdString((fixtures_dir() / "models" / "lsg-norm-g4").string()));
    EXPECT_FALSE(global_tokens->isEnabled());
    EXPECT_EQ(global_tokens->value(), own.lsg.num_global_tokens);
    EXPECT_EQ(dialog_->settings().num_global_tokens, defaults.num_global_tokens);
    lsg_override->setChecked(true);
    EXPECT_EQ(global_tokens->value(), defaults.num_global_tokens);
    global_tokens->setValue(7);
    lsg_override->setChecked(false);
    EXPECT_EQ(global_tokens->value(), own.lsg.num_global_tokens);
    EXPECT_EQ(dialog_->settings().num_global_tokens, 7);
}

TEST_F(SettingsDialogTest, GpuPrecisionIsOffForTheCpuAndIsKept) {
    auto* device = dialog_->findChild<QComboBox*>("device");
    auto* dtype = dialog_->findChild<QComboBox*>("gpu-precision");
    ASSERT_NE(device, nullptr);
    ASSERT_NE(dtype, nullptr);
    EXPECT_EQ(dialog_->settings().dtype, "auto");  // the default
    EXPECT_FALSE(dtype->toolTip().isEmpty());

    device->setCurrentIndex(device->findData("cpu"));
    EXPECT_FALSE(dtype->isEnabled());
    device->setCurrentIndex(device->findData("auto"));
    // A build without the CUDA backend never reaches a GPU: the precision stays off there.
    EXPECT_EQ(dtype->isEnabled(), cuda::compiled_with_cuda());
    if (!cuda::compiled_with_cuda()) GTEST_SKIP() << "no CUDA backend in this build";

    dtype->setCurrentIndex(dtype->findData("bf16"));
    EXPECT_EQ(dialog_->settings().dtype, "bf16");
    QSettings q;
    q.clear();
    save_engine_settings(q, dialog_->settings());
    const EngineSettings stored = load_engine_settings(q);
    EXPECT_EQ(stored.dtype, "bf16");
    EXPECT_EQ(stored.device, "auto");
    // Opened again, the dialog shows the stored choice.
    ui::SettingsDialog again(stored, nullptr);
    EXPECT_EQ(again.findChild<QComboBox*>("gpu-precision")->currentData().toString(), "bf16");
    EXPECT_EQ(again.settings().dtype, "bf16");
    // Choosing the CPU keeps the precision for when the GPU is chosen again.
    device->setCurrentIndex(device->findData("cpu"));
    EXPECT_EQ(dialog_->settings().dtype, "bf16");
    q.clear();
}

}  // namespace
}  // namespace precis::test

int main(int argc, char** argv) { return precis::test::run_ui_tests(argc, argv); }
