// attend() a block of keys at a time, for keys and values held compactly, in half
// precision (the decoder's cross-attention with fp16 weights) or in int8 with a scale per
// row (with int8 weights), and for a few float32 queries (the beams of one document, a
// step's self-attention). On long inputs a decoding step is bound by reading the keys and
// values (bart-large, 4k tokens: 400 MB per token in float32), so each key and value row
// is read from memory once for all the queries of the call and, if compact, widened once,
// into a float block small enough to stay in L1 while every query uses it. Only the
// widening differs between the formats (float rows are used where they lie); the block
// arithmetic is shared.
// Int8 rows take this path only where attend_int8_kv.cpp's integer arithmetic does not
// apply (head widths that are not a multiple of 16, queries that are not finite).
#include <immintrin.h>

#include <algorithm>
#include <cmath>

#include "engine/core/dtype.h"
#include "engine/core/simd_reduce.h"
#include "engine/model/attend.h"

namespace precis {

namespace {

constexpr int64_t kKeysWidenedAtATime = 64;  // 64 x hd floats: 16 KB at hd 64

// Rows of keys or values as stored, and how to widen them to float.
struct HalfRows {
    const uint16_t* data;
    int64_t ld;
    // Rows [t0, t0 + rows) as float rows `ld` apart: widened into dst[rows, hd] (hd a
    // multiple of 8), which is returned.
    const float* view(int64_t t0, int64_t rows, int64_t hd, float* dst, int64_t& ld_out) const {
        ld_out = hd;
        for (int64_t t = 0; t < rows; ++t) {
            const uint16_t* src = data + (t0 + t) * ld;
            for (int64_t c = 0; c < hd; c += 8)
                _mm256_storeu_ps(dst + t * hd + c,
                                 _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + c))));
        }
        return dst;
    }
    float at(int64_t t, int64_t c) const { return half_to_float(data[t * ld + c]); }
};

struct Int8Rows {
    const int8_t* data;
    const float* scales;  // one per row
    int64_t ld;
    const float* view(int64_t t0, int64_t rows, int64_t hd, float* dst, int64_t& ld_out) const {
        ld_out = hd;
        for (int64_t t = 0; t < rows; ++t) {
            const int8_t* src = data + (t0 + t) * ld;
            const __m256 scale = _mm256_set1_ps(scales[t0 + t]);
            for (int64_t c = 0; c < hd; c += 8) {
                const __m256i q = _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(src + c)));
                _mm256_storeu_ps(dst + t * hd + c, _mm256_mul_ps(_mm256_cvtepi32_ps(q), scale));
            }
        }
        return dst;
    }
    float at(int64_t t, int64_t c) const { return float(data[t * ld + c]) * scales[t]; }
};

// Float rows need no widening: the block is the rows themselves, `ld` apart. The next
// block's rows are fetched while this one is used: in a row's self-attention cache the
// rows of one head lie a model width apart (3 KB at bart-base), a stride the hardware
// prefetcher follows late (the cross-attention memory is one run per head).
struct FloatRows {
    const float* data;
    int64_t ld;
    int64_t rows_total;
    const float* view(int64_t t0, int64_t rows, int64_t hd, float*, int64_t& ld_out) const {
        ld_out = ld;
        const int64_t next_end = std::min(rows_total, t0 + 2 * rows);
        for (int64_t t = t0 + rows; t < next_end; ++t)
            for (int64_t c = 0; c < hd; c += 16) _mm_prefetch(reinterpret_cast<const char*>(data + t * ld + c), _MM_HINT_T0);
        return data + t0 * ld;
    }
    float at(int64_t t, int64_t c) const { return data[t * ld + c]; }
};

// Eight dot products q . k[t] (t < 8, rows ldk apart) returned in one register.
inline __m256 dot8(const float* q, const float* k, int64_t ldk, int64_t hd) {
    __m256 acc[8];
    for (int t = 0; t < 8; ++t) acc[t] = _mm256_setzero_ps();
    for (int64_t c = 0; c < hd; c += 8) {
        const __m256 qv = _mm256_loadu_ps(q + c);
        for (int t = 0; t < 8; ++t) acc[t] = _mm256_fmadd_ps(qv, _mm256_loadu_ps(k + t * ldk + c), acc[t]);
    }
    // Pairwise sums: each 128-bit half of u0 ends up holding partial sums of keys 0-3,
    // of u1 keys 4-7; adding the halves gives the eight totals in key order.
    const __m256 u0 = _mm256_hadd_ps(_mm256_hadd_ps(acc[0], acc[1]), _mm256_hadd_ps(acc[2], acc[3]));
    const __m256 u1 = _mm256_hadd_ps(_mm256_hadd_ps(acc[4], acc[5]), _mm256_hadd_ps(acc[6], acc[7]));
    return _mm256_add_ps(_mm256_permute2f128_ps(u0, u1, 0x20), _mm256_permute2f128_ps(u0, u1, 0x31));
}

