#pragma once
// Internal building blocks shared by the attention cores (not part of the public API).
#include <vector>

#include "engine/attention/attention.h"

namespace precis::attn_detail {

inline constexpr float kMaskMin = -3.4028234663852886e38f;  // lowest finite float32

// A run of keys/values for one head: key j is k + j*ld (head_dim floats), same for v;
// mask: additive per key (null = 0).
struct KeySegment {
    const float* k = nullptr;
    const float* v = nullptr;
    int ld = 0;
    int count = 0;
    const float* mask = nullptr;
};

// Per-thread scratch of block_attention.
struct BlockScratch {
    std::vector<float> scores;
    std::vector<float> mask_row;
    std::vector<float> keys_t;    // the keys transposed (fp32_block_attention.h)
    std::vector<float> values_t;  // the values in slices of 32 columns (the same)
};

// out[r] (nq rows, stride ldo, head_dim wide) = softmax(scale * q[r].K^T + mask) V over the
// concatenated segments, in order. If weights is not null, the softmax matrix (nq x total keys)
// is copied there. No query rows: nothing; no keys: zeros. Else, on AVX-512 for the head
// widths it serves, the fused kernel of fp32_block_attention.h; else sgemm_block_attention.
void block_attention(const float* q, int ldq, int nq, const KeySegment* segs, int nsegs, int head_dim,
                     float scale, float* out, int ldo, BlockScratch& scratch, std::vector<float>* weights = nullptr);

// The same with two sgemm per segment and a softmax over the whole score tile in between,
// for at least one query row and one key (block_attention sees to both).
void sgemm_block_attention(const float* q, int ldq, int nq, const KeySegment* segs, int nsegs, int head_dim,
                           float scale, float* out, int ldo, BlockScratch& scratch,
                           std::vector<float>* weights = nullptr);

// Row-wise in-place softmax of s (rows x cols, stride ld) after adding mask (length cols,
// may be null). Vectorized exp; exp of anything below -87.3 is exactly 0.
void softmax_rows(float* s, int rows, int cols, int ld, const float* mask);

// Dense attention for query rows [row_begin, row_end) of `in` over all its rows, tiled so
// that memory is O(tile * rows). Runs its own OpenMP loop over (tile, head).
void dense_attention_rows(const AttentionInput& in, int row_begin, int row_end, const float* key_mask, float* out,
                          AttentionRecorder* recorder);

// Keeps OpenBLAS single-threaded while alive (our own OpenMP loops call sgemm from
// several threads; nested BLAS threads only slow that down). Re-entrant and thread safe:
// the previous thread count is restored when the last scope ends.
class BlasSingleThreadScope {
public:
    BlasSingleThreadScope();
    ~BlasSingleThreadScope();
    BlasSingleThreadScope(const BlasSingleThreadScope&) = delete;
    BlasSingleThreadScope& operator=(const BlasSingleThreadScope&) = delete;
};

void check_input(const AttentionInput& in, const char* who);

}  // namespace precis::attn_detail
