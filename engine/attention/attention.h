#pragma once
// Encoder self-attention cores on the CPU: full (dense), LSG (lsg-spec.md section 3)
// and Fovea (lsg-spec.md section 7). They take the projected Q, K, V of one batch row
// (biases added, not pre-scaled) and write the concatenated head outputs, before out_proj.
//
// Conventions shared by all three:
//  * scores are (q.k) / sqrt(head_dim) + additive mask; softmax in fp32;
//  * additive masks hold 0 (attend) or lowest float (masked); s + lowest == lowest in
//    fp32, so masked keys get a weight of exactly 0;
//  * memory is O(rows * tile) for full attention and linear in rows for LSG/Fovea; no
//    call ever allocates rows x rows;
//  * work is split over (query block, head) with OpenMP; the block products use
//    cblas_sgemm. While a call runs, OpenBLAS is kept single-threaded (restored after).
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "engine/attention/sparse_selection.h"
#include "engine/core/tensor.h"
#include "engine/config/config.h"

namespace precis {

// Where the LSH projection matrices come from: injected (tests, the fixtures'
// lsh_R_<layer>_<round>, shape [1, h, 1, hd, n_hashes]) or drawn from a seeded,
// counter-based generator (normal runs, reproducible on every platform).
//
// The reference draws a fresh R per (forward, layer, round), shared by the whole batch.
// Call next_call() once per encoder forward; every batch row of that forward then gets
// the same R for a given (layer, round). Round r < lsh_num_pre_rounds is a pre-round,
// round lsh_num_pre_rounds the final one.
class LshProjections {
public:
    LshProjections() = default;
    static LshProjections seeded(uint64_t seed);

    // r: F32 [1, h, 1, head_dim, n_hashes] or [h, head_dim, n_hashes]. Injected matrices are
    // used for every call (as the fixtures were produced).
    void inject(int layer, int round, Tensor r);
    void clear_injected() { injected_.clear(); }
    bool has_injected(int layer, int round) const { return injected_.count({layer, round}) != 0; }

    void next_call() { ++call_; }
    uint64_t call_index() const { return call_; }
    uint64_t seed() const { return seed_; }

    // R as [heads, head_dim, n_hashes], row-major. Throws precis::Error when an injected
    // matrix has another shape.
    std::vector<float> get(int layer, int round, int heads, int head_dim, int n_hashes) const;

private:
    uint64_t seed_ = 0;
    uint64_t call_ = 0;
    std::map<std::pair<int, int>, Tensor> injected_;
};

// What the dense attention's two products (q.k^T, p.v) compute in: float32, or bfloat16
// with float32 sums for int8 runs (bf16_attention.h). Softmax is float32 either way.
enum class AttentionProducts : uint8_t { Float32, Bfloat16 };

struct AttentionInput {
    const float* q = nullptr;  // [rows, heads*head_dim] row-major
    const float* k = nullptr;
    const float* v = nullptr;
    int rows = 0;  // G + T
    int heads = 0, head_dim = 0;
    AttentionProducts products = AttentionProducts::Float32;
};

// What one key of a recorded attention row stands for (see AttentionRecorder).
enum class AttentionKeyKind : uint8_t {
    Dense,   // full attention (short fallback, global queries, plain BART)
    Global,  // a global token
    Local,   // a token of the local window
    Sparse,  // a compressed / selected key from the sparse sequence
    Fovea,   // a key of a Fovea tree node
};

// Optional capture of the attention weights of one head (pass null for zero cost). Dense
// parts (full attention, short fallback, global queries) record rows x all keys: for long
// inputs capture with LSG/Fovea, or only from short runs.
// Rows are G+T numbered. Each captured block is a dense [query rows x keys] matrix of the
// softmax weights; keys that are provably zero (out of range) are not listed.
struct AttentionRecorder {
    int head = 0;  // the head to capture (set by the caller)

    struct Key {
        int32_t row_begin = 0, row_end = 0;  // input rows this key is built from (one row for a plain key)
        int32_t step = 1;                    // rows row_begin, row_begin+step, ... < row_end
        AttentionKeyKind kind = AttentionKeyKind::Dense;
    };
    struct Block {
        int32_t query_begin = 0, query_end = 0;
        std::vector<Key> keys;
        std::vector<float> weights;  // (query_end - query_begin) x keys.size(), row-major
    };
    std::vector<Block> blocks;  // filled by the call (cleared first)
    // LSG sparse path only: the sparse keys this head used and what each was built from
    // (cleared first; stays empty on dense and Fovea paths).
    SparseSelection sparse;
};

// Dense attention: softmax(q.k / sqrt(hd) + key_mask) v over all rows.
// key_mask: additive, length rows, or null (no mask). out: [rows, heads*head_dim].
void full_attention(const AttentionInput& in, const float* key_mask, float* out,
                    AttentionRecorder* recorder = nullptr);

// LSG encoder self-attention (lsg-spec.md section 3). Rows 0..G-1 are the global tokens
// (always attendable), rows G..G+T-1 the (adaptively padded) tokens; token_mask is the
// additive mask of the T tokens. T <= 2B: full attention over G+T. T > 2B: T % B == 0 is
// required, and the sparse path runs with keys per query = G + 2*SB + 3*B. `layer` picks
// the LSH projections; lsh may be null unless the sparsity type is lsh (and f != SB).
// Throws precis::Error on invalid settings (B % f, odd p > 1, 4*SB <= 3*p, unknown type,
// T % min(B, SB) for norm/lsh, num_global < 1).
void lsg_attention(const AttentionInput& in, const float* token_mask, int num_global, const LsgSettings& s,
                   int layer, LshProjections* lsh, float* out, AttentionRecorder* recorder = nullptr);

// Checks `s` as lsg_attention does for padded length T (the length conditions apply only to
// the sparse path, T > 2B); throws precis::Error naming the values.
void check_lsg_attention_settings(const LsgSettings& s, int T);

// Fovea attention (lsg-spec.md section 7) with BART scaling. The T = rows - G token rows are
// split in blocks of BL (the last one padded internally with zero keys, masked); every token
// query attends to the G global keys plus the keys of its selected tree nodes (see
// fovea_select_nodes). The G global queries attend to all rows. key_mask: additive, length
// rows (global entries included), or null. A tree node key at position i of its block is
// the element-wise mean of its member blocks' keys at i; it is masked only when every
// member token at i is masked ("masks pool with OR": valid if any member is valid).
void fovea_attention(const AttentionInput& in, const float* key_mask, int num_global, const FoveaSettings& s,
                     float* out, AttentionRecorder* recorder = nullptr);

}  // namespace precis
