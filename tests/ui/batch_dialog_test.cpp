// The batch dialog on a folder of good and bad files: every good file is summarized into
// the library, every bad one is reported with its reason, the progress bars reach the end,
// unsupported files are ignored, and running the same folder again resumes (does nothing new).
// After cancel, resume and retry the report still counts every file of the job and keeps
// earlier failures with their reasons; the dialog names the model it will use.
#include <limits>

#include <QElapsedTimer>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QTimer>
#include <QListWidget>
#include <QProgressBar>
#include <QSignalSpy>
#include <QTest>

#include "app/batch/batch_counts.h"
#include "app/library/library.h"
#include "app/models/model_store.h"
#include "app/paths.h"
#include "app/worker/engine_worker.h"
#include "app/worker/model_cache.h"
#include "tests/ui/ui_test_support.h"
#include "ui/batch_dialog.h"

namespace precis::test {
namespace {

class BatchDialogTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (!fixture_model_available()) GTEST_SKIP() << "fixture test model not found";
        dir_ = scratch_dir("batch-dialog");
        folder_ = dir_ / "inbox";
        write_text_file(folder_ / "a-rivers.txt", river_paragraphs());
        write_text_file(folder_ / "b-bread.md", "# Bread\n\nFlour, water, salt and time make bread. Knead until smooth.\n");
        write_text_file(folder_ / "nested" / "c-tides.txt", "Tides rise and fall twice a day because of the moon.\n");
        write_text_file(folder_ / "d-empty.txt", "   \n");
        write_text_file(folder_ / "e-broken.pdf", "this is not a PDF at all");
        write_text_file(folder_ / "f-ignored.docx", "not a supported type");
        library_path_ = QString::fromStdString((dir_ / "library.sqlite").string());
    }

    std::unique_ptr<ui::BatchDialog> make_dialog() {
        auto d = std::make_unique<ui::BatchDialog>(library_path_, std::make_shared<ModelCache>(), fixture_model_settings());
        d->set_folder(QString::fromStdString(folder_.string()));
        d->show();
        return d;
    }

    // Starts the batch with its worker held at its first progress report (release the gate).
    static std::unique_ptr<WorkerGate> start_held(ui::BatchDialog& dialog) {
        std::unique_ptr<WorkerGate> gate;
        const QMetaObject::Connection c = QObject::connect(
            &dialog, &ui::BatchDialog::engine_started, &dialog,
            [&](EngineWorker* w) { gate = std::make_unique<WorkerGate>(w); });  // emitted inside start()
        dialog.start();
        QObject::disconnect(c);
        return gate;
    }

    std::filesystem::path dir_, folder_;
    QString library_path_;
};

