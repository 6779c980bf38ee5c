// The main window without a mouse, and without losing work by accident: Tab walks
// library -> document -> summary -> passages -> history and is not trapped in the library
// table; F6 / Shift+F6 cycle the panes; the summary's Copy / Export / Delete have keys; Esc
// and quitting ask first when a run has gone on for a while or a batch is running.
#include <QClipboard>
#include <QFileDialog>
#include <QListWidget>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTextBrowser>
#include <QTimer>

#include "app/library/library.h"
#include "app/worker/engine_thread.h"
#include "tests/ui/ui_test_support.h"
#include "ui/batch_dialog.h"
#include "ui/document_view.h"
#include "ui/library_panel.h"
#include "ui/main_window.h"
#include "ui/summary_panel.h"

namespace precis::test {
namespace {

using ui::MainWindow;

class MainWindowKeysTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (!fixture_model_available()) GTEST_SKIP() << "fixture test model not found";
        use_fixture_model_settings();
        dir_ = scratch_dir("main-window-keys");
        ui::MainWindowOptions o;
        o.library_path = QString::fromStdString((dir_ / "library.sqlite").string());
        window_ = std::make_unique<MainWindow>(o);
        window_->resize(1024, 700);
        window_->show();
        window_->activateWindow();
        ASSERT_TRUE(QTest::qWaitForWindowActive(window_.get()));
        ASSERT_TRUE(wait_until([&] { return window_->model_info().has_value() && !window_->engine()->busy(); }));
    }
    void TearDown() override { window_.reset(); }

    qint64 open_and_wait(const std::string& name, const std::string& text) {
        const auto path = write_text_file(dir_ / name, text);
        window_->open_file(QString::fromStdString(path.string()));
        EXPECT_TRUE(wait_until([&] { return window_->current_document() != 0 && !window_->engine()->busy(); }));
        return window_->current_document();
    }
    void summarize_and_wait(qint64 doc) {
        const auto before = window_->library().summaries_for(doc).size();
        window_->summarize_current();
        EXPECT_TRUE(wait_until([&] { return window_->library().summaries_for(doc).size() > before && !window_->engine()->busy(); }));
        QApplication::processEvents();
    }
    void press(int key, Qt::KeyboardModifiers mods = Qt::NoModifier) {
        QWidget* target = QApplication::focusWidget() ? QApplication::focusWidget() : window_.get();
        QTest::keyClick(target, Qt::Key(key), mods);
        QApplication::processEvents();
    }

    std::filesystem::path dir_;
    std::unique_ptr<MainWindow> window_;
};

TEST_F(MainWindowKeysTest, TabWalksTheChainAndIsNotTrappedInTheLibrary) {
    open_and_wait("first.txt", river_paragraphs());
    const qint64 doc = open_and_wait("second.txt", river_paragraphs() + "The delta is where the river gives up.\n");
    summarize_and_wait(doc);
    QTableView* table = window_->library_panel()->table();
    ASSERT_EQ(table->model()->rowCount(), 2);
    EXPECT_FALSE(table->tabKeyNavigation());
    table->setFocus();
    ASSERT_EQ(QApplication::focusWidget(), table);

    QList<QWidget*> visited;
    for (int i = 0; i < 10; ++i) {
        press(Qt::Key_Tab);
        visited << QApplication::focusWidget();
    }
    // The first Tab leaves the table (no cell or row hopping, no other document opened).
    EXPECT_EQ(visited.first(), window_->document_view()->text_view());
    EXPECT_EQ(window_->current_document(), doc);
    const QList<QWidget*> chain = {window_->document_view()->text_view(), window_->summary_panel()->text_view(),
                                   window_->summary_panel()->passage_list(), window_->summary_panel()->history()};
    qsizetype last = -1;
    for (QWidget* w : chain) {
        const qsizetype at = visited.indexOf(w);
        ASSERT_GE(at, 0) << "never reached " << w->metaObject()->className();
        EXPECT_GT(at, last) << w->metaObject()->className() << " out of order";
        last = at;
    }

    window_->summary_panel()->passage_list()->setFocus();
    save_shot_if_asked(window_.get(), "keys-focus.png");  // the focus frame on the passages

    // Shift+Tab walks back: summary text -> document text -> library table.
    window_->summary_panel()->text_view()->setFocus();
    press(Qt::Key_Backtab, Qt::ShiftModifier);
    EXPECT_EQ(QApplication::focusWidget(), window_->document_view()->text_view());
    press(Qt::Key_Backtab, Qt::ShiftModifier);
    EXPECT_EQ(QApplication::focusWidget(), table);
}

