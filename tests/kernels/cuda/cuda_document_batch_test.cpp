// Many documents at once on the GPU (engine/generate/document_batch.h through the CUDA
// runner's batch decoder): in fp32 every reference case's rows, greedy and beam, run in
// batches beside documents of other lengths, finished documents leaving their slots to
// waiting ones mid-run, give the ids the CPU gives each document alone and scores within the
// fixtures' tolerance; no document falls back to the CPU. Cancelling stops at once, hands
// over exactly what finished, and the rest run again finish, each once.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "engine/backend/backend.h"
#include "engine/generate/model_runner.h"
#include "engine/model/model.h"
#include "kernels/backend_factory.h"
#include "tests/kernels/cuda/cuda_test_support.h"
#include "tests/support/document_batch_support.h"
#include "tests/support/fixture_case.h"
#include "tests/support/fixtures.h"

namespace precis::test {
namespace {

class CudaDocumentBatch : public ::testing::TestWithParam<std::string> {};

TEST_P(CudaDocumentBatch, Fp32BatchesGiveEachDocumentTheCpusIdsAlone) {
    PRECIS_REQUIRE_GPU();
    set_cpu_threads(2);
    const FixtureCase c = FixtureCase::load(GetParam());
    auto model = Model::load(c.model_dir, {.load_tokenizer = false});
    AttentionOptions att;
    const std::vector<BatchDoc> docs = documents_of_case(c, *model, &att);
    if (docs.empty()) GTEST_SKIP() << GetParam() << " has no generation (a classifier case)";
    BackendChoice gpu = make_backend({.device = "cuda", .dtype = "fp32", .model_bytes = 0, .cpu_threads = 2});
    ASSERT_NE(gpu.backend->runner(), nullptr) << "the CUDA backend has no runner";
    std::vector<std::string> notices;
    RunCallbacks cb;
    cb.on_notice = [&](const std::string& line) { notices.push_back(line); };
    const std::map<int, BatchOutcome> batched = generate_together(*model, *gpu.backend, att, docs, 3, nullptr, cb);
    EXPECT_TRUE(notices.empty()) << notices.front();
    EXPECT_NE(gpu.backend->runner(), nullptr) << "the run fell back to the CPU";
    expect_as_alone(*model, att, docs, batched, 1e-3);
}

TEST(CudaDocumentBatchCancel, CancellingHandsOverWhatFinishedAndTheRestFinishOnceAfter) {
    PRECIS_REQUIRE_GPU();
    set_cpu_threads(2);
    auto model = Model::load(fixtures_dir() / "models" / "bart-tiny", {.load_tokenizer = false});
    const AttentionOptions att = native_attention_options(*model);
    std::vector<BatchDoc> docs;
    for (int i = 0; i < 9; ++i) {
        BatchDoc d;
        d.ids = random_document_ids(6 + 11 * i, model->config(), uint32_t(400 + i));
        d.config = model->generation_config();
        d.config.num_beams = 2;
        d.config.max_new_tokens = 5 + 3 * i;
        docs.push_back(d);
    }
    BackendChoice gpu = make_backend({.device = "cuda", .dtype = "fp32", .model_bytes = 0, .cpu_threads = 2});
    ASSERT_NE(gpu.backend->runner(), nullptr);
    std::vector<int> finished;
    DocumentBatchCallbacks on;
    on.encode = [&](const std::vector<int>& js) {
        std::vector<std::vector<int64_t>> ids;
        for (int i : js) ids.push_back(docs[size_t(i)].ids);
        return std::move(run_encoder(*model, *gpu.backend, ids, {}, att, {}).rows);
    };
    on.finished = [&](int i, GenerationResult, const EncodedRow&) { finished.push_back(i); };
    std::vector<DocumentJob> jobs;
    for (const BatchDoc& d : docs) jobs.push_back({int(d.ids.size()), d.config});
    RunCallbacks cb;
    cb.should_abort = [&] { return finished.size() >= 3; };
    EXPECT_THROW(generate_documents(*model, *gpu.backend, jobs, {.batch_size = 3}, on, cb), Cancelled);
    EXPECT_EQ(finished.size(), 3u) << "cancel stops at once, also between documents finishing in one step";
    EXPECT_EQ(std::set<int>(finished.begin(), finished.end()).size(), finished.size());
    EXPECT_NE(gpu.backend->runner(), nullptr) << "cancelling is not a device failure";
    std::vector<BatchDoc> rest;
    for (size_t i = 0; i < docs.size(); ++i)
        if (std::find(finished.begin(), finished.end(), int(i)) == finished.end()) rest.push_back(docs[i]);
    const std::map<int, BatchOutcome> again = generate_together(*model, *gpu.backend, att, rest, 3);
    EXPECT_EQ(again.size(), rest.size());
}

INSTANTIATE_TEST_SUITE_P(AllReferenceCases, CudaDocumentBatch, ::testing::ValuesIn(fixture_case_names()),
                         fixture_case_label);

}  // namespace
}  // namespace precis::test
