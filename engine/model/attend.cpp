#include "engine/model/attend.h"

#include <cblas.h>
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace precis {

namespace {

// softmax over s[0..n) in place, with HF's additive-mask semantics.
inline void softmax_row(float* s, int64_t n) {
    float m = -std::numeric_limits<float>::infinity();
    for (int64_t j = 0; j < n; ++j) m = std::max(m, s[j]);
    float sum = 0.f;
    for (int64_t j = 0; j < n; ++j) {
        s[j] = std::exp(s[j] - m);
        sum += s[j];
    }
    const float inv = 1.f / sum;
    for (int64_t j = 0; j < n; ++j) s[j] *= inv;
}

// q . k over hd elements with k in half precision (F16C widening, 8 at a time).
inline float dot_half(const float* q, const uint16_t* k, int64_t hd) {
    __m256 acc = _mm256_setzero_ps();
    int64_t c = 0;
    for (; c + 8 <= hd; c += 8)
        acc = _mm256_fmadd_ps(_mm256_loadu_ps(q + c),
                              _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(k + c))), acc);
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(acc), _mm256_extractf128_ps(acc, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    float d = _mm_cvtss_f32(s);
    for (; c < hd; ++c) d += q[c] * _cvtsh_ss(k[c]);
    return d;
}

// o += w * v over hd elements with v in half precision.
inline void axpy_half(float w, const uint16_t* v, int64_t hd, float* o) {
    const __m256 wv = _mm256_set1_ps(w);
    int64_t c = 0;
    for (; c + 8 <= hd; c += 8)
        _mm256_storeu_ps(o + c, _mm256_fmadd_ps(wv, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(v + c))),
                                                _mm256_loadu_ps(o + c)));
    for (; c < hd; ++c) o[c] += w * _cvtsh_ss(v[c]);
}

}  // namespace

void attend(const AttendArgs& a, std::vector<float>& scratch) {
    const int64_t nq = a.nq, nk = a.nk, hd = a.hd;
    if (a.k16) return attend_half_kv(a, scratch);
    if (scratch.size() < size_t(nq * nk)) scratch.resize(size_t(nq * nk));
    float* s = scratch.data();
    const float lowest = std::numeric_limits<float>::lowest();
    // One query over many keys (a decoding step's cross-attention): strided GEMVs.
    const bool gemv = nq == 1 && nk >= 256;
    if (gemv) {
        cblas_sgemv(CblasRowMajor, CblasNoTrans, int(nk), int(hd), a.scale, a.k, int(a.ldk), a.q, 1, 0.f, s, 1);
    } else if (nq * nk >= 4096 && nq > 1) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(nq), int(nk), int(hd), a.scale, a.q, int(a.ldq), a.k,
                    int(a.ldk), 0.f, s, int(nk));
    } else {
        for (int64_t i = 0; i < nq; ++i) {
            const float* qi = a.q + i * a.ldq;
            for (int64_t j = 0; j < nk; ++j) {
                const float* kj = a.k + j * a.ldk;
                float d = 0.f;
                for (int64_t c = 0; c < hd; ++c) d += qi[c] * kj[c];
                s[i * nk + j] = d * a.scale;
            }
        }
    }
    for (int64_t i = 0; i < nq; ++i) {
        float* si = s + i * nk;
        if (a.key_mask)
            for (int64_t j = 0; j < nk; ++j) si[j] += a.key_mask[j];
        if (a.causal_offset >= 0)
            for (int64_t j = a.causal_offset + i + 1; j < nk; ++j) si[j] = lowest;
        softmax_row(si, nk);
        if (a.weight_sink)
            for (int64_t j = 0; j < nk; ++j) a.weight_sink[j] += si[j];
    }
    if (gemv) {
        cblas_sgemv(CblasRowMajor, CblasTrans, int(nk), int(hd), 1.f, a.v, int(a.ldv), s, 1, 0.f, a.out, 1);
    } else if (nq * nk >= 4096 && nq > 1) {
        for (int64_t i = 0; i < nq; ++i) std::fill(a.out + i * a.ldo, a.out + i * a.ldo + hd, 0.f);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(nq), int(hd), int(nk), 1.f, s, int(nk), a.v,
                    int(a.ldv), 0.f, a.out, int(a.ldo));
    } else {
        for (int64_t i = 0; i < nq; ++i) {
            float* oi = a.out + i * a.ldo;
            std::fill(oi, oi + hd, 0.f);
            const float* si = s + i * nk;
            for (int64_t j = 0; j < nk; ++j) {
                const float w = si[j];
                if (w == 0.f) continue;
                const float* vj = a.v + j * a.ldv;
                for (int64_t c = 0; c < hd; ++c) oi[c] += w * vj[c];
            }
        }
    }
}

// The same with half-precision keys and values: read half the bytes of the float32 path,
// which is what a decoding step's cross-attention is bound by on long inputs.
void attend_half_kv(const AttendArgs& a, std::vector<float>& scratch) {
    const int64_t nq = a.nq, nk = a.nk, hd = a.hd;
    if (scratch.size() < size_t(nq * nk)) scratch.resize(size_t(nq * nk));
    const float lowest = std::numeric_limits<float>::lowest();
    for (int64_t i = 0; i < nq; ++i) {
        const float* qi = a.q + i * a.ldq;
        float* si = scratch.data() + i * nk;
        for (int64_t j = 0; j < nk; ++j) si[j] = dot_half(qi, a.k16 + j * a.ldk, hd) * a.scale;
        if (a.key_mask)
            for (int64_t j = 0; j < nk; ++j) si[j] += a.key_mask[j];
        if (a.causal_offset >= 0)
            for (int64_t j = a.causal_offset + i + 1; j < nk; ++j) si[j] = lowest;
        softmax_row(si, nk);
        if (a.weight_sink)
            for (int64_t j = 0; j < nk; ++j) a.weight_sink[j] += si[j];
        float* oi = a.out + i * a.ldo;
        std::fill(oi, oi + hd, 0.f);
        for (int64_t j = 0; j < nk; ++j)
            if (si[j] != 0.f) axpy_half(si[j], a.v16 + j * a.ldv, hd, oi);
    }
}

}  // namespace precis
