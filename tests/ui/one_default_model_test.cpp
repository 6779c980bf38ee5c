// Issue 31, item 4: one default model. After the first download, later downloads from the
// window silently became the window's model while `precis model default` named another.
// Now the default lives only in app/models/model_store (what `precis model default` reads
// and writes): the first summarizer downloaded becomes it and the dialog says so; a later
// one is offered with a question and becomes it only when the user says yes; Settings shows
// and changes that same default; the window says whether its model is the default. A
// classifier never becomes the default for summaries.
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>

#include <fstream>

#include "app/models/model_store.h"
#include "app/worker/engine_thread.h"
#include "app/library/library.h"
#include "tests/support/fake_hub.h"
#include "tests/support/test_models.h"
#include "tests/ui/ui_test_support.h"
#include "ui/default_model_box.h"
#include "ui/main_window.h"
#include "ui/model_catalog_dialog.h"
#include "ui/settings_dialog.h"

namespace precis::test {
namespace {

namespace fs = std::filesystem;

// What `precis model default` prints: the real command, in this test's home.
QString cli_default() {
    const fs::path precis = binary_dir() / "bin" / "precis";
    if (!fs::exists(precis)) return {};
    QProcess p;
    p.start(QString::fromStdString(precis.string()), {"model", "default"});
    if (!p.waitForFinished(60000)) return {};
    return QString::fromUtf8(p.readAllStandardOutput()).trimmed();
}

class OneDefaultModel : public ::testing::Test {
protected:
    void SetUp() override {
        if (!fs::exists(fixtures_dir() / "models/bart-tiny-realvocab/model.safetensors")) GTEST_SKIP() << "fixture model not found";
        start_as_new_user();  // each test starts with a fresh store and no default
        for (const char* repo : {"acme/first-tiny", "acme/second-tiny", "acme/third-tiny"}) hub_.add_repo(repo, fixture_hub_files());
        options_.models_root = user_models_dir();  // the user's own folder: defaults apply
        options_.endpoint = hub_.endpoint();
        const fs::path catalog = scratch_dir("one-default") / "catalog.json";
        std::ofstream(catalog) << R"({"models": []})";
        options_.catalog = catalog;
    }

    void download(ui::ModelCatalogDialog& dialog, const QString& repo) {
        dialog.start_download_repo(repo);
        ASSERT_TRUE(wait_until([&] { return !dialog.downloading(); }));
        ASSERT_TRUE(dialog.status_text().startsWith("Installed " + repo)) << dialog.status_text().toStdString();
    }

