// The attention plans (engine/attention/attention_plan.h) against what the CPU attention
// actually computes: the device kernels read only the plan, so every key the CPU records
// for a query block must be listed by the plan, in the same order, and nothing else.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/attention/attention.h"
#include "engine/attention/attention_pattern.h"
#include "engine/attention/attention_plan.h"
#include "engine/model/encoder.h"
#include "engine/model/model.h"
#include "tests/engine/attention_test_util.h"
#include "tests/support/fixture_case.h"
#include "tests/support/fixtures.h"

namespace precis::test {
namespace {

// A recorded key as (source, index) in plan terms.
struct PlanKey {
    int32_t source, index;
    bool operator==(const PlanKey&) const = default;
};

// The in-range keys of plan block b, in order (out-of-range indices are masked zero keys the
// CPU skips and does not record).
std::vector<PlanKey> plan_keys(const AttentionPlan& plan, size_t b, const int32_t range[3]) {
    std::vector<PlanKey> keys;
    const PlanBlock& blk = plan.blocks[b];
    for (int32_t s = blk.segment_begin; s < blk.segment_end; ++s) {
        const PlanSegment& seg = plan.segments[size_t(s)];
        for (int32_t j = seg.begin; j < seg.begin + seg.count; ++j)
            if (j >= 0 && j < range[seg.source]) keys.push_back({seg.source, j});
    }
    return keys;
}

struct LsgCase {
    SparsityType type;
    int B, SB, f, G, T, heads, hd, pad;
};

std::string describe(const LsgCase& c) {
    return std::string(sparsity_type_name(c.type)) + " B " + std::to_string(c.B) + " SB " + std::to_string(c.SB) +
           " f " + std::to_string(c.f) + " G " + std::to_string(c.G) + " T " + std::to_string(c.T);
}

LsgSettings settings_of(const LsgCase& c) {
    LsgSettings s;
    s.block_size = c.B;
    s.sparse_block_size = c.SB;
    s.sparsity_factor = c.f;
    s.sparsity_type = c.type;
    s.num_global_tokens = c.G;
    return s;
}

// Runs lsg_attention with a recorder on every head and compares each recorded block's keys
// with the plan's block at the same query rows.
void check_lsg_plan(const LsgCase& c) {
    SCOPED_TRACE(describe(c));
    const LsgSettings s = settings_of(c);
    const AttentionPlan plan = lsg_attention_plan(c.G, c.T, s);
    const RandomQkv x = random_qkv(c.G + c.T, c.heads, c.hd, 1234u + uint32_t(c.T));
    const std::vector<float> mask = token_mask_with_padding(c.T, c.pad, {c.T / 3});
    std::vector<float> out(size_t(c.G + c.T) * x.D());
    LshProjections lsh = LshProjections::seeded(7);
    const bool sparse = s.sparse_enabled();
    const int32_t range[3] = {c.G + c.T, sparse ? c.T / c.f : 0, 0};

    // Every query row is in exactly one block, blocks in row order.
    int32_t next = 0;
    for (const PlanBlock& b : plan.blocks) {
        EXPECT_EQ(b.query_begin, next);
        next = b.query_end;
    }
    EXPECT_EQ(next, c.G + c.T);

    for (int h = 0; h < c.heads; ++h) {
        AttentionRecorder rec;
        rec.head = h;
        lsg_attention(x.input(), mask.data(), c.G, s, 0, &lsh, out.data(), &rec);
        // Recorded dense blocks (global queries) are matched to plan blocks by query range.
        size_t sparse_block = 0;
        for (const AttentionRecorder::Block& blk : rec.blocks) {
            size_t pb = 0;
            while (pb < plan.blocks.size() &&
                   !(plan.blocks[pb].query_begin <= blk.query_begin && blk.query_end <= plan.blocks[pb].query_end))
                ++pb;
            ASSERT_LT(pb, plan.blocks.size()) << "recorded rows " << blk.query_begin << ".." << blk.query_end;
            std::vector<PlanKey> recorded;
            size_t sk = 0;  // position in this block's recorded sparse indices
            const bool token_block = blk.query_begin >= c.G;
            for (const AttentionRecorder::Key& k : blk.keys) {
                switch (k.kind) {
                    case AttentionKeyKind::Dense:
                    case AttentionKeyKind::Global:
                    case AttentionKeyKind::Local: recorded.push_back({kTokenRows, k.row_begin}); break;
                    case AttentionKeyKind::Sparse: {
                        ASSERT_TRUE(sparse && token_block);
                        const SparseBlockKeys& seen = rec.sparse.blocks.at(sparse_block);
                        ASSERT_LT(sk, seen.keys.size());
                        recorded.push_back({kSparseKeys, seen.keys[sk++]});
                        break;
                    }
                    case AttentionKeyKind::Fovea: FAIL() << "Fovea key in an LSG recording";
                }
            }
            if (token_block) ++sparse_block;
            const std::vector<PlanKey> planned = plan_keys(plan, pb, range);
            ASSERT_EQ(recorded.size(), planned.size()) << "block rows " << blk.query_begin;
            for (size_t i = 0; i < planned.size(); ++i)
                ASSERT_EQ(recorded[i], planned[i]) << "block rows " << blk.query_begin << " key " << i;
        }
    }
}

TEST(AttentionPlan, LsgPlanListsTheRecordedKeys) {
    const std::vector<LsgCase> cases = {
        {SparsityType::Norm, 8, 8, 2, 1, 48, 2, 4, 3},
        {SparsityType::Norm, 8, 4, 2, 2, 40, 2, 4, 0},
        {SparsityType::Pooling, 8, 8, 4, 1, 32, 2, 4, 5},
        {SparsityType::Stride, 8, 8, 2, 1, 32, 3, 4, 2},
        {SparsityType::BlockStride, 8, 8, 2, 1, 32, 3, 4, 2},
        {SparsityType::BosPooling, 8, 8, 4, 2, 32, 2, 4, 1},
        {SparsityType::Lsh, 8, 8, 2, 1, 32, 2, 4, 3},
        {SparsityType::Lsh, 8, 4, 4, 1, 32, 2, 4, 0},  // f == SB: built as bos_pooling
        {SparsityType::Pooling, 8, 8, 8, 1, 40, 2, 4, 0},  // p == 1: second range starts at i
        {SparsityType::Stride, 8, 8, 8, 1, 40, 2, 4, 2},
        {SparsityType::Norm, 8, 8, 1, 1, 32, 2, 4, 2},     // f == 1: identity
        {SparsityType::None, 8, 8, 2, 1, 32, 2, 4, 2},     // sparse part off
        {SparsityType::Pooling, 4, 12, 2, 3, 36, 2, 4, 1},  // SB > B
    };
    for (const LsgCase& c : cases) check_lsg_plan(c);
}

// The plans of the settings and shapes every reference case runs: each row on the sparse
// path, with the model's heads and head size, its own padding and global tokens.
class AttentionPlanOfCase : public ::testing::TestWithParam<std::string> {};

TEST_P(AttentionPlanOfCase, EveryRowOnTheSparsePathHasAPlanListingTheRecordedKeys) {
    const FixtureCase c = FixtureCase::load(GetParam());
    auto model = Model::load(c.model_dir, {.load_tokenizer = false});
    int rows = 0;
    for (const std::string& batch : c.batches()) {
        const ForwardRequest req = c.request(batch, *model);
        if (req.attention.kind != EncoderAttention::Lsg) continue;
        const LsgSettings& s = req.attention.lsg;
        for (size_t r = 0; r < req.input_ids.size(); ++r) {
            const EncoderRowInput row = prepare_encoder_row(*model, req.attention, req.input_ids, req.attention_mask, r);
            if (!row.sparse) continue;
            ++rows;
            check_lsg_plan({s.sparsity_type, s.block_size, s.sparse_block_size, s.sparsity_factor, row.global,
                            row.padded, int(model->config().encoder_heads), int(model->config().encoder_head_dim()),
                            row.padded - row.length});
        }
    }
    if (rows == 0) GTEST_SKIP() << GetParam() << " runs no row on the sparse path";
}

INSTANTIATE_TEST_SUITE_P(AllReferenceCases, AttentionPlanOfCase, ::testing::ValuesIn(fixture_case_names()),
                         fixture_case_label);

TEST(AttentionPlan, LsgPlanRejectsTheShortPath) {
    LsgSettings s;
    s.block_size = 8;
    EXPECT_THROW(lsg_attention_plan(1, 16, s), Error);  // T <= 2B: full attention instead
    EXPECT_THROW(lsg_attention_plan(1, 36, s), Error);  // T % B != 0
    EXPECT_THROW(lsg_attention_plan(0, 32, s), Error);  // no global token
}

TEST(AttentionPlan, FullPlanCoversAllRows) {
    for (int rows : {1, 5, 64, 130}) {
        const AttentionPlan plan = full_attention_plan(rows, 32);
        int32_t next = 0;
        for (size_t b = 0; b < plan.blocks.size(); ++b) {
            EXPECT_EQ(plan.blocks[b].query_begin, next);
            EXPECT_LE(plan.blocks[b].query_end - plan.blocks[b].query_begin, 32);
            next = plan.blocks[b].query_end;
            EXPECT_EQ(plan.keys_of_block(b), rows);
            const PlanSegment& seg = plan.segments[size_t(plan.blocks[b].segment_begin)];
            EXPECT_EQ(seg.source, kTokenRows);
            EXPECT_EQ(seg.begin, 0);
        }
        EXPECT_EQ(next, rows);
        EXPECT_LE(plan.max_block_rows(), 32);
    }
}

// Fovea: each token block lists the G globals then one BL-key segment per selected node, the
// node numbered level by level; the recorded Fovea keys (row_begin = G + start*BL + i) must
// match node (level, start) position i.
void check_fovea_plan(int G, int T, const FoveaSettings& s) {
    SCOPED_TRACE("G " + std::to_string(G) + " T " + std::to_string(T) + " BL " + std::to_string(s.block_size) +
                 " w " + std::to_string(s.wing) + " stop " + std::to_string(s.stop_level) + " edges " +
                 std::to_string(s.cover_edges));
    const int BL = s.block_size, NB = (T + BL - 1) / BL, top = fovea_top_level(NB, s);
    std::vector<int> level_first(size_t(top) + 1, 0);
    int nodes = 0;
    for (int q = 0; q <= top; ++q) {
        level_first[size_t(q)] = nodes;
        nodes += NB - (1 << q) + 1;
    }
    const AttentionPlan plan = fovea_attention_plan(G, T, s);
    const int32_t range[3] = {G + T, 0, nodes * BL};
    const RandomQkv x = random_qkv(G + T, 1, 4, 99u);
    std::vector<float> key_mask(size_t(G + T), 0.0f);
    key_mask[size_t(G + T - 1)] = kMin;
    std::vector<float> out(size_t(G + T) * x.D());
    AttentionRecorder rec;
    fovea_attention(x.input(), key_mask.data(), G, s, out.data(), &rec);

    int32_t next = 0;
    for (const PlanBlock& b : plan.blocks) {
        EXPECT_EQ(b.query_begin, next);
        next = b.query_end;
    }
    EXPECT_EQ(next, G + T);
    for (const AttentionRecorder::Block& blk : rec.blocks) {
        size_t pb = 0;
        while (pb < plan.blocks.size() &&
               !(plan.blocks[pb].query_begin <= blk.query_begin && blk.query_end <= plan.blocks[pb].query_end))
            ++pb;
        ASSERT_LT(pb, plan.blocks.size());
        const std::vector<PlanKey> planned = plan_keys(plan, pb, range);
        std::vector<PlanKey> recorded;
        if (blk.query_begin >= G) {
            // The recorder lists the G globals, then BL keys per node of fovea_select_nodes.
            const int b = (blk.query_begin - G) / BL;
            const std::vector<FoveaNode> sel = fovea_select_nodes(NB, b, s);
            ASSERT_EQ(blk.keys.size(), size_t(G) + sel.size() * size_t(BL));
            for (int j = 0; j < G; ++j) recorded.push_back({kTokenRows, blk.keys[size_t(j)].row_begin});
            for (size_t n = 0; n < sel.size(); ++n)
                for (int i = 0; i < BL; ++i) {
                    const AttentionRecorder::Key& k = blk.keys[size_t(G) + n * BL + size_t(i)];
                    ASSERT_EQ(k.kind, AttentionKeyKind::Fovea);
                    ASSERT_EQ(k.row_begin, G + sel[n].start * BL + i);
                    recorded.push_back({kFoveaNodes, (level_first[size_t(sel[n].level)] + sel[n].start) * BL + i});
                }
        } else {
            for (const AttentionRecorder::Key& k : blk.keys) recorded.push_back({kTokenRows, k.row_begin});
        }
        ASSERT_EQ(recorded.size(), planned.size()) << "block rows " << blk.query_begin;
        for (size_t i = 0; i < planned.size(); ++i)
            ASSERT_EQ(recorded[i], planned[i]) << "block rows " << blk.query_begin << " key " << i;
    }
}

TEST(AttentionPlan, FoveaPlanMatchesTheSelectedNodes) {
    FoveaSettings s;
    s.block_size = 4;
    check_fovea_plan(1, 64, s);
    check_fovea_plan(2, 61, s);  // last block padded
    s.wing = 2;
    check_fovea_plan(1, 100, s);
    s.stop_level = 1;
    check_fovea_plan(1, 64, s);
    s.cover_edges = false;
    check_fovea_plan(3, 50, s);
    s = FoveaSettings{};
    s.block_size = 8;
    check_fovea_plan(0, 8, s);  // one block, no globals
    check_fovea_plan(0, 70, s);
}

}  // namespace
}  // namespace precis::test
