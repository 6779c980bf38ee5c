#pragma once
// What one query block sees, key by key, with the token rows each key stands for: the
// geometry the pattern view draws at token scale, where the sparsity types really differ
// (a pooled key is a span of averaged tokens, a strided key one token, a block-strided run a
// row of neighbours, an lsh key a scattered cluster). Built from the static pattern, or from
// the selection the engine recorded on the open document. No widgets: tests read it directly.
#include <vector>

#include "engine/attention/attention_pattern.h"
#include "engine/attention/sparse_selection.h"

namespace precis::ui {

// How a key is drawn (and named in the legend).
enum class KeyStyle {
    Global,      // a global token
    Local,       // a neighbour in the local window
    Dense,       // short text: full attention
    Single,      // a far key that is one token (stride, block_stride, norm's pick, factor 1)
    Averaged,    // a far key averaging neighbouring tokens evenly (pooling)
    Weighted,    // a far key averaging neighbours with weights set by the first token (bos_pooling)
    Cluster,     // a far key averaging a hashed cluster of tokens (lsh)
    Candidates,  // where a data-dependent key will be chosen from (norm, lsh, no run yet)
    FoveaNode,   // a Fovea tree node: positions averaged over its blocks
};

struct StripKey {
    KeyStyle style = KeyStyle::Local;
    std::vector<int> rows;      // the input rows (G+T numbering) it stands for, ascending
    std::vector<float> shares;  // each row's share of the key; empty when not known (no run)
    int index = 0;              // which key of its kind (adjacent pooled keys alternate shades)
    int level = 0;              // Fovea node level
};

struct KeyStrip {
    int query_begin = 0, query_end = 0;  // the query block, rows
    int num_global = 0, rows = 0;        // G and G + T
    bool from_document = false;          // built from the engine's recorded selection
    std::vector<StripKey> keys;

    // The token rows any non-global key reaches (begin, end); {G, G} when none.
    std::pair<int, int> reach() const;
    // The key a row belongs to (the first that lists it; Candidates last), or nullptr.
    const StripKey* key_at(int row) const;
};

// Query blocks of the token rows (global query rows left out), in order.
std::vector<std::pair<int, int>> query_blocks(const AttentionPattern& pattern);

// The keys of query block `block` (an index into query_blocks) for `head`. `weighted_pools`
// marks pooled keys as bos_pooling's weighted averages (the pattern alone cannot tell).
KeyStrip key_strip_from_pattern(const AttentionPattern& pattern, int block, int head, bool weighted_pools);

// The same block with its far keys as the engine built them on a document: `selection`
// must come from a run with the same settings as `pattern` (blocks match by query rows).
// Returns the static strip when the selection has no block with those rows.
KeyStrip key_strip_from_selection(const AttentionPattern& pattern, const SparseSelection& selection, int block,
                                  int head);

}  // namespace precis::ui
