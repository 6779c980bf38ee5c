#pragma once
// Inside int8_gemm: the integer product through oneDNN's matmul, which on AVX-512 VNNI
// (its brgemm kernels) runs about twice as fast as our own micro-kernel: measured on
// bart-base/large encoder shapes, 1024 rows, 2 threads, 800 against 300-430 GMAC/s.
// On AVX2 without VNNI it is not faster (0.86-1.11x ours), so there we keep our own.
#include <cstdint>

namespace precis::int8_gemm_detail {

// acc[r, o] = sum_i u[r, i] * q[o, i] over i < in, exact int32 sums; u rows are `ld`
// bytes apart, q is [out, in] row-major. Threaded by oneDNN (OpenMP, the same threads).
void onednn_u8s8_s32(const uint8_t* u, int64_t rows, int64_t in, int64_t ld, const int8_t* q, int64_t out,
                     int32_t* acc);

// "oneDNN 2.6.3, brg:avx512_core_vnni": the library and the implementation it picks for
// an encoder-sized product on this CPU.
const char* onednn_description();

}  // namespace precis::int8_gemm_detail
