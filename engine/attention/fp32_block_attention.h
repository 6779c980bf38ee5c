#pragma once
// One block of float32 attention on AVX-512, fused: the scores, softmax and weighted values
// of eight query rows at a time, over keys and values packed once per block.
//
// Why: the general path (sgemm_block_attention) makes two sgemm calls per segment whose inner
// dimension is the head width (64), then a softmax that reads the whole score tile three
// times. At 1,024 tokens that ran at ~150 GFLOP/s a core, where the encoder's products run at
// ~250: the attention was a fifth of the fp32 encoder's time for a sixth of its arithmetic.
// Here the keys are transposed into panels of 32 (16x16 register transposes) and the values
// copied into 32-column slices, so both are read front to back; each group of eight rows
// scores 32 keys per kernel call with the scale and mask applied, keeping the row maximum as
// it writes; one exp pass keeps the sums aside and leaves the weights unnormalized; the
// values are weighed eight rows by 32 columns at a time, and divided by the sum at the end.
// One core: ~210 GFLOP/s at 1,024 keys (the score kernel near the FMA units' peak).
//
// A row's result depends on its query and the keys alone, never on which rows share its
// block (so batched = alone, whatever the tile). The sums differ from sgemm's in order
// only: against a double reference both paths agree to ~2e-6 (the test).
#include <vector>

#include "engine/attention/attention_kernels.h"

namespace precis::attn_detail {

// Whether fp32_block_attention serves this head width here: AVX-512 (not turned off by
// PRECIS_NO_ZMM) and head_dim 16, 32, 48 or 64.
bool fp32_block_attention_serves(int head_dim);

// block_attention's contract: out[r] = softmax(scale * q[r].K^T + mask) V over the concatenated
// segments, for at least one query row and one key (block_attention sees to both); weights,
// if not null, gets the softmax (nq x keys), the weights these very outputs were weighed with
// (so a capture changes no output bit).
void fp32_block_attention(const float* q, int ldq, int nq, const KeySegment* segs, int nsegs, int head_dim,
                          float scale, float* out, int ldo, BlockScratch& scratch,
                          std::vector<float>* weights = nullptr);

}  // namespace precis::attn_detail
