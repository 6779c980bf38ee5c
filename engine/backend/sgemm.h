#pragma once
// The float32 matrix product of the encoder (its linear layers, the attention's q.k^T and
// p.v), by OpenBLAS or by oneDNN, whichever is faster on this CPU. Measured on a 2-core
// AMD EPYC with AVX-512, each thread taking its share of rows as the engine splits them,
// oneDNN's sgemm ran every shape of bart-base and bart-large 5-7 % faster (200 against
// 210 GFLOP/s) and the attention's 1024 x 1024 x 64 product 25 % faster; OpenBLAS stays
// where the CPU has no AVX-512 (not measured there). PRECIS_FP32_GEMM=openblas|onednn picks
// one, to compare. The two sum in different orders: results agree to float32 rounding,
// not bit for bit; the choice is fixed per process, so a run is repeatable.
//
// oneDNN takes the products made inside the engine's OpenMP regions, each on its calling
// thread (nested regions are inactive). Elsewhere (the worker team's threads of a decoding
// step, a region of one thread) it would start an OpenMP team of its own beside the
// engine's threads, so OpenBLAS, single-threaded, takes those.
#include <cstdint>

namespace precis {

enum class Fp32Gemm { OpenBlas, OneDnn };
const char* fp32_gemm_name(Fp32Gemm g);  // "openblas", "onednn"
Fp32Gemm fp32_gemm_in_use();
// For tests and benchmarks; affects every thread.
void set_fp32_gemm(Fp32Gemm g);

// Row-major C[m, n] = alpha * A[m, k] * op(B) + beta * C, with op(B) = B[k, n], or B[n, k]
// transposed when `b_transposed`; lda, ldb, ldc are row strides.
void sgemm(bool b_transposed, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda, const float* b,
           int64_t ldb, float beta, float* c, int64_t ldc);

}  // namespace precis
