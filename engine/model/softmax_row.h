#pragma once
// Softmax of one row of attention scores in place, eight lanes at a time. Scores of
// -inf or the float lowest (masked keys) come out as exactly 0.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "engine/core/simd_exp.h"

namespace precis {

inline float horizontal_max(__m256 v) {
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    m = _mm_max_ss(m, _mm_movehdup_ps(m));
    return _mm_cvtss_f32(m);
}

inline float horizontal_sum(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

// Largest of s[0..n); -inf for n == 0.
inline float row_max(const float* s, int64_t n) {
    __m256 mv = _mm256_set1_ps(-std::numeric_limits<float>::infinity());
    int64_t j = 0;
    for (; j + 8 <= n; j += 8) mv = _mm256_max_ps(mv, _mm256_loadu_ps(s + j));
    float m = horizontal_max(mv);
    for (; j < n; ++j) m = std::max(m, s[j]);
    return m;
}

inline void softmax_row(float* s, int64_t n) {
    const float m = row_max(s, n);
    const __m256 mv = _mm256_set1_ps(m);
    __m256 sv = _mm256_setzero_ps();
    int64_t j = 0;
    for (; j + 8 <= n; j += 8) {
        const __m256 e = exp8(_mm256_sub_ps(_mm256_loadu_ps(s + j), mv));
        _mm256_storeu_ps(s + j, e);
        sv = _mm256_add_ps(sv, e);
    }
    float sum = horizontal_sum(sv);
    for (; j < n; ++j) {
        s[j] = std::exp(s[j] - m);
        sum += s[j];
    }
    const float inv = 1.f / sum;
    const __m256 iv = _mm256_set1_ps(inv);
    j = 0;
    for (; j + 8 <= n; j += 8) _mm256_storeu_ps(s + j, _mm256_mul_ps(_mm256_loadu_ps(s + j), iv));
    for (; j < n; ++j) s[j] *= inv;
}

}  // namespace precis
