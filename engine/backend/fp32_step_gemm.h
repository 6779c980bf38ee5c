#pragma once
// float32 products of a decoding step of many rows (a batch of documents, or of documents
// times beams: 17 to 128 rows) against weights stored [out, in], on AVX-512.
//
// The step's activation rows are transposed once (a few dozen rows, tiny beside the
// weights), so the kernel multiplies 32 rows at a time (two 512-bit registers) by a
// broadcast weight, twelve weight rows at once (24 accumulators), or 64 rows by six weight
// rows where a step has that many (fp32_step_gemm.cpp says why). Every weight is read
// from memory once per step and needs no packing, and every output is one float32 sum
// over k in order (in blocks of 256 inputs), with no horizontal sums. On this 2-core
// AVX-512 machine it ran 32-row products of bart-base's shapes at 1.7-2.6x the streamed
// GEMV (lowp_linear.h) and 1.3-1.6x oneDNN's sgemm up to 64 rows, level with it at 128;
// beyond 128 rows sgemm's packing pays for itself (benchmarked on random weights larger
// than the caches).
#include <cstdint>

namespace precis {

// Rows from one past the streamed GEMV's limit up to this count take this product, where
// fp32_zmm_kernels() (lowp_linear.h) says the CPU runs it.
constexpr int64_t kFp32StepGemmMaxRows = 128;

// y[rows, :] = x[rows, in] * W[out, in]^T + b (b may be null), the output features split
// over the worker team (worker_team.h).
void fp32_step_gemm(const float* x, int64_t rows, int64_t in, const float* w, const float* b, int64_t out, float* y);

}  // namespace precis
