// A folder summarized by a model runs its documents together (engine/generate/
// document_batch.h), and that changes nothing a person can see in the library: every
// summary is the one the document gets one at a time, a batch cancelled part way keeps
// what finished, and the run that resumes it does the rest, each document once.
#include <gtest/gtest.h>

#include <map>

#include "app/batch/batch_runner.h"
#include "app/library/library.h"
#include "engine/backend/backend.h"
#include "engine/model/model.h"
#include "engine/pipeline/summarizer.h"
#include "tests/app/batch/batch_folder.h"
#include "tests/support/fixture_case.h"
#include "tests/support/fixtures.h"

namespace precis::test {
namespace {

class BatchTogether : public ::testing::Test {
protected:
    void SetUp() override {
        set_cpu_threads(2);
        dir_ = scratch_dir("batch-together");
        folder_ = make_batch_folder(dir_ / "inbox", 7, 1, true, 4);  // 8 documents, one damaged PDF
        LoadOptions lo;
        lo.tokenizer_dir = fixtures_dir() / "tokenizer/bart";
        model_ = Model::load(FixtureCase::load("bart-tiny-realvocab").model_dir, lo);
        summarizer_ = std::make_unique<Summarizer>(model_, make_cpu_backend());
    }

    BatchReport run(const std::string& library, int batch_size, int stop_after_summaries = -1) {
        Library lib(QString::fromStdString((dir_ / library).string()));
        BatchOptions opts;
        opts.root = QString::fromStdString((dir_ / "inbox").string());
        opts.summarize = summarizer_->default_options();
        opts.summarize.generation.max_new_tokens = 8;
        opts.summarize.generation.num_beams = 2;
        opts.batch_size = batch_size;
        int stored = 0;
        BatchCallbacks cb;
        cb.on_file_finished = [&](const QString&, bool ok, const QString&) { stored += ok ? 1 : 0; };
        cb.run.should_abort = [&] { return stop_after_summaries >= 0 && stored >= stop_after_summaries; };
        return run_batch(lib, summarizer_.get(), opts, cb);
    }

    // Every document's summaries in a library, by file name.
    std::map<std::string, std::vector<QString>> summaries(const std::string& library) const {
        Library lib(QString::fromStdString((dir_ / library).string()));
        std::map<std::string, std::vector<QString>> out;
        for (const DocumentListItem& d : lib.documents())
            for (const SummaryRecord& s : lib.summaries_for(d.document.id))
                out[std::filesystem::path(d.document.path.toStdString()).filename().string()].push_back(s.summary);
        return out;
    }

    std::filesystem::path dir_;
    BatchFolder folder_;
    std::shared_ptr<const Model> model_;
    std::unique_ptr<Summarizer> summarizer_;
};

TEST_F(BatchTogether, EverySummaryIsTheOneTheDocumentGetsAlone) {
    const BatchReport alone = run("alone.sqlite", 1);
    const BatchReport together = run("together.sqlite", 3);
    EXPECT_EQ(alone.done_now, folder_.good());
    EXPECT_EQ(together.done_now, folder_.good());
    EXPECT_EQ(together.failures.size(), 1);  // the damaged PDF, alone
    const auto a = summaries("alone.sqlite"), t = summaries("together.sqlite");
    ASSERT_EQ(t.size(), size_t(folder_.good()));
    EXPECT_EQ(a, t);
}

TEST_F(BatchTogether, ACancelledBatchKeepsWhatFinishedAndTheResumeDoesTheRestOnce) {
    const BatchReport first = run("library.sqlite", 3, 2);
    EXPECT_TRUE(first.cancelled);
    EXPECT_GE(first.done_now, 2);
    EXPECT_LT(first.done_now, folder_.good());
    EXPECT_GT(first.not_reached(), 0);

    const BatchReport second = run("library.sqlite", 3);
    EXPECT_TRUE(second.resumed);
    EXPECT_FALSE(second.cancelled);
    EXPECT_EQ(second.done_before, first.done_now);
    EXPECT_EQ(second.done_before + second.done_now, folder_.good());
    EXPECT_EQ(second.not_reached(), 0);

    // One summary per document, and the same ones an uninterrupted run stores.
    const auto resumed = summaries("library.sqlite");
    ASSERT_EQ(resumed.size(), size_t(folder_.good()));
    for (const auto& [file, list] : resumed) EXPECT_EQ(list.size(), 1u) << file << " was summarized twice";
    run("straight.sqlite", 3);
    EXPECT_EQ(resumed, summaries("straight.sqlite"));
}

}  // namespace
}  // namespace precis::test