TEST_F(MainWindowKeysTest, F6CyclesThePanes) {
    open_and_wait("rivers.txt", river_paragraphs());
    window_->library_panel()->table()->setFocus();
    press(Qt::Key_F6);
    EXPECT_TRUE(window_->document_view()->isAncestorOf(QApplication::focusWidget()));
    press(Qt::Key_F6);
    EXPECT_TRUE(window_->summary_panel()->isAncestorOf(QApplication::focusWidget()));
    press(Qt::Key_F6);
    EXPECT_EQ(QApplication::focusWidget(), window_->library_panel()->table());
    press(Qt::Key_F6, Qt::ShiftModifier);
    EXPECT_TRUE(window_->summary_panel()->isAncestorOf(QApplication::focusWidget()));
}

TEST_F(MainWindowKeysTest, SummaryShortcutsCopyExportAndDelete) {
    const qint64 doc = open_and_wait("rivers.txt", river_paragraphs());
    summarize_and_wait(doc);
    window_->document_view()->text_view()->setFocus();
    QApplication::clipboard()->clear();
    press(Qt::Key_C, Qt::ControlModifier | Qt::ShiftModifier);
    EXPECT_EQ(QApplication::clipboard()->text(), window_->library().summaries_for(doc).first().summary);

    // Ctrl+E opens the save dialog (dismissed here).
    bool dialog_seen = false;
    QTimer::singleShot(200, [&] {
        if (auto* d = qobject_cast<QFileDialog*>(QApplication::activeModalWidget())) {
            dialog_seen = true;
            d->reject();
        }
    });
    press(Qt::Key_E, Qt::ControlModifier);
    EXPECT_TRUE(dialog_seen);
    window_->activateWindow();
    ASSERT_TRUE(QTest::qWaitForWindowActive(window_.get()));

    auto answer = answer_next_box(window_.get(), QMessageBox::Yes);
    press(Qt::Key_Delete, Qt::ControlModifier | Qt::ShiftModifier);
    EXPECT_TRUE(answer->seen);
    EXPECT_TRUE(window_->library().summaries_for(doc).isEmpty());
}

TEST_F(MainWindowKeysTest, EscCancelsAShortRunWithoutAsking) {
    const qint64 doc = open_and_wait("rivers.txt", river_paragraphs());
    QSignalSpy cancelled(window_->engine()->worker(), &EngineWorker::cancelled);
    WorkerGate gate(window_->engine()->worker());  // the run cannot end before Esc
    window_->summarize_current();
    ASSERT_TRUE(window_->engine()->busy());
    press(Qt::Key_Escape);  // well under kConfirmLosingWorkAfterMs
    gate.release();
    EXPECT_EQ(QApplication::activeModalWidget(), nullptr);
    ASSERT_TRUE(wait_until([&] { return !window_->engine()->busy(); }));
    EXPECT_GE(cancelled.count(), 1);
    EXPECT_TRUE(window_->library().summaries_for(doc).isEmpty());
}

