// A device that fails after it encoded a document takes the encoder output it held with it
// (after a CUDA error nothing can be copied back): one summary on the device (the window's
// Summarize, a long document's final pass) is then encoded and generated again on the CPU,
// said once, and comes out as the CPU alone makes it; so is a classification, whose head
// reads the encoder output on the host. Also when the device only held the encoder output
// for a search of more beams than it takes, which the CPU runs.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/backend/backend.h"
#include "engine/generate/runner_backend.h"
#include "engine/model/model.h"
#include "engine/pipeline/classifier_pipeline.h"
#include "engine/pipeline/summarizer.h"
#include "tests/support/fixture_case.h"
#include "tests/support/fixtures.h"
#include "tests/support/slot_emulating_runner.h"
#include "tests/support/test_models.h"

namespace precis::test {
namespace {

class DeviceFailureAfterEncoding : public ::testing::Test {
protected:
    void SetUp() override {
        set_cpu_threads(2);
        emulation = SlotEmulation{};
        notices.clear();
        LoadOptions lo;
        lo.tokenizer_dir = fixtures_dir() / "tokenizer/bart";
        model = Model::load(FixtureCase::load("bart-tiny-realvocab").model_dir, lo);
        backend = std::make_shared<RunnerBackend>(make_cpu_backend(), std::make_shared<SlotEmulatingRunner>(emulation));
        cb.on_notice = [this](const std::string& line) { notices.push_back(line); };
    }
    SummaryResult on_the_cpu_alone(const SummarizeOptions& opts) const {
        return Summarizer(model, make_cpu_backend()).summarize(text, opts);
    }
    const std::string text = "The committee met on Tuesday and approved the budget for next year.";
    SlotEmulation emulation;
    std::shared_ptr<const Model> model;
    std::shared_ptr<RunnerBackend> backend;
    std::vector<std::string> notices;
    RunCallbacks cb;
};

TEST_F(DeviceFailureAfterEncoding, AGenerationThatFailsIsEncodedAgainAndMadeOnTheCpu) {
    emulation.failure_at_generate = 1;
    emulation.failure_at_host_copy = 1;  // the CPU's search cannot read the failed device's output
    Summarizer summarizer(model, backend);
    const SummarizeOptions opts = summarizer.default_options();
    const SummaryResult r = summarizer.summarize(text, opts, cb);
    const SummaryResult alone = on_the_cpu_alone(opts);
    EXPECT_EQ(r.ids, alone.ids);
    EXPECT_EQ(r.text, alone.text);
    EXPECT_EQ(backend->runner(), nullptr);
    EXPECT_EQ(emulation.encodes, 1) << "encoded again on the device";
    ASSERT_EQ(notices.size(), 1u);
    EXPECT_EQ(notices[0], "cuda:0 Emulated GPU (fp32) failed; running on the CPU");
}

TEST_F(DeviceFailureAfterEncoding, AWiderSearchWhoseDeviceFailsIsEncodedAgainOnTheCpu) {
    emulation.max_beams = 2;
    emulation.failure_at_host_copy = 1;
    Summarizer summarizer(model, backend);
    SummarizeOptions opts = summarizer.default_options();
    opts.generation.num_beams = 3;
    const SummaryResult r = summarizer.summarize(text, opts, cb);
    const SummaryResult alone = on_the_cpu_alone(opts);
    EXPECT_EQ(r.ids, alone.ids);
    EXPECT_EQ(backend->runner(), nullptr);
    EXPECT_EQ(emulation.generations, 0);
    ASSERT_EQ(notices.size(), 2u);
    EXPECT_EQ(notices[0], "cuda:0 Emulated GPU (fp32) searches at most 2 beams; searching 3 on the CPU");
    EXPECT_EQ(notices[1], "cuda:0 Emulated GPU (fp32) failed; running on the CPU");
}

// A folder's documents keep their encoder outputs on the device for their source passages,
// read once each summary is made: a device that fails as one is copied back loses neither
// that summary nor the documents still decoding beside it. Each comes out, passages and
// all, as the CPU alone makes it, the device said off once.
TEST_F(DeviceFailureAfterEncoding, ASummarysPassagesWhoseDeviceFailsAreReadOnTheCpuInABatch) {
    emulation.failure_at_host_copy = 1;  // the first summary's passages
    const std::vector<std::string> texts = {
        text, "Rain is expected over the hills tonight, with snow above a thousand metres.",
        "The museum reopens in March after two years of repairs to its roof and its halls, and the "
        "collection returns with it."};
    Summarizer summarizer(model, backend);
    SummarizeOptions opts = summarizer.default_options();
    opts.source_attention = true;
    std::vector<std::vector<int64_t>> documents;
    for (const std::string& t : texts) documents.push_back(model->tokenizer()->encode(t, true));
    std::map<int, SummaryResult> done;
    std::vector<std::string> failed;
    ManySummariesCallbacks on;
    on.done = [&](int i, SummaryResult r) { EXPECT_TRUE(done.emplace(i, std::move(r)).second) << "twice: " << i; };
    on.failed = [&](int i, const std::string& why) { failed.push_back(std::to_string(i) + ": " + why); };
    summarizer.summarize_many(documents, opts, 3, on, cb);
    EXPECT_TRUE(failed.empty()) << failed.front();
    ASSERT_EQ(done.size(), texts.size());
    for (size_t i = 0; i < texts.size(); ++i) {
        SCOPED_TRACE(texts[i]);
        const SummaryResult want = Summarizer(model, make_cpu_backend()).summarize(texts[i], opts);
        const SummaryResult& got = done.at(int(i));
        EXPECT_EQ(got.ids, want.ids);
        EXPECT_EQ(got.source_spans, want.source_spans);
        ASSERT_EQ(got.source_weights.size(), want.source_weights.size());
        for (size_t k = 0; k < want.source_weights.size(); ++k)
            EXPECT_NEAR(got.source_weights[k], want.source_weights[k], 1e-5) << "token " << k;
    }
    EXPECT_EQ(backend->runner(), nullptr);
    EXPECT_EQ(emulation.host_copies, 1) << "the device was read again after it failed";
    ASSERT_EQ(notices.size(), 1u) << notices.back();
    EXPECT_EQ(notices[0], "cuda:0 Emulated GPU (fp32) failed; running on the CPU");
}

// Without a failure the device's output is read back once and nothing runs twice.
TEST_F(DeviceFailureAfterEncoding, ADeviceThatHoldsUpSummarizesOnTheDevice) {
    Summarizer summarizer(model, backend);
    const SummarizeOptions opts = summarizer.default_options();
    EXPECT_EQ(summarizer.summarize(text, opts, cb).ids, on_the_cpu_alone(opts).ids);
    EXPECT_NE(backend->runner(), nullptr);
    EXPECT_EQ(emulation.encodes, 1);
    EXPECT_EQ(emulation.generations, 1);
    EXPECT_TRUE(notices.empty()) << notices.front();
}

// The head's logits on the host: a copy back that fails has the document encoded again on
// the CPU, for the fine-tuned head and for each label of zero-shot.
TEST_F(DeviceFailureAfterEncoding, AClassificationWhoseDeviceFailsIsEncodedAgainOnTheCpu) {
    LoadOptions lo;
    lo.tokenizer_dir = fixtures_dir() / "tokenizer/bart";
    for (const bool zero_shot : {false, true}) {
        SCOPED_TRACE(zero_shot ? "zero-shot" : "the model's labels");
        SetUp();
        emulation.failure_at_host_copy = 1;
        const auto classifier = Model::load(
            zero_shot ? make_classifier("nli", {{"0", "contradiction"}, {"1", "neutral"}, {"2", "entailment"}}, "")
                      : make_classifier("labels", {{"0", "law"}, {"1", "finance"}, {"2", "health"}}, ""),
            lo);
        Classifier on_device(classifier, backend), alone(classifier, make_cpu_backend());
        ClassifyOptions opts = on_device.default_options();
        if (zero_shot) opts.candidate_labels = {"travel", "cooking", "markets"};
        const ClassificationResult got = on_device.classify(text, opts, cb), want = alone.classify(text, opts);
        ASSERT_EQ(got.scores.size(), want.scores.size());
        for (size_t i = 0; i < want.scores.size(); ++i) {
            EXPECT_EQ(got.scores[i].label, want.scores[i].label);
            EXPECT_FLOAT_EQ(got.scores[i].score, want.scores[i].score);
        }
        EXPECT_EQ(backend->runner(), nullptr);
        ASSERT_EQ(notices.size(), 1u);
        EXPECT_EQ(notices[0], "cuda:0 Emulated GPU (fp32) failed; running on the CPU");
    }
}

}  // namespace
}  // namespace precis::test