TEST_F(BatchDialogTest, SummarizesGoodFilesAndReportsBadOnes) {
    auto dialog = make_dialog();
    QSignalSpy finished(dialog.get(), &ui::BatchDialog::finished_batch);
    dialog->start();
    EXPECT_TRUE(dialog->running());
    ASSERT_TRUE(wait_until([&] { return finished.count() == 1; }));
    EXPECT_FALSE(dialog->running());
    const BatchOutcome o = finished.first().first().value<BatchOutcome>();
    EXPECT_EQ(o.total, 4);  // not recursive: a, b, d, e (the .docx is not a document)
    EXPECT_EQ(o.done_now, 2);
    ASSERT_EQ(o.failures.size(), 2);
    EXPECT_TRUE(o.failures[0].path.endsWith("d-empty.txt"));
    EXPECT_TRUE(o.failures[1].path.endsWith("e-broken.pdf"));
    for (const auto& f : o.failures) EXPECT_FALSE(f.reason.isEmpty());
    EXPECT_EQ(dialog->overall_bar()->value(), dialog->overall_bar()->maximum());
    EXPECT_EQ(dialog->log()->count(), 4);
    const QString report = dialog->report()->text();
    EXPECT_TRUE(report.contains("4 files: 2 summarized (2 now), 2 failed (2 now)")) << report.toStdString();
    EXPECT_TRUE(report.contains("marked ✗ above")) << report.toStdString();
    // Each failure is a line of the list with its reason (the report only counts them).
    for (const auto& f : o.failures) {
        const QString name = QFileInfo(f.path).fileName();
        const auto lines = dialog->log()->findItems(name, Qt::MatchContains);
        ASSERT_EQ(lines.size(), 1) << name.toStdString();
        EXPECT_TRUE(lines.first()->text().startsWith("✗")) << lines.first()->text().toStdString();
        EXPECT_TRUE(lines.first()->text().contains(f.reason)) << lines.first()->text().toStdString();
    }

    Library library(library_path_);
    EXPECT_EQ(library.documents().size(), 2);
    for (const DocumentListItem& item : library.documents()) {
        EXPECT_EQ(item.summary_count, 1);
        // Each summary is stored with the passages it drew on, ready to highlight.
        const QVector<SummaryRecord> summaries = library.summaries_for(item.document.id);
        ASSERT_EQ(summaries.size(), 1);
        ASSERT_TRUE(summaries[0].passages.has_value());
        EXPECT_FALSE(summaries[0].passages->isEmpty());
    }
}

TEST_F(BatchDialogTest, RecursiveRunThenResumeAddsNothingTwice) {
    {
        auto dialog = make_dialog();
        dialog->set_recursive(true);
        QSignalSpy finished(dialog.get(), &ui::BatchDialog::finished_batch);
        dialog->start();
        ASSERT_TRUE(wait_until([&] { return finished.count() == 1; }));
        const BatchOutcome o = finished.first().first().value<BatchOutcome>();
        EXPECT_EQ(o.total, 5);
        EXPECT_EQ(o.done_now, 3);
    }
    auto again = make_dialog();
    again->set_recursive(true);
    QSignalSpy finished(again.get(), &ui::BatchDialog::finished_batch);
    again->start();
    ASSERT_TRUE(wait_until([&] { return finished.count() == 1; }));
    const BatchOutcome o = finished.first().first().value<BatchOutcome>();
    EXPECT_TRUE(o.resumed);
    EXPECT_EQ(o.done_before, 3);
    EXPECT_EQ(o.done_now, 0);
    Library library(library_path_);
    int summaries = 0;
    for (const DocumentListItem& item : library.documents()) summaries += item.summary_count;
    EXPECT_EQ(summaries, 3);
}

TEST_F(BatchDialogTest, CancelStopsAndKeepsFinishedWork) {
    auto dialog = make_dialog();
    QSignalSpy finished(dialog.get(), &ui::BatchDialog::finished_batch);
    ui::BatchDialog* d = dialog.get();
    // Cancel as soon as the first file is done.
    QObject::connect(d, &ui::BatchDialog::library_changed, d, [d] { d->cancel(); });
    dialog->start();
    ASSERT_TRUE(wait_until([&] { return finished.count() == 1; }));
    const BatchOutcome o = finished.first().first().value<BatchOutcome>();
    EXPECT_GE(o.done_now, 1);
    Library library(library_path_);
    int summaries = 0;
    for (const DocumentListItem& item : library.documents()) summaries += item.summary_count;
    EXPECT_EQ(summaries, o.done_now);  // what finished is kept, nothing half-done is
}

// PRECIS_SHOTS_DIR set: saves the widget there for review (tests/ui/screenshots_test.cpp).
BatchCounts counts_of(const BatchOutcome& o) {
    BatchCounts c;
    c.total = o.total;
    c.done_before = o.done_before;
    c.done_now = o.done_now;
    c.kept = o.kept;
    c.failed_before = int(o.failed_before.size());
    c.failed_now = int(o.failures.size());
    return c;
}

