// A new batch job over files already summarized (the same folder again with another option,
// such as "also classify") does only the work that is missing: no second summary with the same
// settings, a summary made with other settings, labels only where this classifier left none,
// and one failure record per file however many jobs it failed in.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "app/batch/batch_counts.h"
#include "app/batch/batch_runner.h"
#include "app/batch/existing_results.h"
#include "app/ingest/ingest.h"
#include "app/library/library.h"
#include "tests/support/fixtures.h"

namespace precis::test {
namespace {

namespace fs = std::filesystem;

class BatchRerun : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = scratch_dir("batch-rerun");
        folder_ = dir_ / "inbox";
        fs::create_directories(folder_ / "sub");
        std::ofstream(folder_ / "a.txt") << "Rivers shape their valleys slowly. Floods spread silt over the plain. "
                                            "Farmers have valued that soil for thousands of years.";
        std::ofstream(folder_ / "b.md") << "# Bread\n\nFlour, water, salt and time make bread. Knead it until smooth.";
        std::ofstream(folder_ / "broken.pdf") << "this is not a PDF at all";
        library_path_ = QString::fromStdString((dir_ / "library.sqlite").string());
    }

    // recursive changes the job (its settings) but not how a summary is made.
    BatchReport run(bool recursive, int sentences = 1) {
        Library library(library_path_);
        BatchOptions opts;
        opts.root = QString::fromStdString(folder_.string());
        opts.recursive = recursive;
        opts.extractive = true;
        opts.extractive_options.budget = {extractive::BudgetUnit::Sentences, double(sentences)};
        return run_batch(library, nullptr, opts, {});
    }

    int summaries() {
        Library library(library_path_);
        int n = 0;
        for (const DocumentListItem& d : library.documents()) n += d.summary_count;
        return n;
    }

    fs::path dir_, folder_;
    QString library_path_;
};

TEST_F(BatchRerun, AnotherJobOverTheSameFilesKeepsTheirSummariesAndListsEachFailureOnce) {
    BatchReport first = run(false);
    EXPECT_EQ(first.done_now, 2);
    ASSERT_EQ(first.failures.size(), 1);
    EXPECT_EQ(summaries(), 2);

    BatchReport second = run(true);  // a new job: its settings differ
    EXPECT_FALSE(second.resumed);
    EXPECT_EQ(second.done_now, 0);
    EXPECT_EQ(second.kept, 2);
    EXPECT_EQ(second.failures.size(), 1);
    EXPECT_EQ(summaries(), 2) << "a document was summarized twice with the same settings";
    EXPECT_EQ(batch_counts_text(batch_counts(second)), "3 files: 2 summarized (2 already in the library), 1 failed (1 now)");

    Library library(library_path_);
    const QVector<FailedBatchFile> failed = library.failed_batch_files();
    ASSERT_EQ(failed.size(), 1) << "one record per file, not one per job";
    EXPECT_TRUE(failed[0].path.endsWith("broken.pdf"));
    EXPECT_EQ(failed[0].job_id, second.job_id);  // the newest failure
}

TEST_F(BatchRerun, OtherSummarySettingsStillMakeANewSummary) {
    run(false, 1);
    BatchReport longer = run(false, 2);
    EXPECT_EQ(longer.done_now, 2);
    EXPECT_EQ(longer.kept, 0);
    EXPECT_EQ(summaries(), 4);
}

TEST_F(BatchRerun, AFileThatFailedAndLaterSucceededIsNoLongerListedAsFailed) {
    std::ofstream(folder_ / "c.txt") << "   \n";  // empty: fails
    EXPECT_EQ(run(false).failures.size(), 2);
    std::ofstream(folder_ / "c.txt", std::ios::trunc) << "Now the file has a sentence to summarize.";
    BatchReport again = run(true);  // another job: c.txt is read again and succeeds
    EXPECT_EQ(again.done_now, 1);
    Library library(library_path_);
    const QVector<FailedBatchFile> failed = library.failed_batch_files();
    ASSERT_EQ(failed.size(), 1);
    EXPECT_TRUE(failed[0].path.endsWith("broken.pdf"));
}

TEST(ExistingResults, LabelsCountOnlyFromTheSameClassifierAndForEveryCandidate) {
    const fs::path dir = scratch_dir("existing-labels");
    Library library(QString::fromStdString((dir / "library.sqlite").string()));
    IngestedDocument doc;
    doc.path = QString::fromStdString((dir / "doc.txt").string());
    doc.title = "doc";
    doc.text = "Some text.";
    doc.content_hash = "0123";
    const qint64 id = library.add_or_get_document(doc);
    EXPECT_FALSE(has_labels_from(library, id, "nli", {}));
    ClassificationRecord c;
    c.document_id = id;
    c.model_name = "nli";
    c.label = "music";
    c.score = 0.9;
    library.add_classification(c);
    EXPECT_TRUE(has_labels_from(library, id, "nli", {}));
    EXPECT_TRUE(has_labels_from(library, id, "nli", {"music"}));
    EXPECT_FALSE(has_labels_from(library, id, "nli", {"music", "sport"})) << "a new candidate label needs a run";
    EXPECT_FALSE(has_labels_from(library, id, "other-model", {}));
}

}  // namespace
}  // namespace precis::test