TEST_F(MainWindowKeysTest, EscAsksBeforeCancellingALongRunAndNoKeepsIt) {
    const qint64 doc = open_and_wait("rivers.txt", river_paragraphs());
    window_->set_confirm_after_ms(0);  // every run counts as long
    window_->summarize_current();
    auto answer = answer_next_box(window_.get(), QMessageBox::No);
    press(Qt::Key_Escape);
    EXPECT_TRUE(answer->seen);
    EXPECT_TRUE(answer->text.contains("Cancel it?")) << answer->text.toStdString();
    ASSERT_TRUE(wait_until([&] { return !window_->engine()->busy(); }));
    EXPECT_EQ(window_->library().summaries_for(doc).size(), 1);  // the run went on and was stored
}

TEST_F(MainWindowKeysTest, QuitAsksWhileARunIsGoingOn) {
    open_and_wait("rivers.txt", river_paragraphs());
    window_->set_confirm_after_ms(0);
    window_->summarize_current();
    auto answer = answer_next_box(window_.get(), QMessageBox::No);
    press(Qt::Key_Q, Qt::ControlModifier);
    EXPECT_TRUE(answer->seen);
    EXPECT_TRUE(answer->text.contains("summary is being made")) << answer->text.toStdString();
    EXPECT_TRUE(window_->isVisible());
    ASSERT_TRUE(wait_until([&] { return !window_->engine()->busy(); }));
    // Nothing running: Ctrl+Q quits without a question.
    window_->activateWindow();  // the offscreen platform does not give it back after the box
    ASSERT_TRUE(QTest::qWaitForWindowActive(window_.get()));
    press(Qt::Key_Q, Qt::ControlModifier);
    EXPECT_FALSE(window_->isVisible());
}

TEST_F(MainWindowKeysTest, QuitAsksWhileABatchRuns) {
    for (int i = 0; i < 4; ++i) write_text_file(dir_ / "batch" / ("doc" + std::to_string(i) + ".txt"), river_paragraphs());
    ui::BatchDialog* batch = window_->open_batch_dialog();
    batch->set_folder(QString::fromStdString((dir_ / "batch").string()));
    batch->start();
    ASSERT_TRUE(batch->running());
    window_->activateWindow();
    auto answer = answer_next_box(window_.get(), QMessageBox::No);
    EXPECT_FALSE(window_->close());
    EXPECT_TRUE(answer->seen);
    EXPECT_TRUE(answer->text.contains("batch is running")) << answer->text.toStdString();
    EXPECT_TRUE(window_->isVisible());
    ASSERT_TRUE(wait_until([&] { return !batch->running(); }));
}

// Ctrl+Q with the batch dialog focused quits Precis as from the main window: the same
// question about the running batch, and No keeps both the window and the batch.
TEST_F(MainWindowKeysTest, CtrlQInTheBatchDialogAsksAsTheMainWindowDoes) {
    for (int i = 0; i < 4; ++i) write_text_file(dir_ / "batch" / ("doc" + std::to_string(i) + ".txt"), river_paragraphs());
    ui::BatchDialog* batch = window_->open_batch_dialog();
    batch->set_folder(QString::fromStdString((dir_ / "batch").string()));
    std::unique_ptr<WorkerGate> gate;  // the batch cannot end before Ctrl+Q
    QObject::connect(batch, &ui::BatchDialog::engine_started, batch,
                     [&](EngineWorker* w) { gate = std::make_unique<WorkerGate>(w); });
    batch->start();
    ASSERT_TRUE(batch->running());
    batch->activateWindow();
    ASSERT_TRUE(QTest::qWaitForWindowActive(batch));
    auto answer = answer_next_box(window_.get(), QMessageBox::No);
    QTest::keyClick(batch, Qt::Key_Q, Qt::ControlModifier);
    EXPECT_TRUE(answer->seen);
    EXPECT_TRUE(answer->text.contains("batch is running")) << answer->text.toStdString();
    EXPECT_TRUE(window_->isVisible());
    EXPECT_TRUE(batch->isVisible());
    gate->release();
    ASSERT_TRUE(wait_until([&] { return !batch->running(); }));
}

}  // namespace
}  // namespace precis::test

int main(int argc, char** argv) { return precis::test::run_ui_tests(argc, argv); }
