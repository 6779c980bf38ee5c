#pragma once
// Inside int8_gemm: the packed weight layout, and the micro-kernels that run a block of
// quantized activation rows against a range of weight panels, one per instruction set.
// Every kernel computes the same exact integer sums (the 7-bit activations never
// saturate the AVX2 path's int16 pairs) and turns them into floats with the same
// operations, so all of them give the same bits; int8_gemm picks the widest this CPU has.
#include <cstdint>

#include "engine/backend/int8_gemm.h"

namespace precis::int8_gemm_detail {

// A panel is 16 output columns of W over kp inputs (kp = in rounded up to 4), laid out so
// that 64 bytes hold the 16 columns x 4 consecutive inputs:
//   [group g][column c in 0..15][k in 0..3] = q[16p + c, 4g + k],
// which is one zmm for vpdpbusd, or two ymm of 8 columns for vpmaddubsw / vpdpbusd.
constexpr int64_t kPanelColumns = 16;
constexpr int64_t kGroupBytes = kPanelColumns * 4;

// What the product needs of each panel besides the weights.
struct PanelInfo {
    int32_t weight_sum[kPanelColumns];  // sum_i q[o, i], for the zero-point correction
    float weight_scale[kPanelColumns];
    float bias[kPanelColumns];
};

// Rows [0, rows) of quantized activations (row r at u + r * kp, scales as[r]) against panels
// [p0, p1) (panel p at panels + p * kPanelColumns * kp); writes y[r * out + 16p + c] for
// the columns below `out`:
//   y = scale[r] * w_scale[o] * (acc - zero[r] * weight_sum[o]) + bias[o],
// computed as fma(float(acc - zero * wsum), scale * w_scale, bias) by every kernel.
struct PanelBlock {
    const uint8_t* u;
    int64_t kp;
    const ActivationScale* as;
    int64_t rows;
    const int8_t* panels;
    const PanelInfo* info;
    int64_t p0, p1;
    int64_t out;
    float* y;
};

void run_panels_avx2(const PanelBlock& b);
void run_panels_avx_vnni(const PanelBlock& b);
void run_panels_avx512_vnni(const PanelBlock& b);

}  // namespace precis::int8_gemm_detail
