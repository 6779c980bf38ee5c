#pragma once
// Linear layers whose weights are stored in fewer bits than float32 (int8 with a scale
// per output row, or fp16), for the CPU backend. Activations stay float32 (the int8
// GEMV's int16 copy of a decoder row aside).
//
// Two kernels, chosen by the number of activation rows:
//  - few rows (decoder steps, one row per beam): a GEMV that streams each weight row
//    once and multiplies it into up to four activation rows. fp16 weights are widened
//    with F16C and multiplied in float (FMA); int8 weights are widened to int16 and
//    multiplied into the rows quantized to int16 (int8_gemv.h), which keeps the step
//    near memory speed on machines whose bandwidth outruns widening to float. Reading a
//    quarter (int8) or half (fp16) of the fp32 bytes is the rest of the win.
//  - many rows (encoder, cross-attention keys/values): int8 weights go to the integer
//    GEMM (int8_gemm.h); fp16 weights are widened to fp32 once per call into a scratch
//    buffer and OpenBLAS's sgemm does the product (the widening costs out*in operations
//    against 2*rows*out*in for the product).
#include <cstdint>

#include "engine/backend/backend.h"

namespace precis {

// Rows up to this count use the GEMV kernel, more the GEMM paths.
constexpr int64_t kLowpGemvMaxRows = 16;
// Where the CPU has no AVX-512, float32 weights stream up to twice as many rows (a step of
// 32 documents together): the weights go by in blocks that stay in L2 while every group of
// four rows reads them, and the 32-row greedy step of bart-base took 0.75x the time of
// OpenBLAS's sgemm, which packs the weights afresh for every product (measured on this
// AVX-512 machine with the 512-bit stream, before the step product; not measured without
// AVX-512). With AVX-512, 17 to 128 rows take fp32_step_gemm.h, 1.7-2.6x this stream at
// 32 rows.
constexpr int64_t kFp32GemvMaxRows = 32;

// Whether the float32 kernels in 512-bit registers run: the four-row stream here and the
// step product (fp32_step_gemm.h). Where the CPU has AVX-512F and PRECIS_NO_ZMM is not set.
bool fp32_zmm_kernels();

// Symmetric per-row int8: scales[o] = max|W[o, :]| / 127 (1 for an all-zero row),
// q[o, i] = round(W[o, i] / scales[o]).
void quantize_rows_int8(const float* w, int64_t out, int64_t in, int8_t* q, float* scales);

// W[c0:c1, :] widened to float32 into dst[(c1 - c0), in], single-threaded.
void widen_weight_rows(const WeightRef& w, int64_t in, int64_t c0, int64_t c1, float* dst);
// All of W[out, in] widened into dst, threaded with OpenMP.
void widen_weight(const WeightRef& w, int64_t out, int64_t in, float* dst);

// y[rows, c0:c1] = x[rows, in] * W[c0:c1]^T + b[c0:c1] (b may be null), single-threaded,
// y with row stride `out`. W is I8 or F16, widened to float (for int8, lowp_gemv uses
// int8_gemv.h instead unless a row holds a NaN or an infinity), or F32: a decoding step's
// rows with float32 weights stream each weight row once too, where sgemm would pack the
// whole weight matrix for four rows (its beam-4 step cost three greedy steps) and OpenBLAS's
// sgemv ran a greedy step 1.3x slower.
void lowp_gemv_block(const float* x, int64_t rows, int64_t in, const WeightRef& w, const float* b, int64_t out,
                     int64_t c0, int64_t c1, float* y);

// The few-rows product over all of [0, out), the columns split over OpenMP threads.
void lowp_gemv(const float* x, int64_t rows, int64_t in, const WeightRef& w, const float* b, int64_t out, float* y);

}  // namespace precis