TEST_F(BatchDialogTest, NamesTheModelAndSettingsItWillUse) {
    auto dialog = make_dialog();
    const QString line = dialog->settings_line()->text();
    EXPECT_TRUE(line.contains("bart-tiny-realvocab")) << line.toStdString();
    EXPECT_TRUE(line.contains("RANDOM")) << line.toStdString();  // the fixture model is flagged as meaningless
    EXPECT_TRUE(line.contains("device cpu")) << line.toStdString();
    EngineSettings extractive = fixture_model_settings();
    extractive.method = "extractive";
    extractive.extractive_sentences = 5;
    dialog->set_settings(extractive);
    EXPECT_TRUE(dialog->settings_line()->text().startsWith("Extractive")) << dialog->settings_line()->text().toStdString();
    EXPECT_TRUE(dialog->settings_line()->text().contains("5 sentences"));
}

TEST_F(BatchDialogTest, ReportCountsTheWholeJobAfterCancelResumeAndRetry) {
    auto run = [&](bool retry, bool cancel_after_first) {
        auto dialog = make_dialog();
        dialog->set_retry_failed(retry);
        ui::BatchDialog* d = dialog.get();
        // Cancelled in the engine's own thread as the first summary is stored: a cancel from
        // the window's event loop came too late when the machine was busy (all four files were
        // done before it ran), and the batch finished instead of stopping. (The files that
        // cannot be read fail first, as they are read, before the model runs.)
        if (cancel_after_first)
            QObject::connect(d, &ui::BatchDialog::engine_started, d, [](EngineWorker* w) {
                QObject::connect(
                    w, &EngineWorker::batch_file_finished, w,
                    [w](const QString&, bool ok) {
                        if (ok) w->request_cancel(std::numeric_limits<quint64>::max());
                    },
                    Qt::DirectConnection);
            });
        QSignalSpy finished(d, &ui::BatchDialog::finished_batch);
        d->start();
        EXPECT_TRUE(wait_until([&] { return finished.count() == 1; }));
        return std::make_pair(std::move(dialog), finished.first().first().value<BatchOutcome>());
    };

    // Cancelled after the first file: what is left is counted as not reached.
    auto [first, o1] = run(false, true);
    EXPECT_TRUE(o1.cancelled);
    EXPECT_EQ(o1.total, 4);
    EXPECT_GE(o1.done_now, 1);
    const BatchCounts c1 = counts_of(o1);
    EXPECT_GT(c1.not_reached(), 0);
    EXPECT_TRUE(first->report()->text().contains(QStringLiteral("%1 not reached yet").arg(c1.not_reached())))
        << first->report()->text().toStdString();
    EXPECT_TRUE(first->report()->text().contains("Start again to resume"));

    // Resumed to the end: the two bad files fail.
    auto [second, o2] = run(false, false);
    EXPECT_TRUE(o2.resumed);
    EXPECT_EQ(o2.done_before + o2.done_now, 2);
    ASSERT_EQ(o2.failures.size() + o2.failed_before.size(), 2);
    EXPECT_EQ(counts_of(o2).not_reached(), 0);

    // Resumed again: nothing runs, yet the report still names both failures with their reasons.
    auto [third, o3] = run(false, false);
    EXPECT_EQ(o3.done_now, 0);
    EXPECT_TRUE(o3.failures.isEmpty());
    ASSERT_EQ(o3.failed_before.size(), 2);
    const QString report = third->report()->text();
    EXPECT_TRUE(report.contains("4 files: 2 summarized (2 before), 2 failed (2 before)")) << report.toStdString();
    EXPECT_TRUE(report.contains("Retry files that failed before")) << report.toStdString();
    ASSERT_EQ(third->log()->count(), 2);  // the earlier failures, with their reasons, in the job's order
    EXPECT_TRUE(third->log()->item(0)->text().contains("d-empty.txt"));
    EXPECT_TRUE(third->log()->item(1)->text().contains("e-broken.pdf"));
    for (int i = 0; i < 2; ++i) {
        EXPECT_TRUE(third->log()->item(i)->text().contains(o3.failed_before[i].reason));
        EXPECT_TRUE(third->log()->item(i)->text().endsWith("(earlier run)"));
    }
    EXPECT_EQ(third->overall_bar()->value(), 4);
    third->resize(760, 640);
    save_shot_if_asked(third.get(), "batch-dialog-after-resume.png");

    // Retried after fixing one file: it is summarized, the other fails anew.
    write_text_file(folder_ / "d-empty.txt", "The empty file now says that tides rise and fall twice a day.\n");
    auto [fourth, o4] = run(true, false);
    EXPECT_EQ(o4.done_before, 2);
    EXPECT_EQ(o4.done_now, 1);
    ASSERT_EQ(o4.failures.size(), 1);
    EXPECT_TRUE(o4.failures[0].path.endsWith("e-broken.pdf"));
    EXPECT_TRUE(o4.failed_before.isEmpty());
    EXPECT_EQ(o4.retried, 2);
    EXPECT_TRUE(fourth->report()->text().contains("4 files: 3 summarized (1 now, 2 before), 1 failed (1 now)."))
        << fourth->report()->text().toStdString();
    EXPECT_TRUE(fourth->report()->text().contains("2 earlier failure(s) tried again"));
    Library library(library_path_);
    const QVector<FailedBatchFile> failed = library.failed_batch_files();
    ASSERT_EQ(failed.size(), 1);
    EXPECT_TRUE(failed[0].path.endsWith("e-broken.pdf"));
}

