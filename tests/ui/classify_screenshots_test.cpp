// Screenshots of classification in the window, for review (not a correctness test): run only
// when PRECIS_SHOTS_DIR names a folder. The sample essay is summarized by the fixture test
// model and labelled by a tiny random zero-shot classifier (tests/support), so the labels and
// scores mean nothing; the pictures show how they are laid out at two window sizes.
#include <QDir>
#include <QSettings>
#include <QTabWidget>

#include "app/library/library.h"
#include "app/worker/engine_thread.h"
#include "tests/support/test_models.h"
#include "tests/ui/ui_test_support.h"
#include "ui/batch_dialog.h"
#include "ui/classification_view.h"
#include "ui/main_window.h"
#include "ui/settings_dialog.h"
#include "ui/summary_panel.h"

namespace precis::test {
namespace {

namespace fs = std::filesystem;

class ClassifyScreenshots : public ::testing::Test {
protected:
    void SetUp() override {
        out_ = qEnvironmentVariable("PRECIS_SHOTS_DIR");
        if (out_.isEmpty()) GTEST_SKIP() << "set PRECIS_SHOTS_DIR to take screenshots";
        if (!fixture_model_available()) GTEST_SKIP() << "fixture test model not found";
        QDir().mkpath(out_);
        const fs::path nli = make_classifier("shots-nli", {{"0", "contradiction"}, {"1", "neutral"}, {"2", "entailment"}}, "");
        fs::copy_file(fixtures_dir() / "tokenizer/bart/tokenizer.json", nli / "tokenizer.json");
        EngineSettings s = fixture_model_settings();
        s.classifier.model_dir = QString::fromStdString(nli.string());
        s.classifier.labels = QStringLiteral("geography, farming, history, finance, cooking, sport, music");
        QSettings q;
        q.clear();
        save_engine_settings(q, s);
        dir_ = scratch_dir("classify-screenshots");
        ui::MainWindowOptions o;
        o.library_path = QString::fromStdString((dir_ / "library.sqlite").string());
        window_ = std::make_unique<ui::MainWindow>(o);
        window_->show();
        ASSERT_TRUE(wait_until([&] { return window_->model_info().has_value() && !window_->engine()->busy(); }));
    }

    void save(QWidget* w, const QString& name) {
        QApplication::processEvents();
        ASSERT_TRUE(w->grab().save(out_ + "/" + name)) << name.toStdString();
    }

    QString out_;
    fs::path dir_;
    std::unique_ptr<ui::MainWindow> window_;
};

TEST_F(ClassifyScreenshots, MainWindowWithLabelsBesideTheSummary) {
    const QString essay = QString::fromStdString((samples_dir() / "the-quiet-work-of-rivers.txt").string());
    window_->open_file(essay);
    ASSERT_TRUE(wait_until([&] { return window_->current_document() != 0 && !window_->engine()->busy(); }));
    const qint64 doc = window_->current_document();
    window_->summarize_current();
    window_->classify_current();  // waits in the queue behind the summary
    window_->resize(1024, 700);
    save(window_.get(), "classify-queued-1024x700.png");
    ASSERT_TRUE(wait_until([&] {
        return !window_->library().classifications_for(doc).isEmpty() && !window_->engine()->busy();
    }));
    ASSERT_FALSE(window_->summary_panel()->classification_view()->rows().isEmpty());
    window_->resize(1024, 700);
    save(window_.get(), "classify-results-1024x700.png");
    window_->resize(1600, 1000);
    save(window_.get(), "classify-results-1600x1000.png");
}

TEST_F(ClassifyScreenshots, SettingsAndBatchDialogs) {
    ui::SettingsDialog settings(window_->settings(), window_->engine(), window_.get());
    settings.show();
    save(&settings, "classify-settings-summaries-tab.png");
    settings.tabs()->setCurrentIndex(ui::SettingsDialog::kClassificationTab);
    save(&settings, "classify-settings-classification-tab.png");
    ui::BatchDialog* batch = window_->open_batch_dialog();
    batch->set_classify(true);
    save(batch, "classify-batch-dialog.png");
}

}  // namespace
}  // namespace precis::test

int main(int argc, char** argv) { return precis::test::run_ui_tests(argc, argv); }
