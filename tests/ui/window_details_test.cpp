// The small things a daily user meets (issue 15, item 8): Open Recent forgets files that
// failed to open, a document re-added from a new place shows that place, Export starts in
// Documents, passage percentages explain themselves, History shows whole entries, exports
// of the random test model's summaries say so, files a batch could not summarize show in
// the library, and Help opens the shipped user guide.
#include <QAction>
#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QStandardPaths>
#include <QTableView>
#include <QSignalSpy>
#include <QTextBrowser>
#include <QToolButton>

#include "app/library/library.h"
#include "app/worker/engine_thread.h"
#include "tests/ui/ui_test_support.h"
#include "ui/batch_dialog.h"
#include "ui/failed_files_view.h"
#include "ui/help_window.h"
#include "ui/library_model.h"
#include "ui/library_panel.h"
#include "ui/main_window.h"
#include "ui/summary_panel.h"

namespace precis::test {
namespace {

using ui::MainWindow;

// PRECIS_SHOTS_DIR set: saves the widget there for review (tests/ui/screenshots_test.cpp).
QStringList recent_files() { return QSettings().value(QStringLiteral("recent_files")).toStringList(); }

class WindowDetailsTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (!fixture_model_available()) GTEST_SKIP() << "fixture test model not found";
        use_fixture_model_settings();
        dir_ = scratch_dir("window-details");
        ui::MainWindowOptions o;
        o.library_path = QString::fromStdString((dir_ / "library.sqlite").string());
        window_ = std::make_unique<MainWindow>(o);
        window_->show();
        ASSERT_TRUE(wait_until([&] { return window_->model_info().has_value(); }));
    }
    void TearDown() override { window_.reset(); }

