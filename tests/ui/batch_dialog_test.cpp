// The batch dialog on a folder of good and bad files: every good file is summarized into
// the library, every bad one is reported with its reason, the progress bars reach the end,
// unsupported files are ignored, and running the same folder again resumes (does nothing new).
#include <QLabel>
#include <QListWidget>
#include <QProgressBar>
#include <QSignalSpy>

#include "app/library/library.h"
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
    EXPECT_TRUE(report.contains("2 summarized now")) << report.toStdString();
    EXPECT_TRUE(report.contains("d-empty.txt"));
    EXPECT_TRUE(report.contains("e-broken.pdf"));

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
