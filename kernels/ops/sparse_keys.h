#pragma once
// The sparse (compressed) keys and values of LSG attention on the device, one kernel per
// sparsity type, numerically as lsg-spec.md section 3 and the CPU's lsg_attention.cpp build
// them: norm, pooling, stride, block_stride, bos_pooling, lsh (and the identity for f == 1).
#include <cuda_runtime.h>

#include <cstdint>

#include "engine/config/config.h"
#include "kernels/ops/precision.h"

namespace precis::cuda {

struct SparseKeysArgs {
    Precision p = Precision::F32;
    SparsityType type = SparsityType::None;  // as configured; f == 1 and lsh with f == SB are
                                             // resolved inside, as on the CPU
    // Projected q, k, v of one input, [G + T, heads*head_dim] row-major (row stride D), with
    // the G global rows first; token_mask: the additive mask of the T token rows (float32).
    const void* q = nullptr;
    const void* k = nullptr;
    const void* v = nullptr;
    const float* token_mask = nullptr;
    int G = 0, T = 0, heads = 0, head_dim = 0;
    int block_size = 0, sparse_block_size = 0, factor = 1, lsh_pre_rounds = 1;
    // lsh only: the projections of every round, pre-rounds first then the final round,
    // each [heads, head_dim, buckets/2] float32 as LshProjections::get returns them.
    const float* lsh_r = nullptr;
    // Outputs: [heads, T/f, head_dim], and the additive mask [heads, T/f] (float32). Keys that
    // copy a token (identity, stride, block_stride, norm: sparse_keys_copy_tokens) keep the
    // input's type p, exactly, at half the bytes and tensor-core passes of float32. Pooled and
    // hashed keys are sums the CPU keeps in float32; rounding them to bf16 alone would cost
    // more than the op tests' 1e-3, so those are float32 whatever p.
    void* sparse_k = nullptr;
    void* sparse_v = nullptr;
    float* sparse_mask = nullptr;
};

// Whether these settings' sparse keys are copies of token keys, stored in the input type.
bool sparse_keys_copy_tokens(SparsityType type, int factor, int sparse_block_size);

// Throws precis::Error on settings lsg_attention rejects (same wording).
void build_sparse_keys(const SparseKeysArgs& args, cudaStream_t stream);

// Fovea (lsg-spec.md section 7): tree node keys/values from the token keys/values.
// Level 0 nodes are the NB blocks of BL token rows (the last padded with masked zero keys);
// level q node j averages level q-1 nodes j and j + 2^(q-1) position by position; a node key
// is masked only when every member token at that position is masked. Output layout: node n
// (numbered level by level, as FoveaTree does) occupies rows [n*BL, (n+1)*BL) of
// node_k/node_v [rows, heads*head_dim] and node_mask [rows], all float32 (averages, kept in
// float32 like the sparse keys). `levels` counts the levels built (top level + 1).
void build_fovea_nodes(Precision p, const void* k, const void* v, const float* token_mask, int T, int heads,
                       int head_dim, int block_len, int levels, float* node_k, float* node_v, float* node_mask,
                       cudaStream_t stream);

}  // namespace precis::cuda
