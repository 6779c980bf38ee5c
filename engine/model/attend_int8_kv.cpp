// attend() over int8 keys and values in integer arithmetic: the decoder's cross-attention
// when the weights are int8 (cross_memory.h: rows of hd int8 with one scale each).
//
// Why: widening every key and value to float (sign-extend, convert, scale, store, load
// again) cost about a hundred instructions per key and head, more than reading its
// 2 x hd bytes takes; on bart-base with 4k tokens the cross-attention took more of a
// decoding step than all of the decoder's weight products (one thread, 72 heads x 4096
// keys: 2.7 ms per step widened, 1.6 ms here; beams of 4: 6.5 ms, 4.3 ms). Here the
// int8 rows are only sign-extended to int16, and vpmaddwd adds sixteen exact products
// per instruction:
//  - scores: each query is rounded once per call to int16 (round_row_to_int16, scale
//    max|q| / 32767); the integer dot product with a key is scaled by both rows' scales;
//  - values: per block of 64 keys, each query's softmax weights times the value rows'
//    scales are rounded to int16 (scale: the block's largest / 32767), and the value rows,
//    interleaved in pairs of keys, are summed two keys per instruction into int32, which
//    moves to float once per block.
// Each block of keys is sign-extended once into a small buffer that every query of the
// call (the beams of one document) then reads from L1.
//
// Accuracy: a query element moves by at most 1/65534 of the query's largest, a weight by
// at most 1/65534 of its block's largest; scores, weights and outputs move by ~1e-4
// relative, a hundredth of what the int8 rows' own rounding (1/254 of each row's largest)
// already costs.
// Range: a score sums hd products of at most 32767 x 127 (hd <= 256: under 2^30), a block
// of values 64 products of at most 32767 x 127 (under 2^28); both are exact in int32.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "engine/backend/int8_gemv.h"
#include "engine/core/simd_reduce.h"
#include "engine/model/attend.h"

