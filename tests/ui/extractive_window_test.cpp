// The window with no model installed: it says so plainly, never loads the random test
// model, and Summarize gives an extractive summary whose sentences are highlighted in the
// document and named as such in the summary panel. With PRECIS_SHOTS_DIR set it also
// saves a screenshot of the result for review (of PRECIS_SHOT_DOCUMENT's, when set).
#include <QDir>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSignalSpy>

#include "app/library/library.h"
#include "app/paths.h"
#include "app/worker/engine_thread.h"
#include "tests/ui/ui_test_support.h"
#include "ui/document_view.h"
#include "ui/main_window.h"
#include "ui/model_banner.h"
#include "ui/summary_panel.h"

namespace precis::test {
namespace {

class ExtractiveWindowTest : public ::testing::Test {
protected:
    void SetUp() override {
        QSettings q;
        q.clear();  // default settings: method auto, no model folder
        dir_ = scratch_dir("extractive-window");
        ASSERT_TRUE(user_default_model().empty()) << "the test's data folder must hold no model";
        ui::MainWindowOptions o;
        o.library_path = QString::fromStdString((dir_ / "library.sqlite").string());
        window_ = std::make_unique<ui::MainWindow>(o);
        window_->resize(1400, 900);
        window_->show();
        ASSERT_TRUE(wait_until([&] { return window_->model_info().has_value() && !window_->engine()->busy(); }));
    }
    void TearDown() override { window_.reset(); }

    std::filesystem::path dir_;
    std::unique_ptr<ui::MainWindow> window_;
};

TEST_F(ExtractiveWindowTest, SaysPlainlyThatSummariesAreExtractiveAndNeverUsesTheTestModel) {
    const ModelInfo& info = *window_->model_info();
    EXPECT_TRUE(info.extractive);
    EXPECT_FALSE(info.is_test_model);
    EXPECT_TRUE(window_->test_model_banner()->isVisible());
    EXPECT_TRUE(window_->test_model_banner()->text().contains("extractive"));
    EXPECT_FALSE(window_->test_model_banner()->text().contains("MEANINGLESS"));
}

TEST(ModelBannerTest, WithNoModelItOffersTheRecommendedDownloadAndAFolderOnDisk) {
    ui::ModelBanner banner;
    ModelInfo info;
    info.extractive = true;
    info.source = "no model installed";
    banner.show_for(info);
    EXPECT_FALSE(banner.isHidden());
    EXPECT_TRUE(banner.text().contains("download a model")) << banner.text().toStdString();
    EXPECT_TRUE(banner.text().contains("recommended: lsg-bart-base-4096-pubmed")) << banner.text().toStdString();
    EXPECT_TRUE(banner.text().contains("use a model folder you already have"));
    QSignalSpy download(&banner, &ui::ModelBanner::download_requested);
    QSignalSpy folder(&banner, &ui::ModelBanner::use_folder_requested);
    emit banner.linkActivated("download");
    emit banner.linkActivated("folder");
    EXPECT_EQ(download.count(), 1);
    EXPECT_EQ(folder.count(), 1);
    // Extractive by choice, with a model installed: nothing to say.
    info.source = "chosen in Settings";
    banner.show_for(info);
    EXPECT_TRUE(banner.isHidden());
}

TEST_F(ExtractiveWindowTest, SummarizeQuotesTheDocumentAndHighlightsTheChosenSentences) {
    // PRECIS_SHOT_DOCUMENT names another document to summarize (a Gutenberg book, say) when
    // looking at screenshots; every check below holds for any document.
    QString essay = QString::fromStdString((samples_dir() / "the-quiet-work-of-rivers.txt").string());
    if (const QString other = qEnvironmentVariable("PRECIS_SHOT_DOCUMENT"); !other.isEmpty()) essay = other;
    window_->open_file(essay);
    ASSERT_TRUE(wait_until([&] { return window_->current_document() != 0 && !window_->engine()->busy(); }));
    const qint64 doc = window_->current_document();
    window_->summarize_current();
    ASSERT_TRUE(wait_until([&] { return window_->library().summaries_for(doc).size() == 1 && !window_->engine()->busy(); }));
    QApplication::processEvents();

    const SummaryRecord s = window_->library().summaries_for(doc).first();
    EXPECT_EQ(s.method, "extractive");
    ASSERT_TRUE(s.passages.has_value());
    const QStringList lines = s.summary.split('\n');
    ASSERT_EQ(lines.size(), s.passages->size());
    // Every highlighted passage is exactly one of the summary's sentences, in order.
    const QVector<SourcePassage> shown = window_->document_view()->passages();
    ASSERT_EQ(shown, *s.passages);
    const QString text = window_->document_view()->text_view()->toPlainText();
    for (int i = 0; i < shown.size(); ++i)
        EXPECT_EQ(text.mid(shown[i].begin, shown[i].end - shown[i].begin).simplified(), lines[i]);
    EXPECT_TRUE(window_->summary_panel()->summary_text().contains(lines.first()));
    const QString described = summary_method_description(s);
    EXPECT_EQ(described, QStringLiteral("extractive: %1 sentences from the document").arg(lines.size()));

    if (const QString shots = qEnvironmentVariable("PRECIS_SHOTS_DIR"); !shots.isEmpty()) {
        QDir().mkpath(shots);
        EXPECT_TRUE(window_->grab().save(shots + "/extractive-summary.png"));
    }
}

}  // namespace
}  // namespace precis::test

int main(int argc, char** argv) { return precis::test::run_ui_tests(argc, argv); }
