#include "engine/attention/attention_kernels.h"

#include <cblas.h>
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>
#include <string>

#include "engine/attention/bf16_attention.h"
#include "engine/attention/fp32_block_attention.h"
#include "engine/backend/sgemm.h"
#include "engine/core/simd_exp.h"
#include "engine/core/simd_reduce.h"

namespace precis::attn_detail {

namespace {

std::mutex g_blas_mutex;
int g_blas_depth = 0;
int g_blas_saved = 1;

}  // namespace

void softmax_rows(float* s, int rows, int cols, int ld, const float* mask) {
    const int vec_end = cols & ~7;
    for (int r = 0; r < rows; ++r) {
        float* x = s + size_t(r) * ld;
        // add mask, row max
        __m256 vmax = _mm256_set1_ps(-INFINITY);
        float m = -INFINITY;
        int j = 0;
        if (mask) {
            for (; j < vec_end; j += 8) {
                __m256 a = _mm256_add_ps(_mm256_loadu_ps(x + j), _mm256_loadu_ps(mask + j));
                _mm256_storeu_ps(x + j, a);
                vmax = _mm256_max_ps(vmax, a);
            }
            for (; j < cols; ++j) {
                x[j] += mask[j];
                m = std::max(m, x[j]);
            }
        } else {
            for (; j < vec_end; j += 8) vmax = _mm256_max_ps(vmax, _mm256_loadu_ps(x + j));
            for (; j < cols; ++j) m = std::max(m, x[j]);
        }
        m = std::max(m, horizontal_max(vmax));
        // exp and sum
        const __m256 vm = _mm256_set1_ps(m);
        __m256 vsum = _mm256_setzero_ps();
        float sum = 0.0f;
        for (j = 0; j < vec_end; j += 8) {
            __m256 e = exp_nonpositive(_mm256_sub_ps(_mm256_loadu_ps(x + j), vm));
            _mm256_storeu_ps(x + j, e);
            vsum = _mm256_add_ps(vsum, e);
        }
        for (; j < cols; ++j) {
            x[j] = exp_nonpositive(x[j] - m);
            sum += x[j];
        }
        sum += horizontal_sum(vsum);
        const float inv = 1.0f / sum;
        const __m256 vinv = _mm256_set1_ps(inv);
        for (j = 0; j < vec_end; j += 8) _mm256_storeu_ps(x + j, _mm256_mul_ps(_mm256_loadu_ps(x + j), vinv));
        for (; j < cols; ++j) x[j] *= inv;
    }
}

void block_attention(const float* q, int ldq, int nq, const KeySegment* segs, int nsegs, int head_dim,
                     float scale, float* out, int ldo, BlockScratch& scratch, std::vector<float>* weights) {
    if (nq <= 0) return;
    int total = 0;
    for (int i = 0; i < nsegs; ++i) total += std::max(segs[i].count, 0);
    if (total == 0) {  // nothing to attend to (cannot happen with G >= 1); define as zeros
        for (int r = 0; r < nq; ++r) std::memset(out + size_t(r) * ldo, 0, sizeof(float) * head_dim);
        if (weights) weights->clear();
        return;
    }
    if (fp32_block_attention_serves(head_dim))
        return fp32_block_attention(q, ldq, nq, segs, nsegs, head_dim, scale, out, ldo, scratch, weights);
    sgemm_block_attention(q, ldq, nq, segs, nsegs, head_dim, scale, out, ldo, scratch, weights);
}

void sgemm_block_attention(const float* q, int ldq, int nq, const KeySegment* segs, int nsegs, int head_dim,
                           float scale, float* out, int ldo, BlockScratch& scratch, std::vector<float>* weights) {
    int total = 0;
    bool any_mask = false;
    for (int i = 0; i < nsegs; ++i) {
        total += segs[i].count;
        any_mask = any_mask || (segs[i].mask && segs[i].count > 0);
    }
    // Pad the row stride to a multiple of 16 floats for aligned-ish rows.
    const int ld = (total + 15) & ~15;
    scratch.scores.resize(size_t(nq) * ld);
    float* S = scratch.scores.data();
    if (any_mask) {
        scratch.mask_row.resize(size_t(total));
        float* m = scratch.mask_row.data();
        for (int i = 0; i < nsegs; ++i) {
            const KeySegment& sg = segs[i];
            if (sg.count <= 0) continue;
            if (sg.mask)
                std::memcpy(m, sg.mask, sizeof(float) * sg.count);
            else
                std::memset(m, 0, sizeof(float) * sg.count);
            m += sg.count;
        }
    }
    int off = 0;
    for (int i = 0; i < nsegs; ++i) {
        const KeySegment& sg = segs[i];
        if (sg.count <= 0) continue;
        sgemm(true, nq, sg.count, head_dim, scale, q, ldq, sg.k, sg.ld, 0.0f, S + off, ld);
        off += sg.count;
    }
    softmax_rows(S, nq, total, ld, any_mask ? scratch.mask_row.data() : nullptr);
    if (weights) {
        weights->resize(size_t(nq) * total);
        for (int r = 0; r < nq; ++r)
            std::memcpy(weights->data() + size_t(r) * total, S + size_t(r) * ld, sizeof(float) * total);
    }
    off = 0;
    float beta = 0.0f;
    for (int i = 0; i < nsegs; ++i) {
        const KeySegment& sg = segs[i];
        if (sg.count <= 0) continue;
        sgemm(false, nq, head_dim, sg.count, 1.0f, S + off, ld, sg.v, sg.ld, beta, out, ldo);
        beta = 1.0f;
        off += sg.count;
    }
}

void dense_attention_rows(const AttentionInput& in, int row_begin, int row_end, const float* key_mask, float* out,
                          AttentionRecorder* recorder) {
    const int D = in.heads * in.head_dim;
    const int nrows = row_end - row_begin;
    if (nrows <= 0) return;
    // Tile height: keep the score tile near 4 MB per thread for long inputs. The fused kernel
    // keeps only eight rows' scores and transposes the keys once per tile: taller tiles.
    int tile = 64;
    if (in.rows > 16384) tile = 32;
    if (!recorder && fp32_block_attention_serves(in.head_dim)) tile = 256;
    const int ntiles = (nrows + tile - 1) / tile;
    const float scale = 1.0f / std::sqrt(float(in.head_dim));
    size_t rec_base = 0;
    if (recorder) {
        rec_base = recorder->blocks.size();
        recorder->blocks.resize(rec_base + size_t(ntiles));
    }
    const int ntasks = ntiles * in.heads;
#pragma omp parallel
    {
        BlockScratch scratch;
#pragma omp for schedule(dynamic, 1)
        for (int task = 0; task < ntasks; ++task) {
            const int t = task / in.heads, h = task % in.heads;
            const int r0 = row_begin + t * tile, r1 = std::min(row_end, r0 + tile);
            KeySegment seg{in.k + size_t(h) * in.head_dim, in.v + size_t(h) * in.head_dim, D, in.rows, key_mask};
            std::vector<float>* w = nullptr;
            AttentionRecorder::Block* blk = nullptr;
            if (recorder && recorder->head == h) {
                blk = &recorder->blocks[rec_base + size_t(t)];
                w = &blk->weights;
            }
            block_attention(in.q + size_t(r0) * D + size_t(h) * in.head_dim, D, r1 - r0, &seg, 1, in.head_dim,
                            scale, out + size_t(r0) * D + size_t(h) * in.head_dim, D, scratch, w);
            if (blk) {
                blk->query_begin = r0;
                blk->query_end = r1;
                blk->keys.resize(size_t(in.rows));
                for (int j = 0; j < in.rows; ++j) blk->keys[size_t(j)] = {j, j + 1, 1, AttentionKeyKind::Dense};
            }
        }
    }
}

BlasSingleThreadScope::BlasSingleThreadScope() {
    std::lock_guard<std::mutex> lock(g_blas_mutex);
    if (g_blas_depth++ == 0) {
        g_blas_saved = openblas_get_num_threads();
        if (g_blas_saved != 1) openblas_set_num_threads(1);
    }
}

BlasSingleThreadScope::~BlasSingleThreadScope() {
    std::lock_guard<std::mutex> lock(g_blas_mutex);
    if (--g_blas_depth == 0 && g_blas_saved != 1) openblas_set_num_threads(g_blas_saved);
}

void check_input(const AttentionInput& in, const char* who) {
    check(in.q && in.k && in.v, std::string(who) + ": q, k and v must not be null");
    check(in.heads > 0 && in.head_dim > 0,
          std::string(who) + ": heads and head_dim must be positive (got heads " + std::to_string(in.heads) +
              ", head_dim " + std::to_string(in.head_dim) + ")");
    check(in.rows > 0, std::string(who) + ": rows must be positive (got " + std::to_string(in.rows) + ")");
}

}  // namespace precis::attn_detail

namespace precis {

void full_attention(const AttentionInput& in, const float* key_mask, float* out, AttentionRecorder* recorder) {
    attn_detail::check_input(in, "full_attention");
    check(out != nullptr, "full_attention: out must not be null");
    if (recorder) recorder->blocks.clear();
    if (runs_bf16_products(in.products, recorder) && in.rows >= kBf16MinRows)
        return attn_detail::dense_attention_rows_bf16(in, 0, in.rows, key_mask, out);
    attn_detail::BlasSingleThreadScope blas_guard;
    attn_detail::dense_attention_rows(in, 0, in.rows, key_mask, out, recorder);
}

}  // namespace precis