namespace precis {

namespace {

constexpr int64_t kKeysPerBlock = 64;  // keys per block (even: values go in pairs of keys)
constexpr int64_t kMaxHeadDim = 256;   // bounds the buffer and the scores' int32 sums
constexpr float kInt16Max = 32767.f;   // queries and weights use the whole int16 range

inline __m256i load16(const int16_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
inline __m128i load8x16(const int8_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
inline void store16(int16_t* p, __m256i v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }

inline int32_t horizontal_sum_i32(__m256i v) {
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
    return _mm_cvtsi128_si32(s);
}

// Rows [t0, t0 + keys) of `rows` (ld apart) sign-extended to int16, hd apart.
void widen_keys(const int8_t* rows, int64_t ld, int64_t t0, int64_t keys, int64_t hd, int16_t* dst) {
    for (int64_t t = 0; t < keys; ++t) {
        const int8_t* src = rows + (t0 + t) * ld;
        for (int64_t c = 0; c < hd; c += 16) store16(dst + t * hd + c, _mm256_cvtepi8_epi16(load8x16(src + c)));
    }
}

// Rows [t0, t0 + keys) as pairs of keys: pair p holds, for each channel c, the values of
// keys 2p and 2p + 1 side by side (dst[p * 2hd + 2c + {0, 1}]), which is what vpmaddwd
// multiplies by a pair of weights. An odd last key is paired with zeros.
void widen_value_pairs(const int8_t* rows, int64_t ld, int64_t t0, int64_t keys, int64_t hd, int16_t* dst) {
    for (int64_t p = 0; 2 * p < keys; ++p) {
        const int8_t* a = rows + (t0 + 2 * p) * ld;
        const int8_t* b = 2 * p + 1 < keys ? a + ld : nullptr;
        for (int64_t c = 0; c < hd; c += 16) {
            const __m128i x = load8x16(a + c), y = b ? load8x16(b + c) : _mm_setzero_si128();
            store16(dst + p * 2 * hd + 2 * c, _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(x, y)));
            store16(dst + p * 2 * hd + 2 * c + 16, _mm256_cvtepi8_epi16(_mm_unpackhi_epi8(x, y)));
        }
    }
}

// The integer dot products of q with keys k[0..8) (rows hd apart), in key order.
inline __m256i dot8(const int16_t* q, const int16_t* k, int64_t hd) {
    __m256i acc[8];
    for (int t = 0; t < 8; ++t) acc[t] = _mm256_setzero_si256();
    for (int64_t c = 0; c < hd; c += 16) {
        const __m256i qv = load16(q + c);
        for (int t = 0; t < 8; ++t) acc[t] = _mm256_add_epi32(acc[t], _mm256_madd_epi16(qv, load16(k + t * hd + c)));
    }
    // Each 128-bit half of u0 ends up with partial sums of keys 0-3, of u1 keys 4-7;
    // adding the halves gives the eight totals in key order.
    const __m256i u0 = _mm256_hadd_epi32(_mm256_hadd_epi32(acc[0], acc[1]), _mm256_hadd_epi32(acc[2], acc[3]));
    const __m256i u1 = _mm256_hadd_epi32(_mm256_hadd_epi32(acc[4], acc[5]), _mm256_hadd_epi32(acc[6], acc[7]));
    return _mm256_add_epi32(_mm256_permute2x128_si256(u0, u1, 0x20), _mm256_permute2x128_si256(u0, u1, 0x31));
}

inline int32_t dot1(const int16_t* q, const int16_t* k, int64_t hd) {
    __m256i acc = _mm256_setzero_si256();
    for (int64_t c = 0; c < hd; c += 16) acc = _mm256_add_epi32(acc, _mm256_madd_epi16(load16(q + c), load16(k + c)));
    return horizontal_sum_i32(acc);
}

// s[0..keys) = scale * kscale[t] * (q . k[t]) over the widened block.
void block_scores(const int16_t* q, float scale, const int16_t* block, const float* kscale, int64_t keys, int64_t hd,
                  float* s) {
    const __m256 sv = _mm256_set1_ps(scale);
    int64_t t = 0;
    for (; t + 8 <= keys; t += 8)
        _mm256_storeu_ps(s + t, _mm256_mul_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(dot8(q, block + t * hd, hd)), sv),
                                              _mm256_loadu_ps(kscale + t)));
    for (; t < keys; ++t) s[t] = float(dot1(q, block + t * hd, hd)) * scale * kscale[t];
}

// Softmax weights w[0..keys) times the value rows' scales, rounded to int16 and packed in
// pairs (key 2p low, 2p + 1 high) for vpmaddwd; returns their scale, 0 when all are zero
// (nothing to add), NaN when one is not finite (a NaN weight or value row: the output is NaN).
float round_weight_pairs(const float* w, const float* vscale, int64_t keys, int32_t* pairs) {
    alignas(32) float u[kKeysPerBlock] = {};  // zeros past `keys` pair the odd last key with nothing
    __m256 m = _mm256_setzero_ps(), zero = _mm256_setzero_ps();
    int64_t t = 0;
    for (; t + 8 <= keys; t += 8) {
        const __m256 wt = _mm256_loadu_ps(w + t);
        // A masked key adds nothing, even where its row is NaN.
        const __m256 ut = _mm256_andnot_ps(_mm256_cmp_ps(wt, _mm256_setzero_ps(), _CMP_EQ_OQ),
                                           _mm256_mul_ps(wt, _mm256_loadu_ps(vscale + t)));
        _mm256_store_ps(u + t, ut);
        m = _mm256_max_ps(m, ut);
        zero = _mm256_add_ps(zero, _mm256_mul_ps(ut, _mm256_setzero_ps()));  // NaN if any is NaN
    }
    float mt = horizontal_max(m), zt = horizontal_sum(zero);
    for (; t < keys; ++t) {
        u[t] = w[t] == 0.f ? 0.f : w[t] * vscale[t];
        mt = std::max(mt, u[t]);
        zt += u[t] * 0.f;
    }
    if (zt != 0.f) return std::numeric_limits<float>::quiet_NaN();
    if (mt == 0.f) return 0.f;
    // Eight weights at a time to int32, then to int16 in order: the int16 array read as
    // int32 is the pairs (little-endian: key 2p in the low half).
    const __m256 inv = _mm256_set1_ps(kInt16Max / mt);
    for (int64_t i = 0; i < keys; i += 16) {
        const __m256i a = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_load_ps(u + i), inv));
        const __m256i b = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_load_ps(u + i + 8), inv));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(pairs + i / 2),
                            _mm256_permute4x64_epi64(_mm256_packs_epi32(a, b), 0xD8));
    }
    return mt / kInt16Max;
}