// Esc (and Close, and the title bar) on a running batch asks first, as the main window does
// before quitting: No keeps the batch going to its end, Yes stops it and closes the dialog.
TEST_F(BatchDialogTest, EscOnARunningBatchAsksAndNoKeepsItGoing) {
    auto dialog = make_dialog();
    QSignalSpy finished(dialog.get(), &ui::BatchDialog::finished_batch);
    const std::unique_ptr<WorkerGate> gate = start_held(*dialog);
    ASSERT_TRUE(dialog->running());
    auto answer = answer_next_box(dialog.get(), QMessageBox::No);
    QTest::keyClick(dialog.get(), Qt::Key_Escape);
    EXPECT_TRUE(answer->seen);
    EXPECT_TRUE(answer->text.contains("A batch is running. Stop it?")) << answer->text.toStdString();
    EXPECT_TRUE(dialog->isVisible());
    EXPECT_TRUE(dialog->running());
    gate->release();
    ASSERT_TRUE(wait_until([&] { return finished.count() == 1; }));
    const BatchOutcome o = finished.first().first().value<BatchOutcome>();
    EXPECT_FALSE(o.cancelled);
    EXPECT_EQ(o.done_now, 2);  // both good files of the folder, the one in progress at Esc included
}

TEST_F(BatchDialogTest, EscYesStopsTheBatchAndClosesTheDialog) {
    auto dialog = make_dialog();
    QSignalSpy finished(dialog.get(), &ui::BatchDialog::finished_batch);
    const std::unique_ptr<WorkerGate> gate = start_held(*dialog);
    auto answer = answer_next_box(dialog.get(), QMessageBox::Yes);
    QTest::keyClick(dialog.get(), Qt::Key_Escape);
    EXPECT_TRUE(answer->seen);
    EXPECT_FALSE(dialog->isVisible());
    gate->release();
    ASSERT_TRUE(wait_until([&] { return finished.count() == 1; }));
    EXPECT_TRUE(finished.first().first().value<BatchOutcome>().cancelled);
}

