#include "engine/attention/attention_plan.h"

#include <algorithm>

#include "engine/attention/attention_pattern.h"
#include "engine/core/error.h"

namespace precis {

int32_t AttentionPlan::max_block_rows() const {
    int32_t m = 0;
    for (const PlanBlock& b : blocks) m = std::max(m, b.query_end - b.query_begin);
    return m;
}

int64_t AttentionPlan::keys_of_block(size_t b) const {
    int64_t n = 0;
    for (int32_t s = blocks.at(b).segment_begin; s < blocks.at(b).segment_end; ++s) n += segments[size_t(s)].count;
    return n;
}

namespace {

// Query rows [q0, q1) in blocks of `tile`, each attending to every one of `rows` token rows.
void add_dense_blocks(AttentionPlan& plan, int q0, int q1, int rows, int tile) {
    for (int b = q0; b < q1; b += tile) {
        const int32_t seg = int32_t(plan.segments.size());
        plan.segments.push_back({kTokenRows, 0, rows});
        plan.blocks.push_back({b, std::min(b + tile, q1), seg, seg + 1});
    }
}

}  // namespace

AttentionPlan full_attention_plan(int rows, int tile) {
    check(rows > 0 && tile > 0, "attention plan: rows and tile must be positive");
    AttentionPlan plan;
    add_dense_blocks(plan, 0, rows, rows, tile);
    return plan;
}

AttentionPlan lsg_attention_plan(int G, int T, const LsgSettings& s) {
    const int B = s.block_size;
    check(G >= 1, "attention plan: the LSG sparse path needs at least one global token");
    check(B > 0 && T > 2 * B && T % B == 0,
          "attention plan: the LSG sparse path needs T > 2B and T % B == 0 (T = " + std::to_string(T) +
              ", B = " + std::to_string(B) + ")");
    AttentionPlan plan;
    add_dense_blocks(plan, 0, G, G + T, B);  // 1. global queries see every key
    const bool sparse = s.sparse_enabled();
    const int SB = sparse ? s.sparse_block_size : 0;
    const int p = sparse ? B / s.sparsity_factor : B;
    for (int i = 0; i < T / B; ++i) {  // 2. token blocks: globals, sparse before/after, local
        const int32_t first = int32_t(plan.segments.size());
        plan.segments.push_back({kTokenRows, 0, G});
        if (sparse) {
            plan.segments.push_back({kSparseKeys, (i - 1) * p - SB, SB});
            plan.segments.push_back({kSparseKeys, p == 1 ? i : (i + 2) * p, SB});
        }
        const int l0 = std::max((i - 1) * B, 0), l1 = std::min((i + 2) * B, T);
        plan.segments.push_back({kTokenRows, G + l0, l1 - l0});
        plan.blocks.push_back({G + i * B, G + (i + 1) * B, first, int32_t(plan.segments.size())});
    }
    return plan;
}

AttentionPlan fovea_attention_plan(int G, int T, const FoveaSettings& s) {
    const int BL = s.block_size;
    check(G >= 0 && T > 0 && BL > 0, "attention plan: Fovea needs G >= 0, T > 0 and block_size > 0");
    check(s.wing >= 1, "attention plan: Fovea wing must be >= 1 (got " + std::to_string(s.wing) + ")");
    const int NB = (T + BL - 1) / BL;
    const int top = fovea_top_level(NB, s);
    // Node numbering of source 2, level by level as build_fovea_nodes writes it: level q
    // holds NB - 2^q + 1 nodes, so its first node follows all nodes of the lower levels.
    std::vector<int32_t> level_first(size_t(top) + 1, 0);
    for (int q = 1; q <= top; ++q) level_first[size_t(q)] = level_first[size_t(q) - 1] + NB - (1 << (q - 1)) + 1;
    AttentionPlan plan;
    if (G > 0) add_dense_blocks(plan, 0, G, G + T, BL);  // global queries see every row
    for (int b = 0; b < NB; ++b) {
        const int32_t first = int32_t(plan.segments.size());
        if (G > 0) plan.segments.push_back({kTokenRows, 0, G});
        for (const FoveaNode& nd : fovea_select_nodes(NB, b, s))
            plan.segments.push_back({kFoveaNodes, (level_first[size_t(nd.level)] + nd.start) * BL, BL});
        plan.blocks.push_back({G + b * BL, G + std::min((b + 1) * BL, T), first, int32_t(plan.segments.size())});
    }
    return plan;
}

}  // namespace precis
