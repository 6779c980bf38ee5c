// The main window end to end on the offscreen platform: open a document, summarize it
// with the fixture model, see the summary stored in the library and shown with its
// history and highlighted passages; re-summarizing keeps history; bad files report once.
#include <fstream>

#include <QDockWidget>
#include <QInputDialog>
#include <QPainter>
#include <QPdfWriter>
#include <QProcess>
#include <QStandardPaths>
#include <QTabWidget>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QListWidget>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QTableView>
#include <QTextBrowser>

#include "app/file_names.h"
#include "app/library/library.h"
#include "app/worker/engine_thread.h"
#include "tests/ui/ui_test_support.h"
#include "ui/attention_panel.h"
#include "ui/document_view.h"
#include "ui/library_panel.h"
#include "ui/main_window.h"
#include "ui/pdf_pages_view.h"
#include "ui/run_status.h"
#include "ui/summary_panel.h"

namespace precis::test {
namespace {

using ui::MainWindow;

class MainWindowTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (!fixture_model_available()) GTEST_SKIP() << "fixture test model not found";
        use_fixture_model_settings();
        dir_ = scratch_dir("main-window");
        ui::MainWindowOptions o;
        o.library_path = QString::fromStdString((dir_ / "library.sqlite").string());
        window_ = std::make_unique<MainWindow>(o);
        window_->show();
        ASSERT_TRUE(wait_until([&] { return window_->model_info().has_value(); }));
    }
    void TearDown() override { window_.reset(); }

    qint64 open_and_wait(const std::string& name, const std::string& text) {
        const auto path = write_text_file(dir_ / name, text);
        window_->open_file(QString::fromStdString(path.string()));
        EXPECT_TRUE(wait_until([&] { return window_->current_document() != 0 && !window_->engine()->busy(); }));
        return window_->current_document();
    }

    void summarize_and_wait(qint64 doc, int expected_count) {
        window_->summarize_current();
        EXPECT_TRUE(wait_until([&] {
            return window_->library().summaries_for(doc).size() == expected_count && !window_->engine()->busy();
        }));
        QApplication::processEvents();
    }

    std::filesystem::path dir_;
    std::unique_ptr<MainWindow> window_;
};

TEST_F(MainWindowTest, WarnsLoudlyAboutTheRandomTestModel) {
    EXPECT_TRUE(window_->model_info()->is_test_model);
    EXPECT_TRUE(window_->test_model_banner()->isVisible());
    EXPECT_TRUE(window_->test_model_banner()->text().contains("MEANINGLESS"));
}

TEST_F(MainWindowTest, SummarizeStoresAndShowsTheSummary) {
    const qint64 doc = open_and_wait("rivers.txt", river_paragraphs());
    ASSERT_GT(doc, 0);
    EXPECT_TRUE(window_->document_view()->text_view()->toPlainText().contains("arithmetic"));
    EXPECT_EQ(window_->library_panel()->selected_document(), doc);
    EXPECT_EQ(window_->library_panel()->table()->model()->rowCount(), 1);

    summarize_and_wait(doc, 1);
    const auto stored = window_->library().summaries_for(doc);
    ASSERT_EQ(stored.size(), 1);
    EXPECT_EQ(window_->summary_panel()->summary_id(), stored.first().id);
    EXPECT_EQ(window_->summary_panel()->summary_text(), stored.first().summary);
    EXPECT_EQ(window_->summary_panel()->history()->count(), 1);
    // The passages the summary drew on are highlighted in the document.
    EXPECT_FALSE(window_->document_view()->passages().isEmpty());
    EXPECT_FALSE(window_->document_view()->text_view()->extraSelections().isEmpty());
    EXPECT_FALSE(window_->run_status()->running());
}

TEST_F(MainWindowTest, PassagesOfAStoredSummaryShowAfterARestartWithoutRerunningTheModel) {
    const qint64 doc = open_and_wait("rivers.txt", river_paragraphs());
    summarize_and_wait(doc, 1);
    const QVector<SourcePassage> shown = window_->document_view()->passages();
    ASSERT_FALSE(shown.isEmpty());

    // A new window on the same library, as after quitting and starting Precis again.
    window_.reset();
    ui::MainWindowOptions o;
    o.library_path = QString::fromStdString((dir_ / "library.sqlite").string());
    window_ = std::make_unique<MainWindow>(o);
    window_->show();
    ASSERT_TRUE(wait_until([&] { return window_->model_info().has_value() && !window_->engine()->busy(); }));
    window_->show_document(doc);
    ASSERT_TRUE(wait_until([&] { return window_->document_view()->passages() == shown; }, 5000));
    EXPECT_FALSE(window_->engine()->busy());  // read from the library, not recomputed
    EXPECT_FALSE(window_->document_view()->text_view()->extraSelections().isEmpty());
}