// Issue 42, item 9: the stop question does not outlive the batch it asks about. Asked while
// the batch runs, it closes when the batch finishes behind it, and the dialog stays open on
// its report (there is nothing left to stop).
TEST_F(BatchDialogTest, TheStopQuestionClosesWhenTheBatchFinishesBehindIt) {
    auto dialog = make_dialog();
    QSignalSpy finished(dialog.get(), &ui::BatchDialog::finished_batch);
    const std::unique_ptr<WorkerGate> gate = start_held(*dialog);
    ASSERT_TRUE(dialog->running());
    bool asked = false, forced = false;
    auto* poll = new QTimer(dialog.get());
    poll->setInterval(20);
    QElapsedTimer clock;
    clock.start();
    QObject::connect(poll, &QTimer::timeout, poll, [&] {
        QMessageBox* box = dialog->stop_question();
        if (box && box->isVisible() && !asked) {
            asked = true;
            save_shot_if_asked(box, "batch-stop-question.png");
            gate->release();  // the batch goes on to its end while the question is up
        }
        if (box && clock.elapsed() > 90000) {  // never closed: end the test instead of hanging
            forced = true;
            box->done(QMessageBox::No);
        }
    });
    poll->start();
    QTest::keyClick(dialog.get(), Qt::Key_Escape);  // returns when the question is gone
    poll->stop();
    EXPECT_TRUE(asked);
    EXPECT_FALSE(forced) << "the question stayed up after the batch finished";
    EXPECT_EQ(finished.count(), 1);
    EXPECT_EQ(dialog->stop_question(), nullptr);
    EXPECT_TRUE(dialog->isVisible()) << "the report stays to be read";
    EXPECT_FALSE(dialog->running());
    EXPECT_TRUE(dialog->report()->text().startsWith("Finished")) << dialog->report()->text().toStdString();
    save_shot_if_asked(dialog.get(), "batch-finished-after-question.png");
}

// Issue 42, item 9: the default model is called "(default)", as the status bar calls it, not
// by the folder it was found in.
TEST_F(BatchDialogTest, NamesTheDefaultModelAsTheDefault) {
    start_as_new_user();
    const std::filesystem::path installed = user_models_dir() / "tiny-sum";
    std::filesystem::create_directories(installed);
    std::filesystem::copy(fixtures_dir() / "models" / "bart-tiny-realvocab", installed,
                          std::filesystem::copy_options::recursive | std::filesystem::copy_options::overwrite_existing);
    for (const char* f : {"tokenizer.json", "vocab.json", "merges.txt"})
        std::filesystem::copy_file(fixtures_dir() / "tokenizer" / "bart" / f, installed / f,
                                   std::filesystem::copy_options::overwrite_existing);
    models::set_default_model("tiny-sum");
    EngineSettings s;  // no folder of its own: the default model
    s.device = "cpu";
    ui::BatchDialog dialog(library_path_, std::make_shared<ModelCache>(), s);
    dialog.show();
    const QString line = dialog.settings_line()->text();
    EXPECT_TRUE(line.startsWith("Model: tiny-sum (default)")) << line.toStdString();
    EXPECT_FALSE(line.contains("user model folder")) << line.toStdString();
    save_shot_if_asked(&dialog, "batch-default-model-line.png");
    // A folder chosen in Settings that is not the default keeps saying where it came from.
    dialog.set_settings(fixture_model_settings());
    EXPECT_FALSE(dialog.settings_line()->text().contains("(default)")) << dialog.settings_line()->text().toStdString();
    start_as_new_user();
}

TEST_F(BatchDialogTest, MissingFolderIsRefusedWithoutStarting) {
    ui::BatchDialog dialog(library_path_, std::make_shared<ModelCache>(), fixture_model_settings());
    dialog.set_folder(QString::fromStdString((dir_ / "nowhere").string()));
    dialog.start();
    EXPECT_FALSE(dialog.running());
    EXPECT_TRUE(dialog.report()->text().contains("existing folder"));
}

}  // namespace
}  // namespace precis::test

int main(int argc, char** argv) { return precis::test::run_ui_tests(argc, argv); }