// out[0..8W) += sum over the block's keys of w[j] * v[j], the W registers of `out`
// held across the whole block.
template <int W>
void accumulate(const float* w, const float* v, int64_t ldv, int64_t keys, float* out) {
    __m256 acc[W];
    for (int c = 0; c < W; ++c) acc[c] = _mm256_loadu_ps(out + 8 * c);
    for (int64_t j = 0; j < keys; ++j) {
        if (w[j] == 0.f) continue;  // masked keys and softmax underflow
        const __m256 wj = _mm256_set1_ps(w[j]);
        for (int c = 0; c < W; ++c) acc[c] = _mm256_fmadd_ps(wj, _mm256_loadu_ps(v + j * ldv + 8 * c), acc[c]);
    }
    for (int c = 0; c < W; ++c) _mm256_storeu_ps(out + 8 * c, acc[c]);
}

void accumulate_row(const float* w, const float* v, int64_t ldv, int64_t keys, int64_t hd, float* out) {
    for (int64_t c0 = 0; c0 < hd; c0 += 64) {
        const float* vc = v + c0;
        float* oc = out + c0;
        switch (std::min<int64_t>(8, (hd - c0) / 8)) {
            case 8: accumulate<8>(w, vc, ldv, keys, oc); break;
            case 7: accumulate<7>(w, vc, ldv, keys, oc); break;
            case 6: accumulate<6>(w, vc, ldv, keys, oc); break;
            case 5: accumulate<5>(w, vc, ldv, keys, oc); break;
            case 4: accumulate<4>(w, vc, ldv, keys, oc); break;
            case 3: accumulate<3>(w, vc, ldv, keys, oc); break;
            case 2: accumulate<2>(w, vc, ldv, keys, oc); break;
            default: accumulate<1>(w, vc, ldv, keys, oc); break;
        }
    }
}

// Head widths that are not a multiple of 8 (tiny test models): one element at a time.
template <class Rows>
void scores_scalar(const AttendArgs& a, const Rows& k, float* s) {
    for (int64_t i = 0; i < a.nq; ++i)
        for (int64_t j = 0; j < a.nk; ++j) {
            float d = 0.f;
            for (int64_t c = 0; c < a.hd; ++c) d += a.q[i * a.ldq + c] * k.at(j, c);
            s[i * a.nk + j] = d * a.scale;
        }
}

template <class Rows>
void values_scalar(const AttendArgs& a, const Rows& v, const float* s) {
    for (int64_t i = 0; i < a.nq; ++i) {
        float* oi = a.out + i * a.ldo;
        for (int64_t j = 0; j < a.nk; ++j) {
            const float w = s[i * a.nk + j];
            if (w == 0.f) continue;
            for (int64_t c = 0; c < a.hd; ++c) oi[c] += w * v.at(j, c);
        }
    }
}

template <class Rows>
void attend_compact(const AttendArgs& a, const Rows& k, const Rows& v, std::vector<float>& scratch) {
    const int64_t nq = a.nq, nk = a.nk, hd = a.hd;
    const bool wide = hd % 8 == 0;
    const size_t need = size_t(nq * nk + (wide ? kKeysWidenedAtATime * hd : 0));
    if (scratch.size() < need) scratch.resize(need);
    float* s = scratch.data();
    float* block = s + nq * nk;

    // Scores, a block of keys at a time, every query against the widened block.
    if (wide) {
        for (int64_t j0 = 0; j0 < nk; j0 += kKeysWidenedAtATime) {
            const int64_t keys = std::min(kKeysWidenedAtATime, nk - j0);
            int64_t ld = 0;
            const float* rows = k.view(j0, keys, hd, block, ld);
            for (int64_t i = 0; i < nq; ++i) {
                const float* qi = a.q + i * a.ldq;
                float* si = s + i * nk + j0;
                int64_t t = 0;
                for (; t + 8 <= keys; t += 8)
                    _mm256_storeu_ps(si + t, _mm256_mul_ps(dot8(qi, rows + t * ld, ld, hd), _mm256_set1_ps(a.scale)));
                for (; t < keys; ++t) si[t] = dot_product(qi, rows + t * ld, hd) * a.scale;
            }
        }
    } else {
        scores_scalar(a, k, s);
    }

    scores_to_weights(a, s);
    for (int64_t i = 0; i < nq; ++i) std::fill(a.out + i * a.ldo, a.out + i * a.ldo + hd, 0.f);

    // Weighted values, the same way round.
    if (wide) {
        for (int64_t j0 = 0; j0 < nk; j0 += kKeysWidenedAtATime) {
            const int64_t keys = std::min(kKeysWidenedAtATime, nk - j0);
            int64_t ld = 0;
            const float* rows = v.view(j0, keys, hd, block, ld);
            for (int64_t i = 0; i < nq; ++i) accumulate_row(s + i * nk + j0, rows, ld, keys, hd, a.out + i * a.ldo);
        }
    } else {
        values_scalar(a, v, s);
    }
}

}  // namespace

void attend_half_kv(const AttendArgs& a, std::vector<float>& scratch) {
    attend_compact(a, HalfRows{a.k16, a.ldk}, HalfRows{a.v16, a.ldv}, scratch);
}

void attend_float_blocks(const AttendArgs& a, std::vector<float>& scratch) {
    attend_compact(a, FloatRows{a.k, a.ldk, a.nk}, FloatRows{a.v, a.ldv, a.nk}, scratch);
}

void attend_int8_kv(const AttendArgs& a, std::vector<float>& scratch) {
    if (attend_int8_kv_integer(a, scratch)) return;
    attend_compact(a, Int8Rows{a.k8, a.k8_scales, a.ldk}, Int8Rows{a.v8, a.v8_scales, a.ldv}, scratch);
}

}  // namespace precis
