#pragma once
// exp() on eight floats at once (AVX2 + FMA), for the softmaxes on the decoding path:
// a step's log-softmax over a 50k vocabulary and its cross-attention over 4k keys spend
// most of their time in std::exp one element at a time.
//
// exp(x) = 2^n * exp(r) with n = round(x / ln 2) and r = x - n ln 2 in [-ln2/2, ln2/2];
// ln 2 is split in two so r keeps its low bits, and exp(r) is its Taylor series to r^7
// (truncation below 6e-9 relative, under half an ulp). Results are within 2 ulp of
// std::exp for x in [-87, 88]; below that the result is 0 (std::exp would give a
// denormal or 0, which a softmax cannot tell apart), above it +inf (std::exp overflows
// from 88.72; a softmax only ever takes exp of x <= 0), and NaN stays NaN.
#include <immintrin.h>

namespace precis {

inline __m256 exp8(__m256 x) {
    const __m256 lo = _mm256_set1_ps(-87.0f), hi = _mm256_set1_ps(88.0f);
    // min/max return their second operand when one is NaN, so a NaN passes through.
    const __m256 xc = _mm256_max_ps(lo, _mm256_min_ps(hi, x));
    const __m256 n = _mm256_round_ps(_mm256_mul_ps(xc, _mm256_set1_ps(1.44269504088896341f)),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), xc);  // ln 2, high part (exact in n * it)
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);         // ln 2, the rest
    __m256 p = _mm256_set1_ps(1.f / 5040.f);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.f / 720.f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.f / 120.f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.f / 24.f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.f / 6.f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.f));
    // 2^n built in the exponent field; n is in [-126, 127] after the clamp.
    const __m256i bits = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    const __m256 y = _mm256_mul_ps(p, _mm256_castsi256_ps(bits));
    // Flush to zero under the clamp (x < -87 and -inf); +inf for x > 88 and +inf.
    const __m256 zeroed = _mm256_andnot_ps(_mm256_cmp_ps(x, lo, _CMP_LT_OQ), y);
    return _mm256_blendv_ps(zeroed, _mm256_set1_ps(__builtin_inff()), _mm256_cmp_ps(x, hi, _CMP_GT_OQ));
}

}  // namespace precis
