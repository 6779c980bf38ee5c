#include "engine/attention/bf16_tile.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "engine/backend/onednn_cpu.h"
#include "engine/core/error.h"

namespace precis::attn_detail {

// GCC 12's AVX-512 headers build some results from _mm512_undefined_ps() (the reductions,
// roundscale), which -Wuninitialized reports once inlined here.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#define PRECIS_BF16_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16")))

// y[i] = x[i] * scale rounded to the nearest bfloat16 (ties to even), 16 at a time.
PRECIS_BF16_TARGET void to_bf16(const float* x, int64_t n, float scale, uint16_t* y) {
    const __m512 s = _mm512_set1_ps(scale);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256bh b = _mm512_cvtneps_pbh(_mm512_mul_ps(_mm512_loadu_ps(x + i), s));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + i), reinterpret_cast<const __m256i&>(b));
    }
    if (i < n) {
        const __mmask16 m = __mmask16((1u << (n - i)) - 1);
        const __m256bh b = _mm512_cvtneps_pbh(_mm512_mul_ps(_mm512_maskz_loadu_ps(m, x + i), s));
        _mm256_mask_storeu_epi16(y + i, m, reinterpret_cast<const __m256i&>(b));
    }
}

namespace {

// exp(x) for x <= 0, sixteen at a time, to the precision a bfloat16 keeps: 2^f for
// |f| <= 1/2 by its degree-4 Taylor polynomial (relative error 4e-5, against bfloat16's
// rounding of up to 2e-3); below -87.3 exactly 0, as exp_nonpositive (simd_exp.h) gives,
// so masked keys weigh nothing.
PRECIS_BF16_TARGET inline __m512 exp_for_bf16(__m512 x) {
    const __mmask16 live = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-87.3f), _CMP_GE_OQ);
    const __m512 t = _mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f));  // x log2(e)
    const __m512 n = _mm512_roundscale_ps(t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m512 f = _mm512_mul_ps(_mm512_sub_ps(t, n), _mm512_set1_ps(0.693147180559945f));  // 2^(t-n) = e^f
    __m512 y = _mm512_set1_ps(1.f / 24);
    y = _mm512_fmadd_ps(y, f, _mm512_set1_ps(1.f / 6));
    y = _mm512_fmadd_ps(y, f, _mm512_set1_ps(0.5f));
    y = _mm512_fmadd_ps(y, f, _mm512_set1_ps(1.f));
    y = _mm512_fmadd_ps(y, f, _mm512_set1_ps(1.f));
    return _mm512_maskz_scalef_ps(live, y, n);
}

// The lanes of columns j.. that lie before cols.
PRECIS_BF16_TARGET inline __mmask16 lanes_from(int64_t j, int64_t cols) {
    return cols - j >= 16 ? __mmask16(0xffff) : __mmask16((1u << (cols - j)) - 1);
}

// Scores j..j+15 plus their mask.
PRECIS_BF16_TARGET inline __m512 masked_scores(const float* s, const float* mask, int64_t j, __mmask16 m) {
    const __m512 v = _mm512_maskz_loadu_ps(m, s + j);
    return mask ? _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, mask + j)) : v;
}

}  // namespace

PRECIS_BF16_TARGET float exp_row_to_bf16(const float* s, int64_t cols, const float* mask, uint16_t* p) {
    __m512 vmax = _mm512_set1_ps(-INFINITY);
    for (int64_t j = 0; j < cols; j += 16) {
        const __mmask16 m = lanes_from(j, cols);
        vmax = _mm512_mask_max_ps(vmax, m, vmax, masked_scores(s, mask, j, m));
    }
    const __m512 top = _mm512_set1_ps(_mm512_reduce_max_ps(vmax));
    __m512 sum = _mm512_setzero_ps();
    for (int64_t j = 0; j < cols; j += 16) {
        const __mmask16 m = lanes_from(j, cols);
        const __m512 e = _mm512_maskz_mov_ps(m, exp_for_bf16(_mm512_sub_ps(masked_scores(s, mask, j, m), top)));
        sum = _mm512_add_ps(sum, e);
        const __m256bh b = _mm512_cvtneps_pbh(e);
        _mm256_mask_storeu_epi16(p + j, m, reinterpret_cast<const __m256i&>(b));
    }
    return 1.f / _mm512_reduce_add_ps(sum);
}

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

Bf16TileShape::Bf16TileShape(int64_t rows_, int64_t keys_, int64_t hd_, const dnnl::memory::desc& k_layout,
                             const dnnl::memory::desc& v_layout)
    : rows(rows_), keys(keys_), hd(hd_) {
    try {
        dnnl::engine& e = onednn_cpu_engine();
        const dnnl::memory::desc q({rows, hd}, dt::bf16, tag::ab), s({rows, keys}, dt::f32, tag::ab);
        const dnnl::memory::desc p({rows, keys}, dt::bf16, tag::ab), o({rows, hd}, dt::f32, tag::ab);
        scores = dnnl::matmul::primitive_desc(dnnl::matmul::desc(q, k_layout, s), e);
        mix = dnnl::matmul::primitive_desc(dnnl::matmul::desc(p, v_layout, o), e);
    } catch (const dnnl::error& e) {
        RegionFailure failure;
        failure.record(e);
        failure.rethrow_if_failed();
    }
}

void RegionFailure::record(const std::exception& e) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (failed_) return;
    what_ = dynamic_cast<const dnnl::error*>(&e) ? std::string("the bfloat16 attention product (oneDNN) failed: ") + e.what()
                                                 : std::string(e.what());
    failed_ = true;
}

