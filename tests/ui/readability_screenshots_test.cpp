// Screenshots for issue 31 items 4, 10 and 14 (not a correctness test; the behaviour is
// proven by one_default_model_test, pdf_passage_reveal_test, attention_panel_readability_test
// and library_panel_test). Runs only with PRECIS_SHOTS_DIR set, best under Xvfb with
// QT_QPA_PLATFORM=xcb: each shot is the whole screen, named with its size, so running it at
// 1024x700 and at 1600x1000 shows what a person on either screen sees.
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QFile>
#include <QGuiApplication>
#include <QListWidget>
#include <QPushButton>
#include <QScreen>
#include <QSignalSpy>
#include <QTabWidget>

#include <fstream>

#include "app/library/library.h"
#include "app/models/model_store.h"
#include "app/worker/engine_thread.h"
#include "tests/support/fake_hub.h"
#include "tests/ui/ui_test_support.h"
#include "ui/attention_panel.h"
#include "ui/document_view.h"
#include "ui/library_panel.h"
#include "ui/main_window.h"
#include "ui/model_catalog_dialog.h"
#include "ui/pdf_page_canvas.h"
#include "ui/pdf_pages_view.h"
#include "ui/settings_dialog.h"
#include "ui/summary_panel.h"

namespace precis::test {
namespace {

namespace fs = std::filesystem;

class ReadabilityShots : public ::testing::Test {
protected:
    void SetUp() override {
        out_ = qEnvironmentVariable("PRECIS_SHOTS_DIR");
        if (out_.isEmpty()) GTEST_SKIP() << "set PRECIS_SHOTS_DIR to take screenshots";
        if (!fixture_model_available()) GTEST_SKIP() << "fixture test model not found";
        QDir().mkpath(out_);
        start_as_new_user();
        screen_ = QGuiApplication::primaryScreen()->availableGeometry();
    }

    // The whole screen, as a person sees it.
    void shot(const QString& name) {
        QTest::qWait(400);  // the last paints (and pages rendered one per event-loop turn)
        const QPixmap pixels = QGuiApplication::primaryScreen()->grabWindow(0);
        const QString file = QStringLiteral("%1/%2-%3x%4.png").arg(out_, name).arg(screen_.width()).arg(screen_.height());
        ASSERT_TRUE(pixels.save(file)) << file.toStdString();
    }

    std::unique_ptr<ui::MainWindow> open_window(const EngineSettings* settings) {
        if (settings) save_engine_settings(*std::make_unique<QSettings>(), *settings);
        ui::MainWindowOptions o;
        o.library_path = QString::fromStdString((scratch_dir("readability-shots") / "library.sqlite").string());
        auto window = std::make_unique<ui::MainWindow>(o);
        window->setGeometry(screen_.adjusted(0, 0, -2, -30));
        window->show();
        EXPECT_TRUE(wait_until([&] { return window->model_info().has_value() && !window->engine()->busy(); }));
        return window;
    }

    void open_and_wait(ui::MainWindow& w, const QString& path) {
        const qint64 before = w.current_document();
        w.open_file(path);
        ASSERT_TRUE(wait_until([&] { return w.current_document() != before && !w.engine()->busy(); }));
    }

