// The continuous batch's device branch (engine/generate/document_batch.cpp) and the GPU
// batch decoder's step plan (engine/generate/slot_step.h), on the CPU: a runner that takes
// documents into slots of one width as the CUDA runner does, with the device search's
// arithmetic done on the CPU in the kernels' order (tests/support/slot_emulating_runner.h).
// Every reference case's rows, greedy and beam, batched beside documents of other lengths,
// with documents finishing early and others taking their slots, get the ids they get alone;
// running out of device memory halves the batch; a device that fails hands the rest to the
// CPU and says so once; scores that are not finite move the run to a wider precision; and
// nothing is lost or stored twice. The same on a GPU: kernels/cuda/cuda_document_batch_test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "engine/backend/backend.h"
#include "engine/generate/document_batch.h"
#include "engine/generate/logits_processors.h"
#include "engine/generate/runner_backend.h"
#include "engine/model/model.h"
#include "tests/support/document_batch_support.h"
#include "tests/support/fixture_case.h"
#include "tests/support/fixtures.h"
#include "tests/support/slot_emulating_runner.h"

namespace precis::test {
namespace {

class DeviceDocumentBatchParity : public ::testing::TestWithParam<std::string> {};

TEST_P(DeviceDocumentBatchParity, EveryDocumentInTheDevicesSlotsGetsWhatItGetsAlone) {
    set_cpu_threads(2);
    const FixtureCase c = FixtureCase::load(GetParam());
    auto model = Model::load(c.model_dir, {.load_tokenizer = false});
    AttentionOptions att;
    const std::vector<BatchDoc> docs = documents_of_case(c, *model, &att);
    if (docs.empty()) GTEST_SKIP() << GetParam() << " has no generation (a classifier case)";
    SlotEmulation emulation;
    RunnerBackend backend(make_cpu_backend(), std::make_shared<SlotEmulatingRunner>(emulation));
    std::vector<std::string> notices;
    RunCallbacks cb;
    cb.on_notice = [&](const std::string& line) { notices.push_back(line); };
    // Two slots: documents leave and others take their slots while the batch runs.
    const std::map<int, BatchOutcome> batched = generate_together(*model, backend, att, docs, 2, nullptr, cb);
    EXPECT_TRUE(notices.empty()) << notices.front();
    EXPECT_NE(backend.runner(), nullptr) << "the run fell back to the CPU";
    expect_as_alone(*model, att, docs, batched, 1e-4);
    const bool joined_mid_run = std::any_of(emulation.joins_at_step.begin(), emulation.joins_at_step.end(),
                                            [](const std::pair<int, int>& j) { return j.second > 0; });
    EXPECT_TRUE(joined_mid_run) << "no document took a slot while others were decoding";
}

INSTANTIATE_TEST_SUITE_P(AllReferenceCases, DeviceDocumentBatchParity, ::testing::ValuesIn(fixture_case_names()),
                         fixture_case_label);

// The rest run the tiny BART of the fixtures over documents of random ids.
class DeviceDocumentBatch : public ::testing::Test {
protected:
    void SetUp() override {
        set_cpu_threads(2);
        notices.clear();
        emulation = SlotEmulation{};
        model = Model::load(fixtures_dir() / "models" / "bart-tiny", {.load_tokenizer = false});
        docs = mixed_documents(*model, 7, 200, 2);
        att = native_attention_options(*model);
        runner = std::make_shared<SlotEmulatingRunner>(emulation);
        backend = std::make_unique<RunnerBackend>(make_cpu_backend(), runner);
        cb.on_notice = [&](const std::string& line) { notices.push_back(line); };
    }
    // For the tests that call generate_documents themselves.
    std::function<std::vector<EncodedRow>(const std::vector<int>&)> encoder() {
        return [this](const std::vector<int>& js) {
            std::vector<std::vector<int64_t>> ids;
            for (int i : js) ids.push_back(docs[size_t(i)].ids);
            return std::move(run_encoder(*model, *backend, ids, {}, att, {}).rows);
        };
    }
    // The documents batched `batch_size` at a time, each as alone (and once); the run's report.
    DocumentBatchReport run_as_alone(int batch_size) {
        DocumentBatchReport report;
        const std::map<int, BatchOutcome> batched =
            generate_together(*model, *backend, att, docs, batch_size, &report, cb);
        expect_as_alone(*model, att, docs, batched, 1e-4);
        return report;
    }
    // The run halved once, from `before` documents at once to `after`, said so once and kept
    // the device.
    void expect_halved_once(const DocumentBatchReport& report, int before, int after) const {
        EXPECT_EQ(report.halvings, 1);
        EXPECT_EQ(report.limits.max_documents, after);
        ASSERT_EQ(notices.size(), 1u);
        EXPECT_NE(notices[0].find("memory ran out with " + std::to_string(before) + " documents at once"),
                  std::string::npos)
            << notices[0];
        EXPECT_NE(backend->runner(), nullptr) << "halving turned the device off";
    }
    std::vector<DocumentJob> document_jobs() const {
        std::vector<DocumentJob> jobs;
        for (const BatchDoc& d : docs) jobs.push_back({int(d.ids.size()), d.config});
        return jobs;
    }
    std::shared_ptr<const Model> model;
    std::vector<BatchDoc> docs;
    AttentionOptions att;
    SlotEmulation emulation;
    std::shared_ptr<SlotEmulatingRunner> runner;
    std::unique_ptr<RunnerBackend> backend;
    std::vector<std::string> notices;
    RunCallbacks cb;
};

TEST_F(DeviceDocumentBatch, DocumentsOfOtherBeamsRunInDecodersOfTheirOwnWidth) {
    const std::map<int, BatchOutcome> batched = generate_together(*model, *backend, att, docs, 2, nullptr, cb);
    expect_as_alone(*model, att, docs, batched, 1e-4);
    EXPECT_TRUE(notices.empty()) << notices.front();
    std::set<int> widths;
    for (const BatchDecoderShape& shape : emulation.shapes) widths.insert(shape.beams);
    EXPECT_EQ(widths, (std::set<int>{1, 3}));
}

// Each step runs every slot's rows, so a decoder has a slot for each document of its beams
// that can be present (not the batch's whole size) and caches as long as their longest
// generation (not the run's).
TEST_F(DeviceDocumentBatch, EachDecoderIsShapedForTheDocumentsOfItsOwnBeams) {
    const std::map<int, BatchOutcome> batched = generate_together(*model, *backend, att, docs, 16, nullptr, cb);
    expect_as_alone(*model, att, docs, batched, 1e-4);
    ASSERT_EQ(emulation.shapes.size(), 2u);
    for (const BatchDecoderShape& shape : emulation.shapes) {
        SCOPED_TRACE(std::to_string(shape.beams) + " beams");
        int documents = 0, longest = 2;
        for (const BatchDoc& d : docs)
            if (d.config.num_beams == shape.beams) {
                ++documents;
                longest = std::max(longest, effective_max_length(d.config));
            }
        EXPECT_EQ(shape.documents, documents);
        EXPECT_EQ(shape.max_length, longest);
    }
    EXPECT_NE(emulation.shapes[0].max_length, emulation.shapes[1].max_length) << "the test's groups do not differ";
}

// The device's search takes at most max_beams(): documents of more run on the CPU, said
// once, and the device keeps the others (and stays on for later runs).
TEST_F(DeviceDocumentBatch, DocumentsOfMoreBeamsThanTheDeviceTakesRunOnTheCpuAndTheDeviceKeepsTheRest) {
    emulation.max_beams = 2;
    const std::map<int, BatchOutcome> batched = generate_together(*model, *backend, att, docs, 3, nullptr, cb);
    expect_as_alone(*model, att, docs, batched, 1e-4);
    EXPECT_NE(backend->runner(), nullptr);
    ASSERT_EQ(emulation.shapes.size(), 1u);
    EXPECT_EQ(emulation.shapes[0].beams, 1);
    EXPECT_EQ(emulation.shapes[0].documents, 3) << "the device's batch of the greedy documents";
    ASSERT_EQ(notices.size(), 1u);
    EXPECT_EQ(notices[0],
              "cuda:0 Emulated GPU (fp32) searches at most 2 beams; 3 of the documents ask for more and run on the CPU");
}

TEST_F(DeviceDocumentBatch, AGenerationOfMoreBeamsThanTheDeviceTakesIsSearchedOnTheCpuAndSaysSo) {
    emulation.max_beams = 2;
    const BatchDoc& beam = docs[1];
    ASSERT_EQ(beam.config.num_beams, 3);
    const EncoderOutput enc = run_encoder(*model, *backend, {beam.ids}, {}, att, {});
    const GenerationResult g = generate(*model, *backend, enc, beam.config, cb);
    auto cpu = make_cpu_backend();
    EXPECT_EQ(g.sequences[0], generate_alone(*model, *cpu, att, beam).ids);
    EXPECT_EQ(emulation.generations, 0) << "the device was asked";
    ASSERT_EQ(notices.size(), 1u);
    EXPECT_EQ(notices[0], "cuda:0 Emulated GPU (fp32) searches at most 2 beams; searching 3 on the CPU");
    EXPECT_NE(backend->runner(), nullptr);
    generate(*model, *backend, enc, docs[0].config, cb);
    EXPECT_EQ(emulation.generations, 1) << "a greedy search stays on the device";
}

// The longest document's settings cannot run (no beams): it fails alone before a decoder
// takes its shape from it, and the others run on the device.
TEST_F(DeviceDocumentBatch, ADocumentWhoseSettingsCannotRunFailsAloneAndTheRestStayOnTheDevice) {
    const int bad = int(docs.size()) - 1;  // the longest: the first the batch takes
    docs[size_t(bad)].config.num_beams = 0;
    std::map<int, std::string> failed;
    std::set<int> finished;
    DocumentBatchCallbacks on;
    on.encode = encoder();
    on.finished = [&](int i, GenerationResult, const EncodedRow&) { EXPECT_TRUE(finished.insert(i).second); };
    on.failed = [&](int i, const std::string& why) { failed[i] = why; };
    const std::vector<DocumentJob> jobs = document_jobs();
    generate_documents(*model, *backend, jobs, {.batch_size = 3}, on, cb);
    ASSERT_EQ(failed.size(), 1u);
    EXPECT_EQ(failed.begin()->first, bad);
    EXPECT_EQ(failed.begin()->second, "generation: num_beams must be at least 1");
    EXPECT_EQ(finished.size(), docs.size() - 1);
    EXPECT_EQ(finished.count(bad), 0u);
    EXPECT_NE(backend->runner(), nullptr);
    EXPECT_TRUE(notices.empty()) << notices.front();
    for (const BatchDecoderShape& shape : emulation.shapes) EXPECT_GE(shape.beams, 1);
}

TEST_F(DeviceDocumentBatch, RunningOutOfDeviceMemoryHalvesTheBatchSaysSoOnceAndLosesNothing) {
    emulation.out_of_memory_at_join = 3;
    const DocumentBatchReport report = run_as_alone(4);
    expect_halved_once(report, 4, 2);
    EXPECT_NE(notices.at(0).find("at once (cuda:0 Emulated GPU (fp32) ran out of memory); going on with 2"),
              std::string::npos)
        << notices[0];
}

// A joining document is encoded beside the documents present: the encoder running out of
// device memory halves the batch as the decoder does, and the device stays on. (Two at a
// time: the third encode is the one joining a document that is decoding.)
TEST_F(DeviceDocumentBatch, AnEncoderOutOfDeviceMemoryHalvesTheBatchAndKeepsTheDevice) {
    emulation.out_of_memory_at_encode = 3;
    const DocumentBatchReport report = run_as_alone(2);
    expect_halved_once(report, 2, 1);
    EXPECT_GT(emulation.encodes, 3) << "the joining document was not encoded again";
}

// The greedy group has 4 documents under a batch size of 16: its decoder was made for 4, so
// running out of memory goes on with 2, at once, not with 8 and then 4 (the same 4 slots).
TEST_F(DeviceDocumentBatch, RunningOutOfMemoryHalvesTheDocumentsTheDecoderWasMadeFor) {
    emulation.out_of_memory_above_documents = 2;
    const DocumentBatchReport report = run_as_alone(16);
    expect_halved_once(report, 4, 2);
    for (const BatchDecoderShape& shape : emulation.shapes) EXPECT_LE(shape.documents, 4);
}

TEST_F(DeviceDocumentBatch, OneDocumentThatDoesNotFitTheDeviceSendsTheRestToTheCpu) {
    emulation.out_of_memory_at_every_join = true;
    const std::map<int, BatchOutcome> batched = generate_together(*model, *backend, att, docs, 2, nullptr, cb);
    expect_as_alone(*model, att, docs, batched, 1e-4);
    EXPECT_EQ(backend->runner(), nullptr);
    ASSERT_EQ(notices.size(), 2u);  // the halving, then the CPU
    EXPECT_NE(notices[1].find("ran out of memory; running on the CPU"), std::string::npos) << notices[1];
}

// The device fails at each call the batch makes of it: in the encoder of joining documents,
// as a decoder is made, at a join, in a step, in a beam reorder, as a finished document
// leaves (that document is then made again on the CPU with the unfinished ones, not lost).
TEST_F(DeviceDocumentBatch, ADeviceThatFailsMidBatchHandsWhatIsLeftToTheCpuOnce) {
    struct Point {
        const char* where;
        int SlotEmulation::*call;
        int at;
    };
    const Point points[] = {{"in the encoder", &SlotEmulation::failure_at_encode, 2},
                            {"as a decoder is made", &SlotEmulation::failure_at_decoder, 2},
                            {"at a join", &SlotEmulation::failure_at_join, 4},
                            {"in a step", &SlotEmulation::failure_at_step, 9},
                            {"in a reorder", &SlotEmulation::failure_at_reorder, 3},
                            {"as a document leaves", &SlotEmulation::failure_at_leave, 2}};
    for (const Point& p : points) {
        SCOPED_TRACE(p.where);
        SetUp();
        emulation.*p.call = p.at;
        const std::map<int, BatchOutcome> batched = generate_together(*model, *backend, att, docs, 3, nullptr, cb);
        expect_as_alone(*model, att, docs, batched, 1e-4);  // each exactly once (generate_together checks)
        EXPECT_EQ(backend->runner(), nullptr);
        const SlotEmulation& e = emulation;
        const int calls[] = {e.encodes, e.decoders, e.joins, e.steps, e.reorders, e.leaves};
        EXPECT_EQ(calls[&p - points], p.at) << "the device was asked again after it failed, or never failed";
        if (p.call == &SlotEmulation::failure_at_encode) {
            // The encoder falls back and says so itself, to its own callbacks (none here).
            EXPECT_TRUE(notices.empty()) << notices.front();
            continue;
        }
        ASSERT_EQ(notices.size(), 1u);
        EXPECT_EQ(notices[0], "cuda:0 Emulated GPU (fp32) failed; running on the CPU");
    }
}

// Searches of more beams than the device takes decode on the CPU from encoder outputs held
// on the device; the device failing as one is copied to the host hands everything left to
// the CPU, encoded again there, and loses nothing.
TEST_F(DeviceDocumentBatch, ADeviceThatFailsBesideTheCpusWiderSearchesLosesNothing) {
    emulation.max_beams = 2;
    emulation.failure_at_host_copy = 1;  // the first the CPU's wider search reads
    const std::map<int, BatchOutcome> batched = generate_together(*model, *backend, att, docs, 3, nullptr, cb);
    expect_as_alone(*model, att, docs, batched, 1e-4);
    EXPECT_EQ(backend->runner(), nullptr);
    EXPECT_EQ(emulation.host_copies, 1);
    ASSERT_EQ(notices.size(), 2u);
    EXPECT_EQ(notices[0],
              "cuda:0 Emulated GPU (fp32) searches at most 2 beams; 3 of the documents ask for more and run on the CPU");
    EXPECT_EQ(notices[1], "cuda:0 Emulated GPU (fp32) failed; running on the CPU");
}

// A finished document's own use of its encoder output can turn the device off (its source
// passages failing to copy back, engine/pipeline/summarizer.cpp): the documents still
// decoding start again on the CPU, and the device is asked nothing more.
TEST_F(DeviceDocumentBatch, ADeviceTurnedOffAsADocumentFinishesIsAskedNothingMore) {
    const auto device_calls = [&] {
        const SlotEmulation& e = emulation;
        return e.encodes + e.decoders + e.joins + e.steps + e.reorders + e.leaves + e.host_copies;
    };
    std::map<int, BatchOutcome> batched;
    int calls_at_off = -1;
    DocumentBatchCallbacks on;
    on.encode = encoder();
    on.finished = [&](int i, GenerationResult r, const EncodedRow&) {
        EXPECT_TRUE(batched.emplace(i, BatchOutcome{r.sequences[0], r.sequence_scores[0]}).second) << "twice: " << i;
        if (calls_at_off >= 0) return;
        backend->runner_failed("the passages' copy failed");
        calls_at_off = device_calls();
    };
    on.failed = [&](int i, const std::string& why) { ADD_FAILURE() << "document " << i << " failed: " << why; };
    // Room for every greedy document at once: none joins after the first leaves (a joining
    // one's encoder would find the device off), the others go on stepping.
    generate_documents(*model, *backend, document_jobs(), {.batch_size = 8}, on, cb);
    expect_as_alone(*model, att, docs, batched, 1e-4);
    EXPECT_EQ(device_calls(), calls_at_off) << "the device was asked again after it was turned off";
    EXPECT_GT(emulation.steps, 0);
}

// A long document's sections, a folder's documents: the device's beam limit is said once.
TEST_F(DeviceDocumentBatch, TheDevicesBeamLimitIsSaidOnceForTheRunner) {
    emulation.max_beams = 2;
    generate_together(*model, *backend, att, docs, 3, nullptr, cb);
    generate_together(*model, *backend, att, docs, 2, nullptr, cb);
    const EncoderOutput enc = run_encoder(*model, *backend, {docs[1].ids}, {}, att, {});
    generate(*model, *backend, enc, docs[1].config, cb);
    ASSERT_EQ(notices.size(), 1u) << notices.back();
    EXPECT_NE(notices[0].find("searches at most 2 beams"), std::string::npos) << notices[0];
}

TEST_F(DeviceDocumentBatch, ScoresThatAreNotFiniteMoveToAWiderPrecisionAndDecodeAgain) {
    for (const bool widens : {true, false}) {
        SCOPED_TRACE(widens ? "a wider precision" : "none left: the CPU");
        SetUp();
        emulation.non_finite_at_step = 5;
        emulation.widens = widens;
        const std::map<int, BatchOutcome> batched = generate_together(*model, *backend, att, docs, 3, nullptr, cb);
        expect_as_alone(*model, att, docs, batched, 1e-4);
        ASSERT_EQ(notices.size(), 1u);
        if (widens) {
            EXPECT_EQ(emulation.widened, 1);
            EXPECT_NE(backend->runner(), nullptr);
            EXPECT_NE(notices[0].find("running in bf16 from now on"), std::string::npos) << notices[0];
        } else {
            EXPECT_EQ(backend->runner(), nullptr);
            EXPECT_NE(notices[0].find("are not finite"), std::string::npos) << notices[0];
            EXPECT_NE(notices[0].find("; running on the CPU"), std::string::npos) << notices[0];
        }
    }
}

// The encoder of a joining document leaves fp16 while others decode in an fp16 batch
// decoder: those start again in a new decoder, nothing fails, nothing is stored twice.
TEST_F(DeviceDocumentBatch, AnEncoderThatLeavesFp16StartsTheDocumentsPresentAgainInANewDecoder) {
    emulation.overflow_at_encode = 4;
    const std::map<int, BatchOutcome> batched = generate_together(*model, *backend, att, docs, 2, nullptr, cb);
    expect_as_alone(*model, att, docs, batched, 1e-4);  // none failed (a join into the old decoder fails)
    EXPECT_NE(backend->runner(), nullptr);
    EXPECT_EQ(emulation.precision, 1);
    EXPECT_EQ(emulation.outdated_seen, 1) << "the loop went on with the old decoder, or never met it";
    EXPECT_TRUE(notices.empty()) << "the encoder says it, not the batch: " << notices.front();
}

TEST_F(DeviceDocumentBatch, CancellingHandsOverWhatFinishedAndNothingTwice) {
    std::vector<int> finished;
    DocumentBatchCallbacks on;
    on.encode = encoder();
    on.finished = [&](int i, GenerationResult, const EncodedRow&) { finished.push_back(i); };
    const std::vector<DocumentJob> jobs = document_jobs();
    cb.should_abort = [&] { return finished.size() >= 2; };
    EXPECT_THROW(generate_documents(*model, *backend, jobs, {.batch_size = 3}, on, cb), Cancelled);
    EXPECT_GE(finished.size(), 2u);
    EXPECT_LT(finished.size(), docs.size());
    EXPECT_EQ(std::set<int>(finished.begin(), finished.end()).size(), finished.size());
    EXPECT_NE(backend->runner(), nullptr) << "cancelling is not a device failure";
}

}  // namespace
}  // namespace precis::test
