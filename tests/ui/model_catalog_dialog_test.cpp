// The model catalog dialog driven offscreen through a download from a local stand-in for
// the HuggingFace Hub: progress with speed and time left, the model installed and
// announced; Cancel on a slow download installs nothing. With PRECIS_SHOTS_DIR set, it
// also saves a screenshot of the dialog mid-download (model-download-dialog.png).
#include <QCheckBox>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTimer>

#include <fstream>

#include "app/models/hub_download.h"
#include "app/models/model_store.h"
#include "tests/support/fake_hub.h"
#include "tests/ui/ui_test_support.h"
#include "ui/model_catalog_dialog.h"
#include "ui/screen_fit.h"
#include "ui/settings_dialog.h"

namespace precis::test {
namespace {

namespace fs = std::filesystem;

const QString kRepo = QStringLiteral("precis-test/bart-tiny-realvocab");

class ModelCatalogDialogTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (!fs::exists(fixtures_dir() / "models/bart-tiny-realvocab/model.safetensors"))
            GTEST_SKIP() << "fixture model not found";
        hub_.add_repo(kRepo, fixture_hub_files());
        const fs::path dir = scratch_dir("catalog-dialog");
        options_.catalog = dir / "catalog.json";
        options_.models_root = dir / "models";
        options_.endpoint = hub_.endpoint();
        std::ofstream(options_.catalog) << R"({"models": [
            {"repo": "facebook/bart-large-cnn", "task": "summarization", "good_for": "news",
             "input_tokens": 1024, "attention": "full", "params_millions": 406, "licence": "mit",
             "offer_lsg_conversion": 4096},
            {"repo": "precis-test/bart-tiny-realvocab", "recommended": true, "task": "summarization",
             "good_for": "tests: a tiny random BART with the real vocabulary", "input_tokens": 128,
             "attention": "full", "params_millions": 1, "licence": "mit",
             "rouge": {"dataset": "none", "r1": 1.0}}]})";
        dialog_ = std::make_unique<ui::ModelCatalogDialog>(nullptr, options_);
        dialog_->show();
    }

    template <class T>
    T* child(const char* name) {
        T* w = dialog_->findChild<T*>(name);
        EXPECT_NE(w, nullptr) << name;
        return w;
    }

    FakeHub hub_;
    ui::ModelCatalogOptions options_;
    std::unique_ptr<ui::ModelCatalogDialog> dialog_;
};

TEST_F(ModelCatalogDialogTest, DownloadsTheSelectedModelWithProgressSpeedAndTimeLeft) {
    auto* table = child<QTableWidget>("catalog");
    ASSERT_EQ(table->rowCount(), 2);
    EXPECT_TRUE(table->item(0, 0)->text().startsWith(kRepo));  // recommended first
    EXPECT_EQ(table->currentRow(), 0);
    EXPECT_FALSE(child<QCheckBox>("convert")->isEnabled());  // nothing to convert for this one
    table->selectRow(1);
    EXPECT_TRUE(child<QCheckBox>("convert")->isEnabled());   // bart-large-cnn offers LSG-4096
    table->selectRow(0);

    QSignalSpy installed(dialog_.get(), &ui::ModelCatalogDialog::model_installed);
    hub_.set_pace(32 * 1024, 10);
    child<QPushButton>("download")->click();
    EXPECT_TRUE(dialog_->downloading());
    EXPECT_TRUE(child<QPushButton>("cancel")->isEnabled());
    EXPECT_FALSE(child<QPushButton>("download")->isEnabled());
    auto* bar = child<QProgressBar>("progress");
    ASSERT_TRUE(wait_until([&] {
        return bar->value() > 100 && dialog_->status_text().contains("/s") && dialog_->status_text().contains("left");
    }));
    EXPECT_TRUE(dialog_->status_text().contains(" of ")) << dialog_->status_text().toStdString();
    if (const QString shots = qEnvironmentVariable("PRECIS_SHOTS_DIR"); !shots.isEmpty()) {
        QDir().mkpath(shots);
        dialog_->resize(1000, 420);
        QApplication::processEvents();
        EXPECT_TRUE(dialog_->grab().save(shots + "/model-download-dialog.png"));
    }
    hub_.set_pace(0, 0);
    ASSERT_TRUE(wait_until([&] { return !dialog_->downloading(); }));
    EXPECT_TRUE(dialog_->status_text().startsWith("Installed " + kRepo)) << dialog_->status_text().toStdString();
    ASSERT_EQ(installed.count(), 1);
    const fs::path dir = options_.models_root / "bart-tiny-realvocab";
    EXPECT_EQ(installed.at(0).at(0).toString().toStdString(), dir.string());
    EXPECT_TRUE(models::describe_model(dir).usable);
    EXPECT_EQ(bar->value(), 1000);
    EXPECT_EQ(table->item(0, 7)->text(), "installed");
    // ROUGE: the card's R1 alone, the others a dash.
    EXPECT_EQ(table->item(0, 4)->text(), "1.00 / – / – / –") << table->item(0, 4)->text().toStdString();
}

