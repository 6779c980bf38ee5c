#pragma once
// Static attention geometry for the GUI's attention panel (no Qt, no data): which key rows
// each query block sees and as what, for given LSG or Fovea settings and a length. Also the
// Fovea node selection used by fovea_attention itself.
//
// Rows are numbered as the attention input: 0..G-1 global tokens, G..G+T-1 tokens.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/config/config.h"

namespace precis {

enum class PatternKind : uint8_t {
    Dense,       // full attention (short fallback, global queries)
    Global,      // the global tokens
    Local,       // local window
    Sparse,      // sparse keys at known positions (stride, block_stride, pooled groups, f == 1)
    Candidates,  // data-dependent sparse keys (norm, lsh): key_count keys built from the range
    FoveaNode,   // one Fovea tree node: block_size keys, key i = mean of rows begin+i, begin+i+BL, ...
};
const char* pattern_kind_name(PatternKind k);

// One run of keys seen by the queries [query_begin, query_end).
// Keys: rows key_begin, key_begin+step, ... < key_end; with group > 1 every `group`
// consecutive such rows are pooled into one key (pooling / bos_pooling). For Candidates,
// key_count keys are chosen / hashed from the rows of the range. For FoveaNode, the node
// covers blocks of `step` (= BL) rows: key_count = BL keys, each the mean over the node's
// 2^level blocks at that position. `head` is -1 when all heads see the same keys.
struct PatternSpan {
    int32_t query_begin = 0, query_end = 0;
    int32_t key_begin = 0, key_end = 0;
    int32_t step = 1;
    int32_t group = 1;
    int32_t key_count = 0;  // keys this span contributes to each query
    int16_t head = -1;
    int16_t level = 0;      // Fovea node level
    PatternKind kind = PatternKind::Dense;
};

struct AttentionPattern {
    int32_t num_global = 0, tokens = 0, heads = 0;
    bool sparse_path = false;  // false: dense (short fallback)
    std::string summary;       // one line for the panel, e.g. "LSG norm: B=128 SB=128 f=4, 641 keys per query"
    std::vector<PatternSpan> spans;
};

// LSG geometry at padded length T with `heads` heads (stride/block_stride differ per head).
// Mirrors lsg_attention: out-of-range keys are omitted; throws precis::Error for settings
// lsg_attention rejects.
AttentionPattern lsg_attention_pattern(const LsgSettings& s, int num_global, int T, int heads);

// Fovea: a tree node of `level` covering blocks [start, start + 2^level).
struct FoveaNode {
    int level = 0;
    int start = 0;
    bool operator==(const FoveaNode&) const = default;
};
// Highest tree level used for num_blocks blocks (the stop level, capped by the tree height).
int fovea_top_level(int num_blocks, const FoveaSettings& s);
// Nodes selected by query block `query_block`, sorted by start: its own block, then per
// level p < top and k < w the right node starting at s + w(2^p - 1) + 1 + k 2^p and the
// mirrored left node; at the top level, consecutive nodes of that level up to the ends;
// with cover_edges, what remains at an end (shorter than the current node) is covered by
// the coarsest fitting nodes, nearest first. Nodes never overlap.
std::vector<FoveaNode> fovea_select_nodes(int num_blocks, int query_block, const FoveaSettings& s);
// Fovea geometry for T tokens (padded to a multiple of BL internally).
AttentionPattern fovea_attention_pattern(const FoveaSettings& s, int num_global, int T);

}  // namespace precis
