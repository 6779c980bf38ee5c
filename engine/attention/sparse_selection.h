#pragma once
// What the sparse part of LSG attention actually used on one input, for one head of one
// layer: every key of the compressed sequence with the token rows it was built from, and
// which of those keys each query block saw. For the fixed types (stride, block_stride,
// pooling) this repeats the geometry; for the data-dependent ones (norm keeps the keys with
// the largest norm, lsh hashes keys into buckets, bos_pooling weighs each group by the first
// token's query) it is the only way to know what the model chose, so the attention panel
// draws it from here. Filled by lsg_attention through its AttentionRecorder.
#include <cstdint>
#include <vector>

#include "engine/config/config.h"

namespace precis {

// One key of the compressed (sparse) sequence.
struct SparseKeySource {
    std::vector<int32_t> rows;  // the input rows (G+T numbering) it is built from, ascending;
                                // empty when every candidate was padding (a masked key)
    std::vector<float> shares;  // each row's share of the key, summing to 1 (a plain average
                                // gives 1/n each; bos_pooling gives the first token's softmax)
};

// The sparse keys one query block attended to (before and after its local window).
struct SparseBlockKeys {
    int32_t query_begin = 0, query_end = 0;  // query rows, G+T numbering
    std::vector<int32_t> keys;               // indices into SparseSelection::keys
};

struct SparseSelection {
    // The type that built the keys: lsh with sparsity_factor == sparse_block_size builds
    // as bos_pooling (as the reference does); a factor of 1 copies every token.
    SparsityType built_as = SparsityType::None;
    int32_t factor = 1;
    std::vector<SparseKeySource> keys;
    std::vector<SparseBlockKeys> blocks;
    bool empty() const { return keys.empty(); }
};

}  // namespace precis
