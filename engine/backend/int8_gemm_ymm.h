#pragma once
// The 256-bit int8 GEMM micro-kernel, shared by the AVX2 and AVX-VNNI builds: each
// includes this in its own file after defining PRECIS_YMM_TARGET (the function attribute
// that compiles it for that instruction set; everything here has internal linkage) and
// supplies the step that adds 8 columns x 4 inputs of products:
//   AVX2      vpmaddubsw (u8 x s8 pairs -> s16) + vpmaddwd by ones (-> s32) + vpaddd;
//   AVX-VNNI  vpdpbusd, the three in one.
// The 7-bit activations keep vpmaddubsw's pairs under 32767, so both add the same
// integers. ROWS activation rows x 16 columns: 2 * ROWS accumulators, 2 weight registers
// and a broadcast fit the 16 ymm registers.
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "engine/backend/int8_gemm_kernels.h"

namespace precis::int8_gemm_detail {
namespace {

template <class Step, int R>
PRECIS_YMM_TARGET void ymm_rows(const uint8_t* u, int64_t kp, const ActivationScale* as, const int8_t* panel,
                                const PanelInfo& info, int64_t columns, int64_t out, float* y) {
    __m256i acc[R][2];
    for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_si256();
    const int64_t groups = kp / 4;
    for (int64_t g = 0; g < groups; ++g) {
        const __m256i w0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + g * kGroupBytes));
        const __m256i w1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + g * kGroupBytes + 32));
        for (int r = 0; r < R; ++r) {
            int32_t four;
            std::memcpy(&four, u + r * kp + 4 * g, 4);
            const __m256i a = _mm256_set1_epi32(four);
            acc[r][0] = Step::add(acc[r][0], a, w0);
            acc[r][1] = Step::add(acc[r][1], a, w1);
        }
    }
    for (int r = 0; r < R; ++r) {
        const __m256i zero = _mm256_set1_epi32(as[r].zero);
        const __m256 scale = _mm256_set1_ps(as[r].scale);
        float row[kPanelColumns];
        for (int h = 0; h < 2; ++h) {
            const __m256i wsum = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(info.weight_sum + 8 * h));
            const __m256 dot = _mm256_cvtepi32_ps(_mm256_sub_epi32(acc[r][h], _mm256_mullo_epi32(zero, wsum)));
            const __m256 ws = _mm256_mul_ps(scale, _mm256_loadu_ps(info.weight_scale + 8 * h));
            _mm256_storeu_ps(row + 8 * h, _mm256_fmadd_ps(dot, ws, _mm256_loadu_ps(info.bias + 8 * h)));
        }
        std::memcpy(y + r * out, row, size_t(columns) * sizeof(float));
    }
}

// Rows in steps of ROWS, then the remainder one smaller kernel at a time.
template <class Step, int R>
PRECIS_YMM_TARGET void ymm_tail(const PanelBlock& b, int64_t r, const int8_t* panel, const PanelInfo& info,
                                int64_t c0, int64_t columns) {
    if constexpr (R > 0) {
        if (b.rows - r == R)
            ymm_rows<Step, R>(b.u + r * b.kp, b.kp, b.as + r, panel, info, columns, b.out, b.y + r * b.out + c0);
        else
            ymm_tail<Step, R - 1>(b, r, panel, info, c0, columns);
    }
}

template <class Step, int ROWS>
PRECIS_YMM_TARGET void ymm_run_panels(const PanelBlock& b) {
    for (int64_t p = b.p0; p < b.p1; ++p) {
        const int8_t* panel = b.panels + p * kPanelColumns * b.kp;
        const int64_t c0 = p * kPanelColumns, columns = std::min(kPanelColumns, b.out - c0);
        int64_t r = 0;
        for (; r + ROWS <= b.rows; r += ROWS)
            ymm_rows<Step, ROWS>(b.u + r * b.kp, b.kp, b.as + r, panel, b.info[p], columns, b.out,
                                 b.y + r * b.out + c0);
        ymm_tail<Step, ROWS - 1>(b, r, panel, b.info[p], c0, columns);
    }
}

}  // namespace
}  // namespace precis::int8_gemm_detail
