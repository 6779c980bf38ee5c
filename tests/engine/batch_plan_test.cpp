// The batch planning (engine/generate/batch_plan.h): order, groups under a token budget,
// and the auto batch bounded by rows and by memory.
#include <gtest/gtest.h>

#include "engine/generate/batch_plan.h"
#include "engine/model/model.h"
#include "tests/support/fixtures.h"

namespace precis::test {
namespace {

TEST(BatchPlan, LongestFirstKeepsTheOrderOfEqualLengths) {
    EXPECT_EQ(longest_first({5, 9, 5, 12, 9}), (std::vector<int>{3, 1, 4, 0, 2}));
    EXPECT_TRUE(longest_first({}).empty());
}

TEST(BatchPlan, GroupsStayWithinDocumentsAndPaddedTokens) {
    const std::vector<int> lengths{1000, 900, 800, 300, 200, 100, 5000};
    const std::vector<int> order = longest_first(lengths);  // 6, 0, 1, 2, 3, 4, 5
    const auto groups = group_in_order(order, lengths, 3, 2700);
    // 5000 alone (over the budget), then 1000+900 (a third would pad to 3000), 800x3, 100.
    ASSERT_EQ(groups.size(), 4u);
    EXPECT_EQ(groups[0], std::vector<int>{6});
    EXPECT_EQ(groups[1], (std::vector<int>{0, 1}));
    EXPECT_EQ(groups[2], (std::vector<int>{2, 3, 4}));
    EXPECT_EQ(groups[3], std::vector<int>{5});
    EXPECT_EQ(group_in_order(order, lengths, 100, 0).size(), 1u);  // no budget: documents alone bound it
    // Only documents that may share a batch (the same settings) do: here odd and even ones.
    const auto by_parity = group_in_order({0, 2, 1, 4, 3}, lengths, 3, 0, [](int a, int b) { return a % 2 == b % 2; });
    ASSERT_EQ(by_parity.size(), 4u);
    EXPECT_EQ(by_parity[0], (std::vector<int>{0, 2}));
    EXPECT_EQ(by_parity[1], std::vector<int>{1});
    EXPECT_EQ(by_parity[2], std::vector<int>{4});
    EXPECT_EQ(by_parity[3], std::vector<int>{3});
}

TEST(BatchPlan, AutoFillsTheRowsTargetWhenMemoryAllows) {
    const DocumentCost cost{1'000'000, 10'000};
    const BatchLimits greedy = auto_batch_limits(cost, 1, 1000, 100, 64'000'000'000ull, 32);
    EXPECT_EQ(greedy.max_documents, 32);
    EXPECT_TRUE(greedy.automatic);
    EXPECT_EQ(auto_batch_limits(cost, 4, 1000, 100, 64'000'000'000ull, 32).max_documents, 8);
    EXPECT_EQ(auto_batch_limits(cost, 1, 1000, 5, 64'000'000'000ull, 32).max_documents, 5);  // only 5 documents
}

TEST(BatchPlan, AutoStaysWithinHalfTheFreeMemory) {
    // One document: 1 MB of rows + 1000 memory rows of 10 kB = 11 MB; 110 MB free -> 55 MB -> 5.
    const DocumentCost cost{1'000'000, 10'000};
    const BatchLimits l = auto_batch_limits(cost, 1, 1000, 100, 110'000'000ull, 32);
    EXPECT_EQ(l.max_documents, 5);
    EXPECT_EQ(l.memory_bytes, 55'000'000ull);
    // Less than one document's worth still runs one at a time.
    EXPECT_EQ(auto_batch_limits(cost, 1, 1000, 100, 1'000'000ull, 32).max_documents, 1);
}

TEST(BatchPlan, AutoKeepsLongDocumentsOwnReadsWithinAFewTimesTheSharedWeights) {
    // 100 MB of weights a step reads once; each document's cross-attention memory 10 KB a
    // token: 16k-token documents (160 MB each) are batched only while their own reads stay
    // within kSharedReadsFactor x the weights.
    DocumentCost cost{1'000'000, 10'000, 10'000, 100'000'000};
    EXPECT_EQ(auto_batch_limits(cost, 4, 16'000, 100, 64'000'000'000ull, 128).max_documents,
              int(kSharedReadsFactor * 100'000'000 / (10'000ull * 16'000)));
    // Short documents: the rows target decides, as before.
    EXPECT_EQ(auto_batch_limits(cost, 4, 1'000, 100, 64'000'000'000ull, 128).max_documents, 32);
    // Never fewer than one.
    EXPECT_EQ(auto_batch_limits(cost, 4, 10'000'000, 100, 64'000'000'000ull, 128).max_documents, 1);
    // A device's batch (no shared bytes given) is not bounded by it.
    cost.shared_step_bytes = 0;
    EXPECT_EQ(auto_batch_limits(cost, 4, 16'000, 100, 64'000'000'000ull, 128).max_documents, 32);
}

TEST(BatchPlan, FloatStepsOnTheCpuAimForFewerRowsThanIntegerOnesAndADeviceForMore) {
    EXPECT_EQ(step_rows_target(ComputeType::Fp32, false), 64);
    EXPECT_EQ(step_rows_target(ComputeType::Int8, false), 128);
    EXPECT_EQ(step_rows_target(ComputeType::Fp16Weights, false), 128);
    for (ComputeType t : {ComputeType::Fp32, ComputeType::Int8, ComputeType::Fp16Weights})
        EXPECT_EQ(step_rows_target(t, true), 256) << compute_type_name(t);
    // Beam 4 over many short documents of a bart-large-sized decoder (880 MB of weights a
    // step, 100 kB of keys and values a token): fp32 takes 16 documents, int8 32.
    const DocumentCost cost{6'400'000, 100'000, 98'000, 880'000'000};
    EXPECT_EQ(auto_batch_limits(cost, 4, 1'088, 100, 24'000'000'000ull, step_rows_target(ComputeType::Fp32, false))
                  .max_documents,
              16);
    EXPECT_EQ(auto_batch_limits(cost, 4, 1'088, 100, 24'000'000'000ull, step_rows_target(ComputeType::Int8, false))
                  .max_documents,
              32);
}

TEST(BatchPlan, HalvingStopsAtOneDocument) {
    BatchLimits l = fixed_batch_limits(5, 0);
    EXPECT_TRUE(l.halve());
    EXPECT_EQ(l.max_documents, 2);
    EXPECT_TRUE(l.halve());
    EXPECT_EQ(l.max_documents, 1);
    EXPECT_FALSE(l.halve());
    EXPECT_EQ(describe(l), "1 document");
}

TEST(BatchPlan, ADocumentsCostGrowsWithTheModelAndTheLength) {
    auto model = Model::load(fixtures_dir() / "models" / "bart-tiny", {.load_tokenizer = false});
    const DocumentCost short_run = document_cost(*model, 20), long_run = document_cost(*model, 200);
    EXPECT_GT(short_run.per_row, 0u);
    EXPECT_GT(long_run.per_row, short_run.per_row);
    EXPECT_EQ(long_run.per_memory_row, short_run.per_memory_row);
    EXPECT_GE(short_run.per_memory_row, uint64_t(model->config().d_model) * 4);
}

}  // namespace
}  // namespace precis::test
