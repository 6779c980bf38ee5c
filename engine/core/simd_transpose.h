#pragma once
// A 16 x 16 float32 tile transposed in AVX-512 registers, for the kernels that read a
// matrix down its columns (the attention's key panels, the step product's activations).
#include <immintrin.h>

#if defined(__GNUC__) && !defined(__clang__)
// GCC 12 builds these unpacks and shuffles from _mm512_undefined_ps(), which
// -Wmaybe-uninitialized reports wherever this is inlined.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace precis {

// t[c] = column c of the tile whose row i is r[i]: two rounds of in-lane shuffles, then
// two of whole 128-bit lanes. r is overwritten.
__attribute__((target("avx512f"))) inline void transpose16_in_registers(__m512 r[16], __m512 t[16]) {
    for (int i = 0; i < 8; ++i) {
        t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    // r[4i + k], 128-bit lane L: column 4L + k of rows 4i..4i+3.
    for (int i = 0; i < 4; ++i) {
        r[4 * i] = _mm512_shuffle_ps(t[4 * i], t[4 * i + 2], _MM_SHUFFLE(1, 0, 1, 0));
        r[4 * i + 1] = _mm512_shuffle_ps(t[4 * i], t[4 * i + 2], _MM_SHUFFLE(3, 2, 3, 2));
        r[4 * i + 2] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], _MM_SHUFFLE(1, 0, 1, 0));
        r[4 * i + 3] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], _MM_SHUFFLE(3, 2, 3, 2));
    }
    for (int k = 0; k < 4; ++k) {
        const __m512 u0 = _mm512_shuffle_f32x4(r[k], r[4 + k], _MM_SHUFFLE(2, 0, 2, 0));
        const __m512 u1 = _mm512_shuffle_f32x4(r[k], r[4 + k], _MM_SHUFFLE(3, 1, 3, 1));
        const __m512 v0 = _mm512_shuffle_f32x4(r[8 + k], r[12 + k], _MM_SHUFFLE(2, 0, 2, 0));
        const __m512 v1 = _mm512_shuffle_f32x4(r[8 + k], r[12 + k], _MM_SHUFFLE(3, 1, 3, 1));
        t[k] = _mm512_shuffle_f32x4(u0, v0, _MM_SHUFFLE(2, 0, 2, 0));
        t[4 + k] = _mm512_shuffle_f32x4(u1, v1, _MM_SHUFFLE(2, 0, 2, 0));
        t[8 + k] = _mm512_shuffle_f32x4(u0, v0, _MM_SHUFFLE(3, 1, 3, 1));
        t[12 + k] = _mm512_shuffle_f32x4(u1, v1, _MM_SHUFFLE(3, 1, 3, 1));
    }
}

}  // namespace precis

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
