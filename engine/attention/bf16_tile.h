#pragma once
// The bfloat16 tile of the encoder's attention (bf16_attention.h): a block of queries of one
// head against a block of keys, in two oneDNN bf16 products with float32 sums and a float32
// softmax between them. Internal to engine/attention; everything here needs AVX512-BF16.
#include <oneapi/dnnl/dnnl.hpp>

#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <string>
#include <vector>

#include "engine/attention/attention_kernels.h"

namespace precis::attn_detail {

// y[i] = x[i] * scale rounded to the nearest bfloat16 (ties to even).
void to_bf16(const float* x, int64_t n, float scale, uint16_t* y);

// One row of a tile's probabilities: p = bf16(exp(s + mask - max)), unnormalized (the largest
// is 1; mask may be null); returns 1 / their sum, by which the row's output is scaled after
// the second product. Two passes over the scores, where softmax_rows and a conversion take four.
float exp_row_to_bf16(const float* s, int64_t cols, const float* mask, uint16_t* p);

// The two products' descriptions, shared by every thread, for tiles of `rows` queries over
// `keys` keys, hd wide:
//   scores[rows, keys] (f32) = q[rows, hd] (bf16, dense) . k^T[hd, keys]
//   mixed[rows, hd] (f32, dense) = p[rows, keys] (bf16, dense) . v[keys, hd]
// k^T and v in the given layouts: format_tag::any lets oneDNN pick its blocked ones. The
// constructor throws precis::Error if oneDNN cannot make the products.
struct Bf16TileShape {
    int64_t rows, keys, hd;
    dnnl::matmul::primitive_desc scores, mix;

    Bf16TileShape(int64_t rows, int64_t keys, int64_t hd, const dnnl::memory::desc& k_layout,
                  const dnnl::memory::desc& v_layout);
};

// The first failure among an OpenMP region's iterations, thrown once the region is over: an
// exception must not leave a region, and every thread must still reach each of its
// worksharing loops. A dnnl::error is named as the bf16 attention's.
class RegionFailure {
public:
    void record(const std::exception& e);
    bool failed() const { return failed_.load(std::memory_order_relaxed); }
    void rethrow_if_failed() const;  // precis::Error with the first failure's message

private:
    std::mutex mutex_;
    std::atomic<bool> failed_{false};
    std::string what_;
};

// One thread's products and buffers for one shape. Runs inside the engine's OpenMP regions,
// where oneDNN runs each product on the calling thread.
class Bf16Tile {
public:
    explicit Bf16Tile(const Bf16TileShape& shape);

    // out[r, 0:hd] (row stride ld_out) = softmax(q k^T + key_mask) v for the first `rows`
    // queries of q (bf16 [shape rows, hd], dense, already scaled), with k and v in the
    // shape's layouts and key_mask additive over the shape's keys (or null). Throws
    // dnnl::error if oneDNN fails.
    void attend(const uint16_t* q, const void* k, const void* v, const float* key_mask, int64_t rows, float* out,
                int64_t ld_out);
    // The two products alone, on the tile's own buffers (what `precis bench` times).
    void products(const uint16_t* q, const void* k, const void* v);

private:
    int64_t keys_, hd_;
    dnnl::stream stream_;
    dnnl::matmul scores_, mix_;
    dnnl::memory q_, k_, s_, p_, v_, o_;
    std::vector<float> scores_buf_, mixed_, inv_;
    std::vector<uint16_t> probs_;
};

// LSG's query blocks (block_attention's segments: globals, sparse keys, the local window) in
// bf16: each block's keys and values gathered into one dense bf16 block, padded to the
// shape's keys with masked zero keys, so every block of a call runs the same products.
class Bf16BlockAttention {
public:
    explicit Bf16BlockAttention(const Bf16TileShape& shape);  // dense k^T (ba) and v (ab) layouts

    // block_attention (attention_kernels.h) for one block of shape-rows queries, its keys no
    // more than the shape's.
    void attend(const float* q, int ldq, const KeySegment* segs, int nsegs, float scale, float* out, int ldo);

    static Bf16TileShape shape_for(int queries, int max_keys, int hd);

private:
    Bf16Tile tile_;
    int64_t rows_, keys_, hd_;
    std::vector<uint16_t> q_, k_, v_;
    std::vector<float> mask_;
};

}  // namespace precis::attn_detail