// out[0..8W) += scale * sum over pairs of (w pair) . (value pair), in int32 within the block.
template <int W>
void accumulate_pairs(const int32_t* pairs, const int16_t* v, int64_t npairs, int64_t hd, float scale, float* out) {
    __m256i acc[W];
    for (int c = 0; c < W; ++c) acc[c] = _mm256_setzero_si256();
    for (int64_t p = 0; p < npairs; ++p) {
        if (pairs[p] == 0) continue;  // masked keys and softmax underflow
        const __m256i wp = _mm256_set1_epi32(pairs[p]);
        for (int c = 0; c < W; ++c)
            acc[c] = _mm256_add_epi32(acc[c], _mm256_madd_epi16(wp, load16(v + p * 2 * hd + 16 * c)));
    }
    const __m256 sv = _mm256_set1_ps(scale);
    for (int c = 0; c < W; ++c)
        _mm256_storeu_ps(out + 8 * c, _mm256_fmadd_ps(_mm256_cvtepi32_ps(acc[c]), sv, _mm256_loadu_ps(out + 8 * c)));
}

// One query's weighted values over a block of widened value pairs; W registers of eight
// channels at a time (hd is a multiple of 16, so W is even).
void block_values(const int32_t* pairs, const int16_t* v, int64_t npairs, int64_t hd, float scale, float* out) {
    for (int64_t c0 = 0; c0 < hd; c0 += 64) {
        const int16_t* vc = v + 2 * c0;
        switch (std::min<int64_t>(8, (hd - c0) / 8)) {
            case 8: accumulate_pairs<8>(pairs, vc, npairs, hd, scale, out + c0); break;
            case 6: accumulate_pairs<6>(pairs, vc, npairs, hd, scale, out + c0); break;
            case 4: accumulate_pairs<4>(pairs, vc, npairs, hd, scale, out + c0); break;
            default: accumulate_pairs<2>(pairs, vc, npairs, hd, scale, out + c0); break;
        }
    }
}

}  // namespace

bool attend_int8_kv_integer(const AttendArgs& a, std::vector<float>& scratch) {
    const int64_t nq = a.nq, nk = a.nk, hd = a.hd;
    constexpr int64_t kMaxQueries = 64;  // beams of one document; more only in unusual first steps
    if (hd % 16 != 0 || hd > kMaxHeadDim || nq > kMaxQueries) return false;
    thread_local std::vector<int16_t> queries;
    if (queries.size() < size_t(nq * hd)) queries.resize(size_t(nq * hd));
    float qscale[kMaxQueries];
    for (int64_t i = 0; i < nq; ++i) {
        qscale[i] = round_row_to_int16(a.q + i * a.ldq, hd, queries.data() + i * hd, kInt16Max);
        if (qscale[i] == 0.f) return false;  // not finite: the float path passes it on
    }
    if (scratch.size() < size_t(nq * nk)) scratch.resize(size_t(nq * nk));
    float* s = scratch.data();
    alignas(32) int16_t block[kKeysPerBlock * kMaxHeadDim];

    for (int64_t j0 = 0; j0 < nk; j0 += kKeysPerBlock) {
        const int64_t keys = std::min(kKeysPerBlock, nk - j0);
        widen_keys(a.k8, a.ldk, j0, keys, hd, block);
        for (int64_t i = 0; i < nq; ++i)
            block_scores(queries.data() + i * hd, qscale[i] * a.scale, block, a.k8_scales + j0, keys, hd,
                         s + i * nk + j0);
    }

    scores_to_weights(a, s);
    for (int64_t i = 0; i < nq; ++i) std::fill(a.out + i * a.ldo, a.out + i * a.ldo + hd, 0.f);

    int32_t pairs[kKeysPerBlock / 2];
    for (int64_t j0 = 0; j0 < nk; j0 += kKeysPerBlock) {
        const int64_t keys = std::min(kKeysPerBlock, nk - j0), npairs = (keys + 1) / 2;
        widen_value_pairs(a.v8, a.ldv, j0, keys, hd, block);
        for (int64_t i = 0; i < nq; ++i) {
            float* oi = a.out + i * a.ldo;
            const float scale = round_weight_pairs(s + i * nk + j0, a.v8_scales + j0, keys, pairs);
            if (std::isnan(scale))
                std::fill(oi, oi + hd, std::numeric_limits<float>::quiet_NaN());
            else if (scale != 0.f)
                block_values(pairs, block, npairs, hd, scale, oi);
        }
    }
    return true;
}

}  // namespace precis