// A repository that is not in the catalog downloads from the same dialog, with the command
// line's checks: something that is not an owner/name id is refused in one sentence.
TEST_F(ModelCatalogDialogTest, ARepositoryOutsideTheCatalogDownloadsByName) {
    hub_.add_repo("someone/other-tiny", fixture_hub_files());
    QSignalSpy installed(dialog_.get(), &ui::ModelCatalogDialog::model_installed);
    auto* repo = child<QLineEdit>("repo");
    auto* go = child<QPushButton>("download-repo");
    EXPECT_FALSE(go->isEnabled());  // nothing typed
    repo->setText("not a repo id");
    go->click();
    ASSERT_TRUE(wait_until([&] { return !dialog_->downloading(); }));
    EXPECT_TRUE(dialog_->status_text().contains("is not a HuggingFace model id")) << dialog_->status_text().toStdString();
    EXPECT_EQ(installed.count(), 0);

    repo->setText("someone/other-tiny");
    go->click();
    ASSERT_TRUE(wait_until([&] { return !dialog_->downloading(); }));
    EXPECT_TRUE(dialog_->status_text().startsWith("Installed someone/other-tiny")) << dialog_->status_text().toStdString();
    ASSERT_EQ(installed.count(), 1);
    EXPECT_TRUE(models::describe_model(options_.models_root / "other-tiny").usable);
}

TEST_F(ModelCatalogDialogTest, CancelOnASlowDownloadInstallsNothing) {
    QSignalSpy installed(dialog_.get(), &ui::ModelCatalogDialog::model_installed);
    hub_.set_pace(16 * 1024, 20);
    dialog_->start_download(0);
    ASSERT_TRUE(wait_until([&] { return child<QProgressBar>("progress")->value() > 0; }));
    child<QPushButton>("cancel")->click();
    ASSERT_TRUE(wait_until([&] { return !dialog_->downloading(); }));
    EXPECT_TRUE(dialog_->status_text().contains("Cancelled")) << dialog_->status_text().toStdString();
    EXPECT_EQ(installed.count(), 0);
    EXPECT_FALSE(fs::exists(options_.models_root / "bart-tiny-realvocab"));
    EXPECT_TRUE(models::installed_models(options_.models_root).empty());
    EXPECT_TRUE(child<QPushButton>("download")->isEnabled());
}

TEST_F(ModelCatalogDialogTest, AnErrorIsShownInOneSentence) {
    hub_.require_token(kRepo, "hf_good");
    dialog_->start_download(0);
    ASSERT_TRUE(wait_until([&] { return !dialog_->downloading(); }));
    EXPECT_TRUE(dialog_->status_text().contains("set HF_TOKEN")) << dialog_->status_text().toStdString();
    EXPECT_FALSE(fs::exists(options_.models_root / "bart-tiny-realvocab"));
}

TEST(ModelCatalogLayout, WithRoomEveryColumnIsWholeAndTheDescriptionIsInEveryTooltip) {
    ui::ModelCatalogDialog dialog;
    ASSERT_FALSE(dialog.entries().empty());
    QTableWidget* table = dialog.table();
    // A 1600-pixel screen has room for it: opened there, no column is cut ("Good for" and
    // ROUGE were, at a fixed 1000 pixels).
    const QSize size = dialog.comfortable_size();
    EXPECT_LE(size.width(), 1600 - ui::kFrameWidth);
    dialog.resize(size);
    dialog.show();
    QApplication::processEvents();
    const QAbstractItemView* view = table;
    for (int c = 0; c < table->columnCount(); ++c)
        EXPECT_GE(table->columnWidth(c), view->sizeHintForColumn(c)) << "column " << c << " is cut";
    const models::CatalogEntry& first = dialog.entries().front();
    for (int c = 0; c + 1 < table->columnCount(); ++c)
        EXPECT_TRUE(table->item(0, c)->toolTip().startsWith(first.good_for)) << c;
    // ROUGE as four figures under one header, the dataset in the tooltip.
    ASSERT_FALSE(first.rouge.isEmpty());
    const QString figures = table->item(0, 4)->text();
    EXPECT_EQ(figures.count(QStringLiteral(" / ")), 3) << figures.toStdString();
    EXPECT_FALSE(figures.contains('(')) << figures.toStdString();
    EXPECT_TRUE(table->item(0, 4)->toolTip().contains(first.rouge_dataset));
    EXPECT_TRUE(table->horizontalHeaderItem(4)->text().startsWith("ROUGE"));
    save_shot_if_asked(&dialog, "catalog-comfortable.png");
}

TEST(ModelCatalogFromSettings, TheDownloadButtonOpensTheCatalogWithTheBundledModels) {
    ui::SettingsDialog settings(EngineSettings{}, nullptr);
    settings.show();
    auto* button = settings.findChild<QPushButton*>("download-models");
    ASSERT_NE(button, nullptr);
    int rows = -1;
    QTimer::singleShot(0, [&] {
        if (auto* catalog = qobject_cast<ui::ModelCatalogDialog*>(QApplication::activeModalWidget())) {
            rows = catalog->findChild<QTableWidget*>("catalog")->rowCount();
            catalog->reject();
        }
    });
    button->click();  // modal: returns once the timer closed it
    EXPECT_GE(rows, 15);
}

}  // namespace
}  // namespace precis::test

int main(int argc, char** argv) {
    qputenv("HF_HOME", QByteArray::fromStdString(precis::test::scratch_dir("catalog-dialog-hf").string()));
    return precis::test::run_ui_tests(argc, argv);
}
