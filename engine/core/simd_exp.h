#pragma once
// exp() for the softmaxes: eight floats at once (AVX2 + FMA), sixteen (AVX-512), and the
// matching scalar version for loop tails. Softmax only takes exp of scores minus their
// maximum, so the argument is never positive; masked scores (the lowest float minus the
// maximum) must come out as exactly 0. Used by the encoder's attention kernels and, on the
// decoding path, by cross-attention and the vocabulary log-softmax (50k exps per beam per
// token).
#include <immintrin.h>

#include <cmath>

namespace precis {

// The constants both widths share, so that they give the same bits (simd_exp_test).
namespace simd_exp_detail {
constexpr float kZeroBelow = -87.3f;   // exp of anything lower is exactly 0
constexpr float kClampBelow = -88.0f;  // keeps 2^n a normal float on the way there
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2High = 0.693359375f, kLn2Low = -2.12194440e-4f;  // ln 2 = high + low
constexpr float kPolynomial[6] = {1.9875691500E-4f, 1.3981999507E-3f, 8.3334519073E-3f,
                                  4.1665795894E-2f, 1.6666665459E-1f, 5.0000001201E-1f};
}  // namespace simd_exp_detail

// exp for x <= 0 (Cephes polynomial, ~1 ulp); x < -87.3 gives exactly 0 so that masked
// scores (lowest float minus the row max) get a weight of exactly 0.
inline __m256 exp_nonpositive(__m256 x) {
    using namespace simd_exp_detail;
    const __m256 underflow = _mm256_cmp_ps(x, _mm256_set1_ps(kZeroBelow), _CMP_LT_OQ);
    x = _mm256_max_ps(_mm256_set1_ps(kClampBelow), x);  // this operand order lets a NaN through
    __m256 fx = _mm256_fmadd_ps(x, _mm256_set1_ps(kLog2e), _mm256_set1_ps(0.5f));
    fx = _mm256_floor_ps(fx);
    x = _mm256_fnmadd_ps(fx, _mm256_set1_ps(kLn2High), x);
    x = _mm256_fnmadd_ps(fx, _mm256_set1_ps(kLn2Low), x);
    __m256 y = _mm256_set1_ps(kPolynomial[0]);
    for (int i = 1; i < 6; ++i) y = _mm256_fmadd_ps(y, x, _mm256_set1_ps(kPolynomial[i]));
    y = _mm256_fmadd_ps(y, _mm256_mul_ps(x, x), _mm256_add_ps(x, _mm256_set1_ps(1.0f)));
    __m256i n = _mm256_cvttps_epi32(fx);
    n = _mm256_slli_epi32(_mm256_add_epi32(n, _mm256_set1_epi32(127)), 23);
    y = _mm256_mul_ps(y, _mm256_castsi256_ps(n));
    return _mm256_andnot_ps(underflow, y);
}

// The same in sixteen lanes (AVX-512): the same operations in the same order.
__attribute__((target("avx512f"))) inline __m512 exp_nonpositive(__m512 x) {
    using namespace simd_exp_detail;
    const __mmask16 underflow = _mm512_cmp_ps_mask(x, _mm512_set1_ps(kZeroBelow), _CMP_LT_OQ);
    x = _mm512_max_ps(_mm512_set1_ps(kClampBelow), x);
    __m512 fx = _mm512_fmadd_ps(x, _mm512_set1_ps(kLog2e), _mm512_set1_ps(0.5f));
    fx = _mm512_roundscale_ps(fx, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    x = _mm512_fnmadd_ps(fx, _mm512_set1_ps(kLn2High), x);
    x = _mm512_fnmadd_ps(fx, _mm512_set1_ps(kLn2Low), x);
    __m512 y = _mm512_set1_ps(kPolynomial[0]);
    for (int i = 1; i < 6; ++i) y = _mm512_fmadd_ps(y, x, _mm512_set1_ps(kPolynomial[i]));
    y = _mm512_fmadd_ps(y, _mm512_mul_ps(x, x), _mm512_add_ps(x, _mm512_set1_ps(1.0f)));
    __m512i n = _mm512_cvttps_epi32(fx);
    n = _mm512_slli_epi32(_mm512_add_epi32(n, _mm512_set1_epi32(127)), 23);
    y = _mm512_mul_ps(y, _mm512_castsi512_ps(n));
    return _mm512_maskz_mov_ps(_mm512_knot(underflow), y);
}

inline float exp_nonpositive(float x) { return x < simd_exp_detail::kZeroBelow ? 0.0f : std::exp(x); }

}  // namespace precis
