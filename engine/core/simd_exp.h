#pragma once
// exp() for the softmaxes: eight floats at once (AVX2 + FMA) and the matching scalar
// version for loop tails. Softmax only takes exp of scores minus their maximum, so the
// argument is never positive; masked scores (the lowest float minus the maximum) must
// come out as exactly 0. Used by the encoder's attention kernels and, on the decoding
// path, by cross-attention and the vocabulary log-softmax (50k exps per beam per token).
#include <immintrin.h>

#include <cmath>

namespace precis {

// exp for x <= 0 (Cephes polynomial, ~1 ulp); x < -87.3 gives exactly 0 so that masked
// scores (lowest float minus the row max) get a weight of exactly 0.
inline __m256 exp_nonpositive(__m256 x) {
    const __m256 zero_below = _mm256_set1_ps(-87.3f);
    const __m256 underflow = _mm256_cmp_ps(x, zero_below, _CMP_LT_OQ);
    x = _mm256_max_ps(_mm256_set1_ps(-88.0f), x);  // this operand order lets a NaN through
    __m256 fx = _mm256_fmadd_ps(x, _mm256_set1_ps(1.44269504088896341f), _mm256_set1_ps(0.5f));
    fx = _mm256_floor_ps(fx);
    x = _mm256_fnmadd_ps(fx, _mm256_set1_ps(0.693359375f), x);
    x = _mm256_fnmadd_ps(fx, _mm256_set1_ps(-2.12194440e-4f), x);
    __m256 y = _mm256_set1_ps(1.9875691500E-4f);
    y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(1.3981999507E-3f));
    y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(8.3334519073E-3f));
    y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(4.1665795894E-2f));
    y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(1.6666665459E-1f));
    y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(5.0000001201E-1f));
    const __m256 x2 = _mm256_mul_ps(x, x);
    y = _mm256_fmadd_ps(y, x2, _mm256_add_ps(x, _mm256_set1_ps(1.0f)));
    __m256i n = _mm256_cvttps_epi32(fx);
    n = _mm256_slli_epi32(_mm256_add_epi32(n, _mm256_set1_epi32(127)), 23);
    y = _mm256_mul_ps(y, _mm256_castsi256_ps(n));
    return _mm256_andnot_ps(underflow, y);
}

inline float exp_nonpositive(float x) { return x < -87.3f ? 0.0f : std::exp(x); }

}  // namespace precis
