// The summary queue in the main window: Summarize on a second document during a run
// queues it (visible in the queue panel, waiting), the progress line names the document
// being summarized, a queued document does not pretend to be generating, a waiting entry
// can be removed (and is then never summarized), and the queue runs to the end in order.
#include <QLabel>
#include <QListWidget>
#include <QStatusBar>
#include <QTextBrowser>

#include "app/library/library.h"
#include "app/worker/engine_thread.h"
#include "tests/ui/ui_test_support.h"
#include "ui/main_window.h"
#include "ui/run_queue_panel.h"
#include "ui/run_status.h"
#include "ui/summary_panel.h"

namespace precis::test {
namespace {

using ui::MainWindow;
using State = ui::RunQueuePanel::State;

class RunQueueTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (!fixture_model_available()) GTEST_SKIP() << "fixture test model not found";
        use_fixture_model_settings();
        dir_ = scratch_dir("run-queue");
        ui::MainWindowOptions o;
        o.library_path = QString::fromStdString((dir_ / "library.sqlite").string());
        window_ = std::make_unique<MainWindow>(o);
        window_->resize(1024, 700);
        window_->show();
        ASSERT_TRUE(wait_until([&] { return window_->model_info().has_value() && !window_->engine()->busy(); }));
    }
    void TearDown() override { window_.reset(); }

    qint64 open_and_wait(const std::string& name, const std::string& text) {
        const auto path = write_text_file(dir_ / name, text);
        window_->open_file(QString::fromStdString(path.string()));
        EXPECT_TRUE(wait_until([&] { return !window_->engine()->busy() && window_->library().document(window_->current_document()) &&
                                            window_->library().document(window_->current_document())->path.endsWith(QString::fromStdString(name)); }));
        return window_->current_document();
    }

    static bool shows_generating(ui::SummaryPanel* panel) {
        for (QLabel* l : panel->findChildren<QLabel*>())
            if (l->text().contains("Generating")) return true;
        return false;
    }

    std::filesystem::path dir_;
    std::unique_ptr<MainWindow> window_;
};

TEST_F(RunQueueTest, SecondSummarizeQueuesAndTheQueueRunsInOrder) {
    const qint64 a = open_and_wait("alpha.txt", river_paragraphs());
    const qint64 b = open_and_wait("bravo.txt", river_paragraphs() + "Bravo: the river meets the sea.\n");
    const qint64 c = open_and_wait("charlie.txt", river_paragraphs() + "Charlie: the delta keeps growing.\n");
    ui::RunQueuePanel* queue = window_->run_queue();
    QStringList progress_lines;
    QObject::connect(window_->engine()->worker(), &EngineWorker::progress, window_.get(),
                     [&] { progress_lines << window_->run_status()->stage_label()->text(); });

    // No event loop turns between these calls: the first run cannot end before the others queue.
    window_->show_document(a);
    window_->summarize_current();
    EXPECT_EQ(window_->run_status()->stage_label()->text(), "Summarizing alpha.txt");
    EXPECT_FALSE(queue->isVisible());  // one run is no queue
    window_->show_document(b);
    window_->summarize_current();
    EXPECT_FALSE(shows_generating(window_->summary_panel()));  // b waits; it is not being generated
    EXPECT_TRUE(window_->summary_panel()->text_view()->toPlainText().isEmpty());
    window_->show_document(c);
    window_->summarize_current();
    window_->summarize_current();  // twice: not queued twice

    ASSERT_EQ(queue->entries().size(), 3);
    EXPECT_TRUE(queue->isVisible());
    EXPECT_EQ(queue->entries()[0].state, State::Running);
    EXPECT_EQ(queue->entries()[1].state, State::Waiting);
    EXPECT_EQ(queue->entries()[2].state, State::Waiting);
    EXPECT_TRUE(queue->list()->item(1)->text().contains("bravo.txt — waiting"));
    EXPECT_FALSE(queue->remove(queue->entries()[0].id));  // the running one is cancelled, not removed

    // Remove charlie with the keyboard: select it in the list, press Delete.
    queue->list()->setFocus();
    queue->list()->setCurrentRow(2);
    EXPECT_TRUE(window_->statusBar()->currentMessage().contains("charlie.txt")) << window_->statusBar()->currentMessage().toStdString();
    QTest::keyClick(queue->list(), Qt::Key_Delete);
    ASSERT_EQ(queue->entries().size(), 2);
    // The status bar no longer says charlie waits: its entry is gone.
    EXPECT_FALSE(window_->statusBar()->currentMessage().contains("charlie.txt")) << window_->statusBar()->currentMessage().toStdString();
    QApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);  // lay out the shown panel, run nothing
    window_->grab().save(QStringLiteral("/tmp/precis-queue.png"));  // the queue under the library, the named progress line

    ASSERT_TRUE(wait_until([&] {
        return !window_->engine()->busy() && window_->library().summaries_for(a).size() == 1 &&
               window_->library().summaries_for(b).size() == 1;
    }));
    QTest::qWait(200);
    EXPECT_TRUE(window_->library().summaries_for(c).isEmpty());
    EXPECT_EQ(queue->entries()[0].state, State::Done);
    EXPECT_EQ(queue->entries()[1].state, State::Done);
    // Both runs' progress lines named their document.
    EXPECT_TRUE(progress_lines.filter("Summarizing alpha.txt: ").size() > 0) << progress_lines.join('\n').toStdString();
    EXPECT_TRUE(progress_lines.filter("Summarizing bravo.txt: ").size() > 0) << progress_lines.join('\n').toStdString();
    // The shown document (charlie) was never summarized; its pane shows no run.
    EXPECT_FALSE(shows_generating(window_->summary_panel()));
}

TEST_F(RunQueueTest, CancelStopsTheRunningOneAndTheNextStarts) {
    const qint64 a = open_and_wait("alpha.txt", river_paragraphs());
    const qint64 b = open_and_wait("bravo.txt", river_paragraphs() + "Bravo.\n");
    WorkerGate gate(window_->engine()->worker());  // alpha's run cannot end before the cancel
    window_->show_document(a);
    window_->summarize_current();
    window_->show_document(b);
    window_->summarize_current();
    window_->cancel_run();
    gate.release();
    ASSERT_TRUE(wait_until([&] { return !window_->engine()->busy() && window_->library().summaries_for(b).size() == 1; }));
    EXPECT_TRUE(window_->library().summaries_for(a).isEmpty());
    EXPECT_EQ(window_->run_queue()->entries()[0].state, State::Cancelled);
    EXPECT_EQ(window_->run_queue()->entries()[1].state, State::Done);
}

}  // namespace
}  // namespace precis::test

int main(int argc, char** argv) { return precis::test::run_ui_tests(argc, argv); }
