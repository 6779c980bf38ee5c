// The beam reorder's copy plan, which both decoders carry out (the CPU's DecoderState and the
// CUDA runner's CacheReorder, engine/model/reorder_plan.h): carried out as the two do it (every
// save, then every write), it leaves each row holding its parent's history, for every parent
// vector of up to six rows; and it copies nothing it need not.
#include "engine/model/reorder_plan.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace precis {
namespace {

// Rows hold their own index; the plan is carried out on them as the decoders do.
std::vector<int> carried_out(const ReorderPlan& plan, int rows) {
    std::vector<int> row(static_cast<size_t>(rows)), slot(static_cast<size_t>(plan.slots), -1);
    for (int r = 0; r < rows; ++r) row[size_t(r)] = r;
    for (int i = 0; i < int(plan.moves.size()); ++i) {
        const ReorderMove& m = plan.moves[size_t(i)];
        EXPECT_EQ(i < plan.saves, m.dst_slot >= 0) << "the saves come first, then the writes";
        const int value = m.src_slot >= 0 ? slot[size_t(m.src_slot)] : row[size_t(m.src_row)];
        if (m.dst_slot >= 0)
            slot[size_t(m.dst_slot)] = value;
        else
            row[size_t(m.dst_row)] = value;
    }
    return row;
}

void check(const std::vector<int>& parents) {
    const int rows = int(parents.size());
    const ReorderPlan plan = plan_reorder(parents);
    ASSERT_EQ(carried_out(plan, rows), parents);  // row r now holds what parents[r] held
    int moved = 0, overwritten_parents = 0;
    std::vector<char> is_parent(size_t(rows), 0);
    for (int r = 0; r < rows; ++r) {
        moved += parents[size_t(r)] != r;
        if (parents[size_t(r)] != r) is_parent[size_t(parents[size_t(r)])] = 1;
    }
    for (int r = 0; r < rows; ++r) overwritten_parents += is_parent[size_t(r)] && parents[size_t(r)] != r;
    EXPECT_EQ(plan.writes(), moved) << "only rows that change parent are written";
    EXPECT_EQ(plan.saves, overwritten_parents) << "a parent is saved only when it is itself overwritten, once";
    EXPECT_EQ(plan.slots, plan.saves);
}

TEST(ReorderPlan, EveryParentVectorOfUpToSixRowsLeavesEachRowItsParentsHistory) {
    for (int rows = 1; rows <= 6; ++rows) {
        std::vector<int> parents(size_t(rows), 0);
        while (true) {
            check(parents);
            if (HasFatalFailure()) return;
            int i = 0;  // the next vector, counting in base `rows`
            while (i < rows && ++parents[size_t(i)] == rows) parents[size_t(i++)] = 0;
            if (i == rows) break;
        }
    }
}

TEST(ReorderPlan, KeepingEveryRowCopiesNothingAndSwappingSavesBoth) {
    EXPECT_TRUE(plan_reorder({0, 1, 2, 3}).moves.empty());
    const ReorderPlan swap = plan_reorder({1, 0});
    EXPECT_EQ(swap.saves, 2);
    EXPECT_EQ(swap.writes(), 2);
}

TEST(ReorderPlan, ManyDocumentsBeamsEachWithinItsOwnRows) {
    // 64 documents of 4 beams, as a batched step reorders them: parents within each document.
    std::mt19937 rng(5);
    for (int trial = 0; trial < 50; ++trial) {
        std::vector<int> parents;
        for (int d = 0; d < 64; ++d)
            for (int b = 0; b < 4; ++b) parents.push_back(d * 4 + int(rng() % 4));
        check(parents);
    }
}

}  // namespace
}  // namespace precis