    FakeHub hub_;
    ui::ModelCatalogOptions options_;
};

TEST_F(OneDefaultModel, TheFirstDownloadBecomesTheDefaultAndSaysSo) {
    ui::ModelCatalogDialog dialog(nullptr, options_);
    dialog.show();
    QSignalSpy changed(&dialog, &ui::ModelCatalogDialog::default_changed);
    download(dialog, "acme/first-tiny");
    EXPECT_EQ(models::default_model_name(), "first-tiny");
    EXPECT_TRUE(dialog.status_text().contains("It is now the default model")) << dialog.status_text().toStdString();
    EXPECT_FALSE(dialog.default_question()->isVisible());  // nothing to ask
    ASSERT_EQ(changed.count(), 1);
    EXPECT_EQ(changed.first().first().toString(), "first-tiny");
    if (const QString cli = cli_default(); !cli.isEmpty())
        EXPECT_EQ(cli.toStdString(), (user_models_dir() / "first-tiny").string());
}

TEST_F(OneDefaultModel, ALaterDownloadAsksAndChangesNothingUntilTold) {
    ui::ModelCatalogDialog dialog(nullptr, options_);
    dialog.show();
    download(dialog, "acme/first-tiny");
    QSignalSpy changed(&dialog, &ui::ModelCatalogDialog::default_changed);

    download(dialog, "acme/second-tiny");
    ASSERT_TRUE(dialog.default_question()->isVisible());
    EXPECT_TRUE(dialog.default_question()->text().contains("Make <b>second-tiny</b> the default model?"))
        << dialog.default_question()->text().toStdString();
    EXPECT_TRUE(dialog.default_question()->text().contains("now <b>first-tiny</b>"));
    EXPECT_EQ(dialog.keep_default_button()->text(), "Keep first-tiny");
    EXPECT_EQ(models::default_model_name(), "first-tiny");  // asked, not done
    dialog.keep_default_button()->click();
    EXPECT_FALSE(dialog.default_question()->isVisible());
    EXPECT_EQ(models::default_model_name(), "first-tiny");
    EXPECT_EQ(changed.count(), 0);

    download(dialog, "acme/third-tiny");
    ASSERT_TRUE(dialog.default_question()->isVisible());
    dialog.make_default_button()->click();
    EXPECT_EQ(models::default_model_name(), "third-tiny");
    EXPECT_TRUE(dialog.status_text().contains("third-tiny is now the default model")) << dialog.status_text().toStdString();
    ASSERT_EQ(changed.count(), 1);
    if (const QString cli = cli_default(); !cli.isEmpty())
        EXPECT_EQ(cli.toStdString(), (user_models_dir() / "third-tiny").string());
}

// Settings shows the same default, lists the summarizers it can be, and a download taken
// there no longer becomes the window's own folder behind the default's back.
TEST_F(OneDefaultModel, SettingsShowsAndChangesTheOneDefault) {
    {
        ui::ModelCatalogDialog dialog(nullptr, options_);
        download(dialog, "acme/first-tiny");
        download(dialog, "acme/second-tiny");
    }
    ui::SettingsDialog settings(EngineSettings{}, nullptr);
    settings.show();
    ui::DefaultModelBox* box = settings.default_model_box();
    EXPECT_EQ(box->chosen(), "first-tiny");
    ASSERT_EQ(box->combo()->count(), 2);
    settings.take_installed_model(QString::fromStdString((user_models_dir() / "second-tiny").string()));
    EXPECT_TRUE(settings.settings().model_dir.isEmpty()) << "a download is not made the window's own folder";
    EXPECT_EQ(box->chosen(), "first-tiny");

    box->combo()->setCurrentIndex(box->combo()->findData("second-tiny"));
    settings.accept();
    EXPECT_EQ(settings.result(), QDialog::Accepted);
    EXPECT_TRUE(settings.default_model_changed());
    EXPECT_EQ(models::default_model_name(), "second-tiny");
    if (const QString cli = cli_default(); !cli.isEmpty())
        EXPECT_EQ(cli.toStdString(), (user_models_dir() / "second-tiny").string());

    // The catalog made another default while a folder was chosen for this window alone: the
    // window follows the default, and the dialog says why the folder went.
    EngineSettings own;
    own.model_dir = QString::fromStdString((fixtures_dir() / "models/bart-tiny-realvocab").string());
    ui::SettingsDialog with_folder(own, nullptr);
    models::set_default_model("first-tiny");
    with_folder.follow_new_default("first-tiny");
    EXPECT_TRUE(with_folder.settings().model_dir.isEmpty());
    EXPECT_EQ(with_folder.default_model_box()->chosen(), "first-tiny");
}

// The window names its model as the default, the same one the command line prints.
TEST_F(OneDefaultModel, TheWindowUsesAndNamesTheDefault) {
    {
        ui::ModelCatalogDialog dialog(nullptr, options_);
        download(dialog, "acme/first-tiny");
        download(dialog, "acme/second-tiny");
    }
    ui::MainWindowOptions o;
    o.library_path = QString::fromStdString((scratch_dir("one-default-window") / "library.sqlite").string());
    ui::MainWindow window(o);
    window.show();
    ASSERT_TRUE(wait_until([&] { return window.model_info().has_value() && !window.engine()->busy(); }));
    ASSERT_FALSE(window.model_info()->extractive);
    EXPECT_EQ(fs::path(window.model_info()->path.toStdString()).filename(), "first-tiny");
    EXPECT_TRUE(window.model_label()->text().contains("<b>first-tiny</b> (default)")) << window.model_label()->text().toStdString();
}

// Issue 42, item 1: a fresh home with only a classifier installed. The classifier is never
// taken for the default model: the status bar does not name it, Settings says no model for
// summaries is installed, and Summarize gives an extractive summary.
TEST_F(OneDefaultModel, AClassifierAloneIsNotTheDefaultModel) {
    const fs::path made = make_classifier("issue42-topics", {{"0", "rivers"}, {"1", "cooking"}, {"2", "finance"}},
                                          "single_label_classification");
    const fs::path installed = user_models_dir() / "topic-classifier";
    fs::create_directories(installed);
    fs::copy(made, installed, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
    bool listed = false;  // installed, and known for what it is
    for (const models::ModelInfo& m : models::all_models())
        if (m.name == "topic-classifier") {
            listed = true;
            EXPECT_NE(m.task, "summarization");
        }
    ASSERT_TRUE(listed);
    ASSERT_TRUE(models::default_model_name().isEmpty());
    ASSERT_TRUE(user_default_model().empty()) << "the classifier became the fallback default model";

    ui::MainWindowOptions o;
    const fs::path dir = scratch_dir("one-default-classifier-only");
    o.library_path = QString::fromStdString((dir / "library.sqlite").string());
    ui::MainWindow window(o);
    window.resize(1024, 700);
    window.show();
    ASSERT_TRUE(wait_until([&] { return window.model_info().has_value() && !window.engine()->busy(); }));
    EXPECT_TRUE(window.model_info()->extractive);
    const QString label = window.model_label()->text();
    EXPECT_FALSE(label.contains("topic-classifier")) << label.toStdString();
    EXPECT_FALSE(label.contains("(default)")) << label.toStdString();
    EXPECT_TRUE(label.contains("extractive")) << label.toStdString();

    {
        ui::SettingsDialog settings(EngineSettings{}, nullptr);
        settings.show();
        ui::DefaultModelBox* box = settings.default_model_box();
        ASSERT_EQ(box->combo()->count(), 1);
        EXPECT_TRUE(box->chosen().isEmpty());
        EXPECT_TRUE(box->combo()->currentText().startsWith("none installed for summaries"))
            << box->combo()->currentText().toStdString();
        fs::create_directories("/tmp/issue42-shots-2");
        settings.grab().save(QStringLiteral("/tmp/issue42-shots-2/classifier-only-settings.png"));
    }

    const fs::path essay = write_text_file(dir / "rivers.txt", river_paragraphs());
    window.open_file(QString::fromStdString(essay.string()));
    ASSERT_TRUE(wait_until([&] { return window.current_document() != 0 && !window.engine()->busy(); }));
    const qint64 doc = window.current_document();
    window.summarize_current();
    ASSERT_TRUE(wait_until([&] { return window.library().summaries_for(doc).size() == 1 && !window.engine()->busy(); }));
    const SummaryRecord s = window.library().summaries_for(doc).first();
    EXPECT_EQ(s.method, "extractive");
    EXPECT_NE(s.model_name, "topic-classifier");
    EXPECT_FALSE(window.model_label()->text().contains("topic-classifier")) << window.model_label()->text().toStdString();
    window.grab().save(QStringLiteral("/tmp/issue42-shots-2/classifier-only-window-1024x700.png"));
}

}  // namespace
}  // namespace precis::test

int main(int argc, char** argv) {
    return precis::test::run_ui_tests(argc, argv);
}