TEST_F(MainWindowTest, EncryptedPdfAsksForThePasswordAgainWhenWrongThenShowsTextAndPages) {
    const QString qpdf = QStandardPaths::findExecutable(QStringLiteral("qpdf"));
    if (qpdf.isEmpty()) GTEST_SKIP() << "qpdf is not installed (packaging/install-deps.sh installs it)";
    const QString plain = QString::fromStdString((dir_ / "plain.pdf").string());
    const QString locked = QString::fromStdString((dir_ / "locked.pdf").string());
    {
        QPdfWriter writer(plain);
        QPainter painter(&writer);
        painter.setFont(QFont(QStringLiteral("DejaVu Sans"), 12));
        painter.drawText(QRectF(0, 0, writer.width(), writer.height() / 4), Qt::TextWordWrap,
                         QStringLiteral("Sealed minutes of the river commission about the winter floods."));
    }
    QProcess proc;
    proc.start(qpdf, {"--encrypt", "s3cret", "owner-pw", "256", "--", plain, locked});
    ASSERT_TRUE(proc.waitForFinished(60000));
    ASSERT_EQ(proc.exitCode(), 0) << proc.readAllStandardError().toStdString();

    auto prompt = [&]() -> QInputDialog* {
        for (QInputDialog* d : window_->findChildren<QInputDialog*>())
            if (d->isVisible()) return d;
        return nullptr;
    };
    window_->open_file(locked);
    ASSERT_TRUE(wait_until([&] { return prompt() != nullptr; }));
    EXPECT_TRUE(prompt()->labelText().contains("locked.pdf is encrypted")) << prompt()->labelText().toStdString();
    EXPECT_EQ(prompt()->textEchoMode(), QLineEdit::Password);
    prompt()->setTextValue(QStringLiteral("guess"));
    prompt()->accept();
    ASSERT_TRUE(wait_until([&] { return prompt() != nullptr && prompt()->labelText().contains("did not open"); }));
    EXPECT_EQ(window_->current_document(), 0);
    prompt()->setTextValue(QStringLiteral("s3cret"));
    prompt()->accept();
    ASSERT_TRUE(wait_until([&] { return window_->current_document() != 0 && !window_->engine()->busy(); }));
    EXPECT_TRUE(window_->document_view()->text_view()->toPlainText().contains("river commission"));
    // The pages render too: the view was given the password the file was opened with.
    ASSERT_TRUE(wait_until([&] { return window_->document_view()->pages_view()->rendered_pages() >= 1; }, 10000));
}

TEST_F(MainWindowTest, ResummarizingWithOtherSettingsKeepsHistory) {
    const qint64 doc = open_and_wait("rivers.txt", river_paragraphs());
    summarize_and_wait(doc, 1);
    EngineSettings s = fixture_model_settings();
    s.generation_override = true;
    s.num_beams = 2;
    s.min_length = 2;
    s.max_length = 12;
    s.no_repeat_ngram_size = 2;
    s.length_penalty = 1.0;
    window_->set_settings(s);
    summarize_and_wait(doc, 2);
    const auto stored = window_->library().summaries_for(doc);
    ASSERT_EQ(stored.size(), 2);
    EXPECT_EQ(stored.first().parameters.value("num_beams").toInt(), 2);  // newest first
    EXPECT_EQ(window_->summary_panel()->history()->count(), 2);
    EXPECT_EQ(window_->summary_panel()->summary_id(), stored.first().id);
    // Selecting the older one shows it.
    window_->summary_panel()->history()->setCurrentRow(1);
    EXPECT_EQ(window_->summary_panel()->summary_id(), stored.last().id);
}

TEST_F(MainWindowTest, SearchFiltersTheLibrary) {
    open_and_wait("rivers.txt", river_paragraphs());
    open_and_wait("cooking.txt", "Bread needs flour, water, salt and time. Knead the dough until it is smooth.\n");
    QAbstractItemModel* rows = window_->library_panel()->table()->model();
    EXPECT_EQ(rows->rowCount(), 2);
    window_->library_panel()->search_box()->setText("dough");
    EXPECT_TRUE(wait_until([&] { return rows->rowCount() == 1; }, 5000));
    window_->library_panel()->search_box()->clear();
    EXPECT_TRUE(wait_until([&] { return rows->rowCount() == 2; }, 5000));
}

TEST_F(MainWindowTest, FileWhoseNameIsNotUtf8OpensAndIsStoredExactly) {
    // As `precis FILE` hands it over: the name's bytes, kept by path_from_native.
    const auto path = dir_ / "caf\xE9-rivers.txt";
    std::ofstream(path, std::ios::binary) << river_paragraphs();  // not QFile: it would mangle the name
    window_->open_file(path_from_native(path.string()));
    const bool opened = wait_until([&] { return window_->current_document() != 0 && !window_->engine()->busy(); });
    QMessageBox* box = window_->findChild<QMessageBox*>();
    ASSERT_TRUE(opened) << (box ? box->text().toStdString() : std::string("(no message)"));
    const auto doc = window_->library().document(window_->current_document());
    ASSERT_TRUE(doc.has_value());
    EXPECT_EQ(path_to_native(doc->path).toStdString(), path.string());
}

TEST_F(MainWindowTest, UnreadableFileShowsOneMessage) {
    window_->open_file(QString::fromStdString((dir_ / "missing.txt").string()));
    QMessageBox* box = nullptr;
    ASSERT_TRUE(wait_until([&] {
        box = window_->findChild<QMessageBox*>();
        return box && box->isVisible();
    }));
    EXPECT_TRUE(box->text().contains("missing.txt")) << box->text().toStdString();
    box->close();
    EXPECT_EQ(window_->current_document(), 0);
}

TEST_F(MainWindowTest, AttentionPanelFollowsTheModelAndDocument) {
    const qint64 doc = open_and_wait("rivers.txt", river_paragraphs());
    window_->attention_dock()->show();
    ui::AttentionPanel* panel = window_->attention_panel();
    panel->tabs()->setCurrentIndex(1);
    QSignalSpy captured(window_->engine()->worker(), &EngineWorker::attention_captured);
    emit panel->capture_requested(1, 2);
    ASSERT_TRUE(wait_until([&] { return captured.count() == 1; }));
    QApplication::processEvents();
    EXPECT_EQ(captured.first().first().value<AttentionCaptureResult>().document_id, doc);
}

}  // namespace
}  // namespace precis::test

int main(int argc, char** argv) { return precis::test::run_ui_tests(argc, argv); }
