// The library records the device each summary ran on as it was when the summary was made:
// after a GPU failure early in a batch (out of memory, a CUDA error), the summaries made
// on the CPU say "cpu", not the GPU the batch started on.
#include <gtest/gtest.h>

#include "app/batch/batch_runner.h"
#include "app/library/library.h"
#include "engine/generate/runner_backend.h"
#include "engine/model/model.h"
#include "engine/pipeline/summarizer.h"
#include "tests/app/batch/batch_folder.h"
#include "tests/support/failing_runner.h"
#include "tests/support/fixture_case.h"
#include "tests/support/fixtures.h"

namespace precis::test {
namespace {

TEST(BatchDeviceRecord, SummariesMadeAfterAGpuFailureRecordTheCpu) {
    set_cpu_threads(2);
    const auto dir = scratch_dir("batch-device-record");
    make_batch_folder(dir / "inbox", 2, 0, false, 3);
    LoadOptions lo;
    lo.tokenizer_dir = fixtures_dir() / "tokenizer/bart";
    auto model = Model::load(FixtureCase::load("bart-tiny-realvocab").model_dir, lo);
    auto runner = std::make_shared<FailingRunner>();
    auto backend = std::make_shared<RunnerBackend>(make_cpu_backend(), runner);
    ASSERT_EQ(backend->name(), "cuda:0 Test GPU (fp16)");  // what the batch starts on
    Summarizer summarizer(model, backend);

    Library library(QString::fromStdString((dir / "library.sqlite").string()));
    BatchOptions opts;
    opts.root = QString::fromStdString((dir / "inbox").string());
    opts.summarize = summarizer.default_options();
    opts.summarize.generation.max_new_tokens = 6;
    std::vector<std::string> notices;
    BatchCallbacks cb;
    cb.run.on_notice = [&](const std::string& line) { notices.push_back(line); };
    const BatchReport report = run_batch(library, &summarizer, opts, cb);

    EXPECT_EQ(report.done_now, 2);
    EXPECT_EQ(runner->calls, 1) << "the first document's failure moves the batch to the CPU for good";
    EXPECT_EQ(notices.size(), 1u);
    int recorded = 0;
    for (const DocumentListItem& d : library.documents()) {
        ASSERT_TRUE(d.latest_summary.has_value());
        EXPECT_EQ(d.latest_summary->device.toStdString(), "cpu") << d.document.path.toStdString();
        ++recorded;
    }
    EXPECT_EQ(recorded, 2);
}

}  // namespace
}  // namespace precis::test