    qint64 open_and_wait(const std::filesystem::path& path) {
        window_->open_file(QString::fromStdString(path.string()));
        EXPECT_TRUE(wait_until([&] { return window_->current_document() != 0 && !window_->engine()->busy(); }));
        QApplication::processEvents();
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

TEST_F(WindowDetailsTest, OpenRecentListsOpenedFilesAndDropsOneThatFailedToOpen) {
    const auto path = write_text_file(dir_ / "recent.txt", river_paragraphs());
    const QString absolute = QString::fromStdString(path.string());
    open_and_wait(path);
    EXPECT_TRUE(recent_files().contains(absolute));

    std::filesystem::remove(path);
    window_->open_file(absolute);
    QMessageBox* box = nullptr;
    ASSERT_TRUE(wait_until([&] {
        box = window_->findChild<QMessageBox*>();
        return box && box->isVisible();
    }));
    box->close();
    EXPECT_FALSE(recent_files().contains(absolute));

    // A file that never opened is never offered either.
    window_->open_file(QString::fromStdString((dir_ / "never-there.txt").string()));
    ASSERT_TRUE(wait_until([&] { return !window_->engine()->busy(); }));
    QApplication::processEvents();
    EXPECT_FALSE(recent_files().contains(QString::fromStdString((dir_ / "never-there.txt").string())));
}

TEST_F(WindowDetailsTest, ADocumentReAddedFromANewPathShowsTheNewPath) {
    const auto first = write_text_file(dir_ / "old-place" / "essay.txt", river_paragraphs());
    const qint64 id = open_and_wait(first);
    const auto moved = dir_ / "new-place" / "essay.txt";
    std::filesystem::create_directories(moved.parent_path());
    std::filesystem::rename(first, moved);
    EXPECT_EQ(open_and_wait(moved), id);  // the same content: the same document
    const QString now = QString::fromStdString(moved.string());
    EXPECT_EQ(window_->library().document(id)->path, now);
    const QModelIndex row = window_->library_panel()->table()->currentIndex();
    ASSERT_TRUE(row.isValid());
    EXPECT_TRUE(row.data(Qt::ToolTipRole).toString().contains(now)) << row.data(Qt::ToolTipRole).toString().toStdString();
}

TEST_F(WindowDetailsTest, ExportStartsInTheDocumentsFolder) {
    const QString documents = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    ASSERT_FALSE(documents.isEmpty());
    QDir().mkpath(documents);
    const qint64 doc = open_and_wait(write_text_file(dir_ / "for-export.txt", river_paragraphs()));
    summarize_and_wait(doc, 1);
    EXPECT_EQ(window_->summary_panel()->export_start_path(), QDir(documents).filePath("for-export-summary.md"));
}

TEST_F(WindowDetailsTest, ExportsOfTheRandomTestModelsSummariesSaySo) {
    const qint64 doc = open_and_wait(write_text_file(dir_ / "random.txt", river_paragraphs()));
    summarize_and_wait(doc, 1);
    const qint64 summary = window_->summary_panel()->summary_id();
    ASSERT_NE(summary, 0);
    const QString md = window_->library().export_summary(summary, ExportFormat::Markdown);
    EXPECT_TRUE(md.contains("RANDOM test model")) << md.toStdString();
    const QJsonObject json =
        QJsonDocument::fromJson(window_->library().export_summary(summary, ExportFormat::Json).toUtf8()).object();
    EXPECT_TRUE(json.value("random_test_model").toBool());
    EXPECT_TRUE(json.value("warning").toString().contains("meaningless"));
}

TEST_F(WindowDetailsTest, PassagePercentagesExplainThemselvesAndHistoryShowsWholeEntries) {
    const qint64 doc = open_and_wait(write_text_file(dir_ / "passages.txt", river_paragraphs()));
    summarize_and_wait(doc, 1);
    ui::SummaryPanel* panel = window_->summary_panel();
    ASSERT_TRUE(wait_until([&] { return panel->passage_list()->count() > 0; }));
    for (int i = 0; i < panel->passage_list()->count(); ++i) {
        const QListWidgetItem* item = panel->passage_list()->item(i);
        if (!item->text().contains('%')) continue;  // "attention spread evenly": no percentage to explain
        EXPECT_TRUE(item->toolTip().contains("of the attention")) << item->toolTip().toStdString();
    }
    summarize_and_wait(doc, 2);
    summarize_and_wait(doc, 3);
    QListWidget* history = panel->history();
    ASSERT_EQ(history->count(), 3);
    // Every entry the same height, and the list tall enough for three of them.
    const int entry = history->visualItemRect(history->item(0)).height();
    EXPECT_GT(entry, 0);
    for (int i = 1; i < 3; ++i) EXPECT_EQ(history->visualItemRect(history->item(i)).height(), entry);
    EXPECT_GE(history->minimumHeight(), 3 * entry);
    window_->resize(1024, 700);
    QApplication::processEvents();
    // One line a passage, and at 1024x700 four of them in view (wrapped excerpts showed one
    // and a half); each entry's tooltip holds the excerpt the line cuts short.
    QListWidget* passages = panel->passage_list();
    ASSERT_GT(passages->count(), 0);
    const int line = passages->visualItemRect(passages->item(0)).height();
    EXPECT_LE(line, 2 * passages->fontMetrics().lineSpacing());
    EXPECT_GE(passages->viewport()->height(), 4 * line);
    const QListWidgetItem* first = passages->item(0);
    const QString excerpt = first->text().section(QStringLiteral(" — "), 1);
    if (!excerpt.isEmpty()) EXPECT_TRUE(first->toolTip().contains(excerpt.left(40).toHtmlEscaped())) << first->toolTip().toStdString();
    save_shot_if_asked(window_.get(), "main-window-history-1024x700.png");
}

TEST_F(WindowDetailsTest, FilesABatchCouldNotSummarizeShowInTheLibraryAfterTheRun) {
    write_text_file(dir_ / "inbox" / "good.txt", river_paragraphs());
    write_text_file(dir_ / "inbox" / "broken.pdf", "not a PDF at all");
    ui::BatchDialog* dialog = window_->open_batch_dialog();
    dialog->set_folder(QString::fromStdString((dir_ / "inbox").string()));
    QSignalSpy finished(dialog, &ui::BatchDialog::finished_batch);
    dialog->start();
    ASSERT_TRUE(wait_until([&] { return finished.count() == 1; }));
    QApplication::processEvents();
    ui::LibraryPanel* library = window_->library_panel();
    EXPECT_TRUE(library->failed_toggle()->isVisibleTo(library));
    EXPECT_EQ(library->failed_toggle()->text(), "Failed files (1)");
    ASSERT_EQ(library->failed_files()->count(), 1);
    EXPECT_TRUE(library->failed_files()->item(0)->text().startsWith("✗ broken.pdf")) << library->failed_files()->item(0)->text().toStdString();
    dialog->close();
}

TEST_F(WindowDetailsTest, HelpOpensTheShippedUserGuide) {
    QAction* guide = nullptr;
    for (QAction* menu : window_->menuBar()->actions())
        if (menu->menu())
            for (QAction* a : menu->menu()->actions())
                if (a->text().remove('&') == "User Guide") guide = a;
    ASSERT_NE(guide, nullptr);
    EXPECT_EQ(guide->shortcut(), QKeySequence(QKeySequence::HelpContents));
    guide->trigger();
    auto* help = window_->findChild<ui::HelpWindow*>();
    ASSERT_NE(help, nullptr);
    EXPECT_TRUE(help->isVisible());
    const QString text = help->browser()->toPlainText();
    EXPECT_TRUE(text.contains("Precis user guide"));
    EXPECT_TRUE(text.contains("Summarizing a folder"));
    EXPECT_TRUE(text.contains("Retry files that failed before"));
    // Triggering again raises the same window instead of opening a second one.
    guide->trigger();
    EXPECT_EQ(window_->findChildren<ui::HelpWindow*>().size(), 1);
    save_shot_if_asked(help, "help-window.png");
}

}  // namespace
}  // namespace precis::test

int main(int argc, char** argv) { return precis::test::run_ui_tests(argc, argv); }
