// The int8 GEMM micro-kernel for AVX-512 VNNI: one vpdpbusd adds 16 columns x 4 inputs
// of products (a whole group of a panel, int8_gemm_kernels.h) into int32 lanes, where
// AVX2 needs three instructions for half of that. A tile is ROWS activation rows x two
// panels (32 columns): 16 accumulators, 2 weight registers and a broadcast of the 32 zmm.
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "engine/backend/int8_gemm_kernels.h"

// Only the functions marked with it are compiled for AVX-512 VNNI: no inline function
// shared with other files is built for an instruction set they may not have.
#define AVX512_VNNI __attribute__((target("avx512f,avx512bw,avx512vnni")))

#if defined(__GNUC__) && !defined(__clang__)
// GCC 12 reads _mm512_undefined_ps() inside _mm512_cvtepi32_ps as an uninitialized use.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace precis::int8_gemm_detail {

namespace {

constexpr int kRows = 8;

// Same operations, element by element, as the 256-bit kernels' store (same bits).
AVX512_VNNI void store_row(__m512i acc, const ActivationScale& as, const PanelInfo& info, int64_t columns,
                           float* y) {
    const __m512i wsum = _mm512_loadu_si512(info.weight_sum);
    const __m512 dot = _mm512_cvtepi32_ps(_mm512_sub_epi32(acc, _mm512_mullo_epi32(_mm512_set1_epi32(as.zero), wsum)));
    const __m512 ws = _mm512_mul_ps(_mm512_set1_ps(as.scale), _mm512_loadu_ps(info.weight_scale));
    const __m512 v = _mm512_fmadd_ps(dot, ws, _mm512_loadu_ps(info.bias));
    _mm512_mask_storeu_ps(y, __mmask16((1u << columns) - 1u), v);
}

// R rows x P panels (P = 1 or 2) starting at panel p.
template <int R, int P>
AVX512_VNNI void tile(const PanelBlock& b, int64_t r0, int64_t p) {
    const int64_t kp = b.kp, groups = kp / 4;
    const uint8_t* u = b.u + r0 * kp;
    const int8_t* panel = b.panels + p * kPanelColumns * kp;
    __m512i acc[R][P];
    for (int r = 0; r < R; ++r)
        for (int j = 0; j < P; ++j) acc[r][j] = _mm512_setzero_si512();
    for (int64_t g = 0; g < groups; ++g) {
        __m512i w[P];
        for (int j = 0; j < P; ++j) w[j] = _mm512_loadu_si512(panel + j * kPanelColumns * kp + g * kGroupBytes);
        for (int r = 0; r < R; ++r) {
            int32_t four;
            std::memcpy(&four, u + r * kp + 4 * g, 4);
            const __m512i a = _mm512_set1_epi32(four);
            for (int j = 0; j < P; ++j) acc[r][j] = _mm512_dpbusd_epi32(acc[r][j], a, w[j]);
        }
    }
    for (int j = 0; j < P; ++j) {
        const int64_t c0 = (p + j) * kPanelColumns, columns = std::min(kPanelColumns, b.out - c0);
        for (int r = 0; r < R; ++r)
            store_row(acc[r][j], b.as[r0 + r], b.info[p + j], columns, b.y + (r0 + r) * b.out + c0);
    }
}

template <int P>
AVX512_VNNI void rows_of_panels(const PanelBlock& b, int64_t p) {
    int64_t r = 0;
    for (; r + kRows <= b.rows; r += kRows) tile<kRows, P>(b, r, p);
    switch (b.rows - r) {
        case 7: tile<7, P>(b, r, p); break;
        case 6: tile<6, P>(b, r, p); break;
        case 5: tile<5, P>(b, r, p); break;
        case 4: tile<4, P>(b, r, p); break;
        case 3: tile<3, P>(b, r, p); break;
        case 2: tile<2, P>(b, r, p); break;
        case 1: tile<1, P>(b, r, p); break;
        default: break;
    }
}

}  // namespace

AVX512_VNNI void run_panels_avx512_vnni(const PanelBlock& b) {
    int64_t p = b.p0;
    for (; p + 2 <= b.p1; p += 2) rows_of_panels<2>(b, p);
    if (p < b.p1) rows_of_panels<1>(b, p);
}

}  // namespace precis::int8_gemm_detail

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