    QString out_;
    QRect screen_;
};

TEST_F(ReadabilityShots, DownloadAsksWhetherItBecomesTheDefault) {
    FakeHub hub;
    hub.add_repo("acme/first-tiny", fixture_hub_files());
    hub.add_repo("acme/second-tiny", fixture_hub_files());
    ui::ModelCatalogOptions options;
    options.models_root = user_models_dir();
    options.endpoint = hub.endpoint();
    ui::ModelCatalogDialog dialog(nullptr, options);
    dialog.move(screen_.topLeft());
    dialog.show();
    for (const QString repo : {"acme/first-tiny", "acme/second-tiny"}) {
        dialog.start_download_repo(repo);
        ASSERT_TRUE(wait_until([&] { return !dialog.downloading(); }));
    }
    ASSERT_TRUE(dialog.default_question()->isVisible());
    shot("download-default-question");
}

TEST_F(ReadabilityShots, SettingsShowsTheOneDefault) {
    FakeHub hub;
    hub.add_repo("acme/first-tiny", fixture_hub_files());
    hub.add_repo("acme/second-tiny", fixture_hub_files());
    ui::ModelCatalogOptions options;
    options.models_root = user_models_dir();
    options.endpoint = hub.endpoint();
    {
        ui::ModelCatalogDialog dialog(nullptr, options);
        for (const QString repo : {"acme/first-tiny", "acme/second-tiny"}) {
            dialog.start_download_repo(repo);
            ASSERT_TRUE(wait_until([&] { return !dialog.downloading(); }));
        }
    }
    auto window = open_window(nullptr);
    ui::SettingsDialog settings(window->settings(), window->engine(), window.get());
    settings.show();
    shot("settings-default-model");
}

TEST_F(ReadabilityShots, AttentionPanelWithoutAModelOffersDownload) {
    auto window = open_window(nullptr);
    ASSERT_TRUE(window->model_info()->extractive);
    open_and_wait(*window, QString::fromStdString((samples_dir() / "the-quiet-work-of-rivers.txt").string()));
    window->attention_dock()->show();
    ASSERT_TRUE(window->attention_panel()->download_button()->isVisible());
    shot("attention-no-model-download");
}

TEST_F(ReadabilityShots, WeightsWithAxesAndPooledColours) {
    EngineSettings s = fixture_model_settings();
    s.attention = "lsg";
    s.max_positions = 4096;
    auto window = open_window(&s);
    open_and_wait(*window, QString::fromStdString((samples_dir() / "the-quiet-work-of-rivers.txt").string()));
    window->attention_dock()->show();
    ui::AttentionPanel* panel = window->attention_panel();
    panel->select_pattern(int(ui::PatternChoice::Pooling));
    panel->tabs()->setCurrentIndex(0);
    shot("attention-pooling-colours");
    panel->tabs()->setCurrentIndex(1);
    QSignalSpy captured(window->engine()->worker(), &EngineWorker::attention_captured);
    panel->request_run();
    ASSERT_TRUE(wait_until([&] { return captured.count() == 1; }));
    shot("attention-weights-axes");
}

TEST_F(ReadabilityShots, PdfPassageClickedShowsItsSentence) {
    const QString pdf = QString::fromStdString((binary_dir() / "samples" / "the-quiet-work-of-rivers.pdf").string());
    if (!QFile::exists(pdf)) GTEST_SKIP() << "build the precis_sample_pdf target first";
    EngineSettings s = fixture_model_settings();
    s.method = "extractive";  // its passages are whole sentences, spread over the pages
    auto window = open_window(&s);
    open_and_wait(*window, pdf);
    const qint64 doc = window->current_document();
    window->summarize_current();
    ASSERT_TRUE(wait_until([&] { return !window->library().summaries_for(doc).isEmpty() && !window->engine()->busy(); }));
    ui::DocumentView* view = window->document_view();
    view->tabs()->setCurrentIndex(1);
    ASSERT_TRUE(wait_until([&] { return view->pages_view()->visible_pages_rendered(); }));
    // A passage low on a later page: the kind a jump to the page's top used to miss.
    QListWidget* list = window->summary_panel()->passage_list();
    ASSERT_GT(list->count(), 1);
    const int pick = list->count() - 1;
    list->setCurrentRow(pick);
    emit list->itemActivated(list->item(pick));
    ASSERT_TRUE(wait_until([&] { return view->pages_view()->visible_pages_rendered(); }));
    shot("pdf-passage-clicked");
}

TEST_F(ReadabilityShots, LabelFilterSaysWhenNothingMatches) {
    auto window = open_window(nullptr);
    open_and_wait(*window, QString::fromStdString((samples_dir() / "the-quiet-work-of-rivers.txt").string()));
    const qint64 doc = window->current_document();
    ClassificationRecord r;
    r.document_id = doc;
    r.model_name = "bart-large-mnli";
    r.label = "geography";
    r.score = 0.91;
    r.parameters.insert("predicted", true);
    window->library().add_classifications({r});
    ui::LibraryPanel* panel = window->library_panel();
    panel->refresh();
    panel->label_filter()->setCurrentIndex(panel->label_filter()->findData("geography"));
    panel->search_box()->setText("volcano");
    ASSERT_TRUE(wait_until([&] { return panel->empty_message()->isVisible(); }, 5000));
    shot("label-filter-empty");
}

}  // namespace
}  // namespace precis::test

int main(int argc, char** argv) {
    return precis::test::run_ui_tests(argc, argv);
}
