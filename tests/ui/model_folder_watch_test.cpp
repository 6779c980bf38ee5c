// Issue 31, item 7: a model installed from the command line while the window is open was
// not seen until the next Summarize. The window watches the models folder (and the folder of
// the persisted default): a model landing there, or `precis model default NAME`, is picked
// up by itself within a moment, and a burst of file changes (a download's many files, then
// its folder renamed into place) makes one refresh, not one per file.
#include <QDir>
#include <QLabel>
#include <QProcess>
#include <QSignalSpy>

#include "app/models/model_store.h"
#include "app/worker/engine_thread.h"
#include "tests/ui/ui_test_support.h"
#include "ui/main_window.h"
#include "ui/model_banner.h"
#include "ui/model_folder_watcher.h"

namespace precis::test {
namespace {

namespace fs = std::filesystem;

// Installs the fixture model as `name` the way the command line does: its files gathered in
// a hidden folder, which is then renamed into place.
void install_like_the_cli(const std::string& name) {
    const fs::path staging = user_models_dir() / ("." + name + ".partial");
    fs::create_directories(staging);
    const fs::path model = fixtures_dir() / "models" / "bart-tiny-realvocab";
    const fs::path tok = fixtures_dir() / "tokenizer" / "bart";
    for (const fs::path& f : {model / "config.json", model / "generation_config.json", model / "model.safetensors",
                              tok / "tokenizer.json", tok / "vocab.json", tok / "merges.txt"})
        fs::copy_file(f, staging / f.filename(), fs::copy_options::overwrite_existing);
    fs::rename(staging, user_models_dir() / name);
}

class ModelFolderWatch : public ::testing::Test {
protected:
    void SetUp() override {
        if (!fs::exists(fixtures_dir() / "models/bart-tiny-realvocab/model.safetensors")) GTEST_SKIP() << "fixture model not found";
        start_as_new_user();  // no folder chosen for the window: it follows the default
    }

    std::unique_ptr<ui::MainWindow> open_window() {
        ui::MainWindowOptions o;
        o.library_path = QString::fromStdString((scratch_dir("model-watch") / "library.sqlite").string());
        auto window = std::make_unique<ui::MainWindow>(o);
        window->show();
        EXPECT_TRUE(wait_until([&] { return window->model_info().has_value() && !window->engine()->busy(); }));
        return window;
    }

    static QString model_in_use(const ui::MainWindow& w) {
        if (!w.model_info() || w.model_info()->extractive) return {};
        return QString::fromStdString(fs::path(w.model_info()->path.toStdString()).filename().string());
    }
};

TEST_F(ModelFolderWatch, AModelInstalledFromTheCommandLineIsSeenWithoutASummarize) {
    auto window = open_window();
    ASSERT_TRUE(window->model_info()->extractive) << "the test's home has no model yet";
    ASSERT_TRUE(window->test_model_banner()->isVisible());  // "no model installed"

    install_like_the_cli("cli-model");
    ASSERT_TRUE(wait_until([&] { return model_in_use(*window) == "cli-model" && !window->engine()->busy(); }, 30000));
    EXPECT_FALSE(window->test_model_banner()->isVisible());
    EXPECT_TRUE(window->model_label()->text().contains("cli-model")) << window->model_label()->text().toStdString();
    EXPECT_TRUE(window->model_label()->text().contains("(default)"));
}

TEST_F(ModelFolderWatch, TheDefaultChangedFromTheCommandLineIsFollowed) {
    install_like_the_cli("alpha");
    install_like_the_cli("beta");
    models::set_default_model("alpha");
    auto window = open_window();
    ASSERT_EQ(model_in_use(*window), "alpha");

    // `precis model default beta`, the real command where it is built, in this test's home.
    const fs::path precis = binary_dir() / "bin" / "precis";
    if (fs::exists(precis)) {
        QProcess p;
        p.start(QString::fromStdString(precis.string()), {"model", "default", "beta"});
        ASSERT_TRUE(p.waitForFinished(60000));
        ASSERT_EQ(p.exitCode(), 0) << p.readAllStandardError().toStdString();
    } else {
        models::set_default_model("beta");
    }
    ASSERT_EQ(models::default_model_name(), "beta");
    EXPECT_TRUE(wait_until([&] { return model_in_use(*window) == "beta" && !window->engine()->busy(); }, 30000));
    EXPECT_TRUE(window->model_label()->text().contains("<b>beta</b> (default)")) << window->model_label()->text().toStdString();

    // Removing the model in use falls back to what remains.
    models::remove_installed_model("beta");
    EXPECT_TRUE(wait_until([&] { return model_in_use(*window) == "alpha" && !window->engine()->busy(); }, 30000));
}

TEST_F(ModelFolderWatch, ABurstOfChangesMakesOneRefresh) {
    ui::ModelFolderWatcher watcher(nullptr, 300);
    EXPECT_TRUE(watcher.watched().contains(QString::fromStdString(user_models_dir().string())));
    QSignalSpy changed(&watcher, &ui::ModelFolderWatcher::models_changed);
    for (int i = 0; i < 12; ++i) {
        QDir().mkpath(QString::fromStdString((user_models_dir() / (".staging-" + std::to_string(i))).string()));
        QTest::qWait(20);
    }
    ASSERT_TRUE(changed.wait(5000));
    QTest::qWait(600);  // nothing more after the quiet moment
    EXPECT_EQ(changed.count(), 1);
}

}  // namespace
}  // namespace precis::test

int main(int argc, char** argv) { return precis::test::run_ui_tests(argc, argv); }
