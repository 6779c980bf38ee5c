// The summary queue in the main window: Summarize on a second document during a run
// queues it (visible in the queue panel, waiting), the progress line names the document
// being summarized, a queued document does not pretend to be generating, a waiting entry
// can be removed (and is then never summarized), and the queue runs to the end in order.
#include <QDir>
#include <QLabel>
#include <QListWidget>
#include <QSemaphore>
#include <QSignalSpy>
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

// Holds the engine worker, on its own thread, at the first progress report whose stage is
// `stage`, until release() or the gate's end: what the window shows at that moment can be
// checked (and photographed) without racing the fixture model, which is fast.
class StageGate {
public:
    StageGate(EngineWorker* worker, const QString& stage) : state_(std::make_shared<Shared>()) {
        connection_ = QObject::connect(
            worker, &EngineWorker::progress, worker,
            [state = state_, stage](const QString& now) {
                if (now != stage || state->held.exchange(true)) return;
                state->released.tryAcquire(1, 60000);  // a test that forgets to release still ends
            },
            Qt::DirectConnection);
    }
    ~StageGate() {
        QObject::disconnect(connection_);
        release();
    }
    StageGate(const StageGate&) = delete;
    StageGate& operator=(const StageGate&) = delete;

    bool held() const { return state_->held; }
    void release() { state_->released.release(); }

private:
    struct Shared {
        std::atomic<bool> held{false};
        QSemaphore released;
    };
    std::shared_ptr<Shared> state_;
    QMetaObject::Connection connection_;
};

int count_in(const ui::RunQueuePanel* queue, State state) {
    return int(std::count_if(queue->entries().begin(), queue->entries().end(),
                             [state](const ui::RunQueuePanel::Entry& e) { return e.state == state; }));
}

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
    save_shot_if_asked(window_.get(), "queue.png");  // the queue under the library, the named progress line

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


// Summaries queued behind a run start together when it ends: one batched request, every
// entry running at once, each done as its summary arrives.
TEST_F(RunQueueTest, WaitingSummariesStartTogetherAndEachEndsDone) {
    const qint64 a = open_and_wait("alpha.txt", river_paragraphs());
    const qint64 b = open_and_wait("bravo.txt", river_paragraphs() + "Bravo: the river meets the sea.\n");
    const qint64 c = open_and_wait("charlie.txt", river_paragraphs() + "Charlie: the delta keeps growing.\n");
    const qint64 d = open_and_wait("delta.txt", river_paragraphs() + "Delta: the channels braid and part.\n");
    ui::RunQueuePanel* queue = window_->run_queue();
    StageGate gate(window_->engine()->worker(), "0 of 3 done");  // the batch, before any summary
    QSignalSpy partial(window_->engine()->worker(), &EngineWorker::partial_summary);
    // No event loop turns between these calls: alpha's run cannot end before the others queue.
    window_->show_document(a);
    window_->summarize_current();
    for (const qint64 doc : {b, c, d}) {
        window_->show_document(doc);
        window_->summarize_current();
    }
    ASSERT_EQ(queue->entries().size(), 4);
    EXPECT_EQ(count_in(queue, State::Waiting), 3);

    // Alpha's run ends; bravo, charlie and delta start as one request.
    ASSERT_TRUE(wait_until([&] {
        return gate.held() && window_->run_status()->stage_label()->text().endsWith("0 of 3 done");
    }));
    EXPECT_EQ(queue->entries()[0].state, State::Done);
    EXPECT_EQ(count_in(queue, State::Running), 3);
    EXPECT_EQ(window_->run_status()->stage_label()->text(), "Summarizing 3 documents together: 0 of 3 done");
    EXPECT_TRUE(shows_generating(window_->summary_panel()));  // delta, the shown one, is among them
    // For looking at: the queue with three entries running, the progress line saying so.
    QDir().mkpath(QStringLiteral("/tmp/shots"));
    for (const QSize size : {QSize(1024, 700), QSize(1320, 820)}) {
        window_->resize(size);
        QApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
        window_->grab().save(QStringLiteral("/tmp/shots/run-queue-batch-running-%1x%2.png").arg(size.width()).arg(size.height()));
    }
    window_->summarize_current();  // delta is not queued again
    EXPECT_EQ(queue->entries().size(), 4);
    const int partial_before_batch = int(partial.count());
    gate.release();

    ASSERT_TRUE(wait_until([&] { return !window_->engine()->busy() && count_in(queue, State::Done) == 4; }));
    for (const qint64 doc : {a, b, c, d}) EXPECT_EQ(window_->library().summaries_for(doc).size(), 1) << doc;
    EXPECT_EQ(partial.count(), partial_before_batch);  // the batch streamed nothing
    // The shown document's summary is shown, as after a run of its own.
    EXPECT_FALSE(shows_generating(window_->summary_panel()));
    EXPECT_EQ(window_->summary_panel()->summary_id(), window_->library().summaries_for(d).first().id);
    EXPECT_EQ(window_->summary_panel()->text_view()->toPlainText(), window_->library().summaries_for(d).first().summary);
    QApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    window_->grab().save(QStringLiteral("/tmp/shots/run-queue-batch-done.png"));
}

