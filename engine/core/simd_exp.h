#pragma once
// exp() for the softmaxes: eight floats at once (AVX2 + FMA), sixteen (AVX-512), and the
// matching scalar version for loop tails. Softmax only takes exp of scores minus their
// maximum, so the argument is never positive; masked scores (the lowest float minus the
// maximum) must come out as exactly 0. Used by the encoder's attention kernels and, on the decoding
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

// The same in sixteen lanes (AVX-512), lane for lane the same bits as the eight-lane version:
// the same operations in the same order.
__attribute__((target("avx512f"))) inline __m512 exp_nonpositive(__m512 x) {
    const __mmask16 underflow = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-87.3f), _CMP_LT_OQ);
    x = _mm512_max_ps(_mm512_set1_ps(-88.0f), x);  // this operand order lets a NaN through
    __m512 fx = _mm512_fmadd_ps(x, _mm512_set1_ps(1.44269504088896341f), _mm512_set1_ps(0.5f));
    fx = _mm512_roundscale_ps(fx, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    x = _mm512_fnmadd_ps(fx, _mm512_set1_ps(0.693359375f), x);
    x = _mm512_fnmadd_ps(fx, _mm512_set1_ps(-2.12194440e-4f), x);
    __m512 y = _mm512_set1_ps(1.9875691500E-4f);
    y = _mm512_fmadd_ps(y, x, _mm512_set1_ps(1.3981999507E-3f));
    y = _mm512_fmadd_ps(y, x, _mm512_set1_ps(8.3334519073E-3f));
    y = _mm512_fmadd_ps(y, x, _mm512_set1_ps(4.1665795894E-2f));
    y = _mm512_fmadd_ps(y, x, _mm512_set1_ps(1.6666665459E-1f));
    y = _mm512_fmadd_ps(y, x, _mm512_set1_ps(5.0000001201E-1f));
    const __m512 x2 = _mm512_mul_ps(x, x);
    y = _mm512_fmadd_ps(y, x2, _mm512_add_ps(x, _mm512_set1_ps(1.0f)));
    __m512i n = _mm512_cvttps_epi32(fx);
    n = _mm512_slli_epi32(_mm512_add_epi32(n, _mm512_set1_epi32(127)), 23);
    y = _mm512_mul_ps(y, _mm512_castsi512_ps(n));
    return _mm512_maskz_mov_ps(_mm512_knot(underflow), y);
}

inline float exp_nonpositive(float x) { return x < -87.3f ? 0.0f : std::exp(x); }

}  // namespace precis