void RegionFailure::rethrow_if_failed() const {
    if (failed()) throw Error(what_);
}

Bf16Tile::Bf16Tile(const Bf16TileShape& shape)
    : keys_(shape.keys),
      hd_(shape.hd),
      stream_(onednn_cpu_engine()),
      scores_(shape.scores),
      mix_(shape.mix),
      q_(shape.scores.src_desc(), onednn_cpu_engine(), DNNL_MEMORY_NONE),
      k_(shape.scores.weights_desc(), onednn_cpu_engine(), DNNL_MEMORY_NONE),
      s_(shape.scores.dst_desc(), onednn_cpu_engine(), DNNL_MEMORY_NONE),
      p_(shape.mix.src_desc(), onednn_cpu_engine(), DNNL_MEMORY_NONE),
      v_(shape.mix.weights_desc(), onednn_cpu_engine(), DNNL_MEMORY_NONE),
      o_(shape.mix.dst_desc(), onednn_cpu_engine(), DNNL_MEMORY_NONE),
      scores_buf_(size_t(shape.rows * shape.keys)),
      mixed_(size_t(shape.rows * shape.hd)),
      inv_(size_t(shape.rows)),
      probs_(size_t(shape.rows * shape.keys)) {
    s_.set_data_handle(scores_buf_.data());
    p_.set_data_handle(probs_.data());
    o_.set_data_handle(mixed_.data());
}

void Bf16Tile::products(const uint16_t* q, const void* k, const void* v) {
    q_.set_data_handle(const_cast<uint16_t*>(q));
    k_.set_data_handle(const_cast<void*>(k));
    v_.set_data_handle(const_cast<void*>(v));
    scores_.execute(stream_, {{DNNL_ARG_SRC, q_}, {DNNL_ARG_WEIGHTS, k_}, {DNNL_ARG_DST, s_}});
    mix_.execute(stream_, {{DNNL_ARG_SRC, p_}, {DNNL_ARG_WEIGHTS, v_}, {DNNL_ARG_DST, o_}});
    stream_.wait();
}

void Bf16Tile::attend(const uint16_t* q, const void* k, const void* v, const float* key_mask, int64_t rows,
                      float* out, int64_t ld_out) {
    q_.set_data_handle(const_cast<uint16_t*>(q));
    k_.set_data_handle(const_cast<void*>(k));
    scores_.execute(stream_, {{DNNL_ARG_SRC, q_}, {DNNL_ARG_WEIGHTS, k_}, {DNNL_ARG_DST, s_}});
    stream_.wait();
    // Rows past `rows` (a last, short tile) hold an earlier tile's probabilities: their
    // outputs are computed and dropped.
    for (int64_t r = 0; r < rows; ++r)
        inv_[size_t(r)] = exp_row_to_bf16(&scores_buf_[size_t(r * keys_)], keys_, key_mask, &probs_[size_t(r * keys_)]);
    v_.set_data_handle(const_cast<void*>(v));
    mix_.execute(stream_, {{DNNL_ARG_SRC, p_}, {DNNL_ARG_WEIGHTS, v_}, {DNNL_ARG_DST, o_}});
    stream_.wait();
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < hd_; ++c) out[r * ld_out + c] = mixed_[size_t(r * hd_ + c)] * inv_[size_t(r)];
}

Bf16TileShape Bf16BlockAttention::shape_for(int queries, int max_keys, int hd) {
    return Bf16TileShape(queries, max_keys, hd, dnnl::memory::desc({hd, max_keys}, dt::bf16, tag::ba),
                         dnnl::memory::desc({max_keys, hd}, dt::bf16, tag::ab));
}

Bf16BlockAttention::Bf16BlockAttention(const Bf16TileShape& shape)
    : tile_(shape),
      rows_(shape.rows),
      keys_(shape.keys),
      hd_(shape.hd),
      q_(size_t(shape.rows * shape.hd)),
      k_(size_t(shape.keys * shape.hd)),
      v_(size_t(shape.keys * shape.hd)),
      mask_(size_t(shape.keys)) {}

void Bf16BlockAttention::attend(const float* q, int ldq, const KeySegment* segs, int nsegs, float scale, float* out,
                                int ldo) {
    for (int64_t r = 0; r < rows_; ++r) to_bf16(q + r * ldq, hd_, scale, &q_[size_t(r * hd_)]);
    int64_t j = 0;
    for (int i = 0; i < nsegs; ++i) {
        const KeySegment& sg = segs[i];
        check(j + std::max(sg.count, 0) <= keys_, "bf16 block attention: more keys than the block holds");
        for (int t = 0; t < sg.count; ++t, ++j) {
            to_bf16(sg.k + int64_t(t) * sg.ld, hd_, 1.f, &k_[size_t(j * hd_)]);
            to_bf16(sg.v + int64_t(t) * sg.ld, hd_, 1.f, &v_[size_t(j * hd_)]);
            mask_[size_t(j)] = sg.mask ? sg.mask[t] : 0.f;
        }
    }
    // The padding: zero keys and values that the mask gives a weight of exactly 0.
    std::fill(k_.begin() + j * hd_, k_.end(), uint16_t(0));
    std::fill(v_.begin() + j * hd_, v_.end(), uint16_t(0));
    std::fill(mask_.begin() + j, mask_.end(), kMaskMin);
    tile_.attend(q_.data(), k_.data(), v_.data(), mask_.data(), rows_, out, ldo);
}

}  // namespace precis::attn_detail
