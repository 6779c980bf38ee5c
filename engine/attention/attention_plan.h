#pragma once
// Which keys each block of query rows attends to, as data: the geometry of full, LSG and
// Fovea attention written once and read by the device kernels (kernels/ops/
// plan_attention.h), and checked on the CPU against what the CPU attention records
// (AttentionRecorder) and against lsg-spec.md.
//
// A plan is a list of query blocks; each names a run of segments, and a segment is a
// range of key indices in one of the key sources. Sources, by number:
//   0  token rows in G+T numbering (global keys are rows [0, G), token t is row G+t);
//   1  the sparse sequence of LSG (per head, T/f keys);
//   2  the Fovea tree nodes (node n is rows [n*BL, (n+1)*BL)).
// Indices outside a source's range stand for the reference's zero keys with mask MIN and
// are skipped (their weight is exactly 0). The data-dependent part of the sparse types
// (which keys norm keeps, where lsh hashes) is in how source 1 is built, not in the plan.
#include <cstdint>
#include <vector>

#include "engine/config/config.h"

namespace precis {

enum PlanSource : int32_t { kTokenRows = 0, kSparseKeys = 1, kFoveaNodes = 2 };

struct PlanSegment {
    int32_t source = kTokenRows;
    int32_t begin = 0;  // may be negative: out-of-range keys are skipped
    int32_t count = 0;
};

struct PlanBlock {
    int32_t query_begin = 0, query_end = 0;     // query rows (G+T numbering)
    int32_t segment_begin = 0, segment_end = 0;  // into AttentionPlan::segments
};

struct AttentionPlan {
    std::vector<PlanBlock> blocks;
    std::vector<PlanSegment> segments;
    int32_t max_block_rows() const;
    int64_t keys_of_block(size_t b) const;  // segment lengths summed (out-of-range keys included)
};

// Every query row attends to all `rows` key rows, in query blocks of `tile` rows.
AttentionPlan full_attention_plan(int rows, int tile);

// LSG, sparse path (T > 2B, T % B == 0; lsg-spec.md 3.B): the G global queries attend to all
// G+T rows (in blocks of B); query block i of the tokens sees the G global keys, sparse keys
// [(i-1)p - SB, (i-1)p) and [(i+2)p, (i+2)p + SB) (when the sparse part is on; p = B/f) and
// the local rows [(i-1)B, (i+2)B) of the tokens.
AttentionPlan lsg_attention_plan(int G, int T, const LsgSettings& s);

// Fovea (lsg-spec.md section 7): the G global queries attend to all rows; token query block s
// (of BL rows) sees the G global keys and the nodes fovea_select_nodes picks for it.
AttentionPlan fovea_attention_plan(int G, int T, const FoveaSettings& s);

}  // namespace precis
