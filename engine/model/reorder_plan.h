#pragma once
// The copies a beam reorder makes in a decoder's self-attention caches, planned once for
// both decoders (the CPU's DecoderState::reorder and the CUDA runner's CacheReorder):
// afterwards row r holds what row parents[r] held. Rows whose parent is themselves are not
// touched, and a parent that is itself overwritten is first saved to a scratch slot, once;
// nothing else is copied.
#include <cstdint>
#include <vector>

namespace precis {

// One copy: a row (or its saved copy in a scratch slot) to another place. Plain int32
// fields: the CUDA runner uploads these as they are.
struct ReorderMove {
    int32_t src_row, src_slot;  // slot >= 0: read scratch slot src_slot instead of a cache row
    int32_t dst_row, dst_slot;  // slot >= 0: write scratch slot dst_slot instead of a cache row
};

struct ReorderPlan {
    std::vector<ReorderMove> moves;  // the saves first, then the writes
    int saves = 0;                   // every save must land before any write starts
    int slots = 0;                   // scratch rows the saves need
    int writes() const { return int(moves.size()) - saves; }
};

// parents: one per row, each naming an existing row (the callers check).
ReorderPlan plan_reorder(const std::vector<int>& parents);

}  // namespace precis
