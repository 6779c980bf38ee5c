// Many documents at once on the GPU (engine/generate/document_batch.h through the CUDA
// runner): in fp32 every reference case's rows, greedy and beam, run in batches beside
// documents of other lengths, give the ids the CPU gives each document alone and scores
// within the fixtures' tolerance; no document falls back to the CPU.
#include <gtest/gtest.h>

#include <cmath>

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
    auto cpu = make_cpu_backend();
    ASSERT_EQ(batched.size(), docs.size());
    for (size_t i = 0; i < docs.size(); ++i) {
        SCOPED_TRACE("document " + std::to_string(i));
        const BatchOutcome one = generate_alone(*model, *cpu, att, docs[i]);
        EXPECT_EQ(batched.at(int(i)).ids, one.ids);
        EXPECT_NEAR(batched.at(int(i)).score, one.score, 1e-3 * (1 + std::abs(one.score)));
    }
}

INSTANTIATE_TEST_SUITE_P(AllReferenceCases, CudaDocumentBatch, ::testing::ValuesIn(fixture_case_names()),
                         fixture_case_label);

}  // namespace
}  // namespace precis::test
