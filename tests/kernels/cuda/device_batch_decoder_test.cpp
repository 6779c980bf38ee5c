// The GPU's batch decoder (kernels/runner/device_batch_decoder.h) against the CPU's
// (engine/generate/cpu_batch_decoder.h), step by step, in fp32: the same documents join,
// decode and leave both in one script, both fed the CPU's choices, and every step the GPU's
// choice of every document must be the CPU's (tokens and candidates identical, scores
// within the fixtures' tolerance). The script makes the GPU's slots do what a continuous
// batch makes them do: the keys' pool growing past its first size and the attention's grid
// sized again; a document leaving and a shorter one taking its slot and its region mid-run
// at another length, while the step graph captured before replays; rules that differ per
// document (an n-gram ban, a minimum length, the forced tokens), greedy and beam search.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>

#include "engine/backend/backend.h"
#include "engine/generate/cpu_batch_decoder.h"
#include "engine/generate/model_runner.h"
#include "engine/model/encoder.h"
#include "engine/model/model.h"
#include "kernels/backend_factory.h"
#include "kernels/runner/device_batch_decoder.h"
#include "tests/kernels/cuda/cuda_test_support.h"
#include "tests/support/document_batch_support.h"
#include "tests/support/fixtures.h"

namespace precis::test {
namespace {

struct ScriptDocument {
    EncodedRow encoded;
    GenerationConfig cfg;
    int max_length = 0;
    std::vector<int64_t> sequence;
    std::unique_ptr<BeamBook> book;
    DocumentStep cpu, gpu;  // each decoder's view of it
};

class DeviceBatchDecoderScript : public ::testing::TestWithParam<int> {};  // beams

TEST_P(DeviceBatchDecoderScript, EveryStepChoosesWhatTheCpusBatchDecoderChooses) {
    PRECIS_REQUIRE_GPU();
    set_cpu_threads(2);
    const int beams = GetParam();
    auto model = Model::load(fixtures_dir() / "models" / "bart-tiny", {.load_tokenizer = false});
    auto cpu = make_cpu_backend();
    BackendChoice gpu = make_backend({.device = "cuda", .dtype = "fp32", .model_bytes = 0, .cpu_threads = 2});
    ModelRunner* runner = gpu.backend->runner();
    ASSERT_NE(runner, nullptr) << "the CUDA backend has no runner";
    const AttentionOptions att = native_attention_options(*model);

    // 12 and 40 tokens, then 7 (fits the region the first leaves: bart-tiny's memory rows
    // are its tokens) and 90 (a new region past the pool), into two slots.
    const int lengths[] = {12, 40, 7, 90};
    std::vector<std::unique_ptr<ScriptDocument>> docs;
    for (int i = 0; i < 4; ++i) {
        auto d = std::make_unique<ScriptDocument>();
        const std::vector<int64_t> ids = random_document_ids(lengths[i], model->config(), uint32_t(300 + i));
        d->encoded = std::move(run_encoder(*model, *cpu, {ids}, {}, att, {}).rows[0]);
        d->cfg = model->generation_config();
        d->cfg.num_beams = beams;
        d->cfg.max_new_tokens = 30;
        d->cfg.min_length = i == 1 ? 12 : 0;
        d->cfg.no_repeat_ngram_size = i == 2 ? 2 : 0;
        d->max_length = effective_max_length(d->cfg);
        if (beams == 1) d->sequence = {d->cfg.decoder_start_token_id};
        else d->book = std::make_unique<BeamBook>(1, d->cfg, d->max_length);
        d->cpu.beams = d->gpu.beams = beams;
        docs.push_back(std::move(d));
    }
    const int max_length = docs[0]->max_length;
    CpuBatchDecoder on_cpu(*model, *cpu, 2 * beams, max_length);
    BatchDecoderShape shape;
    shape.documents = 2;
    shape.beams = beams;
    shape.max_length = max_length;
    shape.memory_rows = 8;  // smaller than the first two documents: the pool must grow
    std::unique_ptr<BatchDecoder> on_gpu = runner->batch_decoder(*model, shape);

    std::vector<ScriptDocument*> present;
    auto join = [&](int i) {
        ScriptDocument& d = *docs[size_t(i)];
        d.cpu.item = on_cpu.join(d.encoded, beams);
        d.gpu.item = on_gpu->join(d.encoded, beams);
        present.push_back(&d);
    };
    auto leave = [&](int i) {
        ScriptDocument& d = *docs[size_t(i)];
        on_cpu.leave(d.cpu.item);
        on_gpu->leave(d.gpu.item);
        present.erase(std::find(present.begin(), present.end(), &d));
    };
    auto step = [&](int n) {
        for (int s = 0; s < n; ++s) {
            std::vector<DocumentStep*> cpu_docs, gpu_docs;
            for (ScriptDocument* d : present) {
                for (DocumentStep* view : {&d->cpu, &d->gpu}) {
                    view->sequence = &d->sequence;
                    view->book = d->book.get();
                    view->rules = step_rules(d->cfg, d->book ? d->book->cur_len() : int(d->sequence.size()),
                                             d->max_length);
                }
                cpu_docs.push_back(&d->cpu);
                gpu_docs.push_back(&d->gpu);
            }
            on_cpu.step(cpu_docs);
            on_gpu->step(gpu_docs);
            for (ScriptDocument* d : present) {
                SCOPED_TRACE("document of " + std::to_string(d->encoded.memory_rows()) + " rows, step " +
                             std::to_string(s));
                if (!d->book) {
                    ASSERT_EQ(d->gpu.next, d->cpu.next);
                    EXPECT_NEAR(d->gpu.logprob, d->cpu.logprob, 1e-4 * (1 + std::abs(d->cpu.logprob)));
                    d->sequence.push_back(d->cpu.next);
                } else if (!d->book->finished()) {
                    ASSERT_EQ(d->gpu.top_indices, d->cpu.top_indices);
                    for (size_t k = 0; k < d->cpu.top_scores.size(); ++k) {
                        const float want = d->cpu.top_scores[k], got = d->gpu.top_scores[k];
                        if (std::isinf(want)) EXPECT_EQ(got, want) << "candidate " << k;  // banned or forced away
                        else EXPECT_NEAR(got, want, 1e-4 * (1 + std::abs(want))) << "candidate " << k;
                    }
                    d->book->advance(d->cpu.top_scores.data(), d->cpu.top_indices.data(), model->config().vocab_size);
                }
            }
            if (beams > 1) {
                on_cpu.reorder(cpu_docs);
                on_gpu->reorder(gpu_docs);
            }
        }
    };
    const auto* device = dynamic_cast<const cuda::DeviceBatchDecoder*>(on_gpu.get());
    ASSERT_NE(device, nullptr);
    const char* graphs = std::getenv("PRECIS_CUDA_GRAPHS");
    const bool replays = !graphs || std::string(graphs) != "0";
    join(0);
    join(1);  // past the pool's first size
    step(4);  // the first one-token step runs eagerly, the second is captured
    EXPECT_EQ(device->step_graph_in_use(), replays) << "the step graph was not captured";
    leave(0);
    join(2);  // takes document 0's slot and region mid-run, at length 0 beside one at length 4: no new pool, the graph replays
    EXPECT_EQ(device->step_graph_in_use(), replays) << "the join dropped the step graph";
    step(5);
    EXPECT_EQ(device->step_graph_in_use(), replays);
    leave(1);
    join(3);  // longer than every earlier one: a new region, a larger grid
    step(6);
    EXPECT_EQ(on_gpu->free_rows(), 0);
    leave(2);
    EXPECT_EQ(on_gpu->free_rows(), beams);
    step(2);  // a free slot beside a document
}

INSTANTIATE_TEST_SUITE_P(Beams, DeviceBatchDecoderScript, ::testing::Values(1, 3),
                         [](const auto& info) { return info.param == 1 ? "greedy" : "beam3"; });

}  // namespace
}  // namespace precis::test