TEST_F(RunQueueTest, CancelDuringABatchKeepsTheFinishedAndCancelsTheRest) {
    const qint64 a = open_and_wait("alpha.txt", river_paragraphs());
    const QVector<qint64> batch = {open_and_wait("bravo.txt", river_paragraphs() + "Bravo.\n"),
                                   open_and_wait("charlie.txt", river_paragraphs() + "Charlie.\n"),
                                   open_and_wait("delta.txt", river_paragraphs() + "Delta.\n")};
    ui::RunQueuePanel* queue = window_->run_queue();
    StageGate gate(window_->engine()->worker(), "1 of 3 done");  // one summary stored, two not
    window_->show_document(a);
    window_->summarize_current();
    for (const qint64 doc : batch) {
        window_->show_document(doc);
        window_->summarize_current();
    }
    ASSERT_TRUE(wait_until([&] { return gate.held() && count_in(queue, State::Done) == 2; }));
    EXPECT_EQ(count_in(queue, State::Running), 2);
    window_->cancel_run();
    gate.release();
    ASSERT_TRUE(wait_until([&] { return !window_->engine()->busy(); }));
    QApplication::processEvents();
    EXPECT_EQ(count_in(queue, State::Done), 2);
    EXPECT_EQ(count_in(queue, State::Cancelled), 2);
    // The whole message is the tooltip (the bar's text is shortened to its room).
    EXPECT_TRUE(window_->statusBar()->toolTip().contains("is kept")) << window_->statusBar()->toolTip().toStdString();
    qint64 cancelled = 0;
    for (const ui::RunQueuePanel::Entry& e : queue->entries()) {
        EXPECT_EQ(window_->library().summaries_for(e.document_id).size(), e.state == State::Done ? 1 : 0) << e.name.toStdString();
        if (e.state == State::Cancelled) cancelled = e.document_id;
    }
    ASSERT_NE(cancelled, 0);

    // A cancelled one summarized again on its own.
    window_->show_document(cancelled);
    window_->summarize_current();
    EXPECT_EQ(window_->run_status()->stage_label()->text().left(12), "Summarizing ");
    ASSERT_TRUE(wait_until([&] { return !window_->engine()->busy() && window_->library().summaries_for(cancelled).size() == 1; }));
    QApplication::processEvents();
    EXPECT_EQ(queue->entries().last().document_id, cancelled);
    EXPECT_EQ(queue->entries().last().state, State::Done);
}

TEST_F(RunQueueTest, ADocumentThatFailsInABatchFailsAlone) {
    const qint64 a = open_and_wait("alpha.txt", river_paragraphs());
    const qint64 b = open_and_wait("bravo.txt", river_paragraphs() + "Bravo.\n");
    const qint64 c = open_and_wait("charlie.txt", river_paragraphs() + "Charlie.\n");
    const qint64 d = open_and_wait("delta.txt", river_paragraphs() + "Delta.\n");
    ui::RunQueuePanel* queue = window_->run_queue();
    StageGate gate(window_->engine()->worker(), "0 of 3 done");
    for (const qint64 doc : {a, b, c, d}) {
        window_->show_document(doc);
        window_->summarize_current();
    }
    ASSERT_TRUE(wait_until([&] { return gate.held(); }));
    // Charlie leaves the library after the batch read it: its summary cannot be stored.
    ASSERT_TRUE(window_->library().delete_document(c));
    const auto box = answer_next_box(window_.get(), QMessageBox::Ok);
    gate.release();
    ASSERT_TRUE(wait_until([&] { return !window_->engine()->busy() && box->seen; }));
    QApplication::processEvents();
    EXPECT_TRUE(box->text.startsWith("charlie.txt: ")) << box->text.toStdString();
    ASSERT_EQ(queue->entries().size(), 4);
    for (const ui::RunQueuePanel::Entry& e : queue->entries())
        EXPECT_EQ(e.state, e.document_id == c ? State::Failed : State::Done) << e.name.toStdString();
    for (const qint64 doc : {a, b, d}) EXPECT_EQ(window_->library().summaries_for(doc).size(), 1) << doc;
}

}  // namespace
}  // namespace precis::test

int main(int argc, char** argv) { return precis::test::run_ui_tests(argc, argv); }
