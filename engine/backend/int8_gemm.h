#pragma once
// The int8 matrix product for many activation rows (the encoder's linear layers, the
// decoder's cross-attention keys/values), on AVX2, AVX-VNNI or AVX-512 VNNI.
//
// y[r, o] = sum_i x[r, i] * W[o, i] is computed in integers: each activation row is
// quantized on the fly to unsigned 7-bit values with its own scale and zero point
// (x ~= (u - zero) * scale), the weights are the stored symmetric per-row int8 values,
// and vpmaddubsw (u8 x s8 pairs -> s16) + vpmaddwd (-> s32), or vpdpbusd where the CPU
// has VNNI, accumulate in int32:
//   y[r, o] = scale[r] * w_scale[o] * (sum_i u[r, i] * q[o, i] - zero[r] * sum_i q[o, i]).
// Why 7 bits: vpmaddubsw adds two u8*s8 products in a saturating int16; with u <= 127
// and |q| <= 127 the pair is at most 32258, so it never saturates (u8 activations would,
// and silently). Asymmetric (zero point per row) gives back most of the lost bit on the
// one-sided inputs after GELU.
#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/backend/backend.h"

namespace precis {

// The largest unsigned activation value (see above).
constexpr int kActivationLevels = 127;

// What computes the integer sums: our micro-kernel for an instruction set, or oneDNN's
// matmul. Every one gives the same bits (the sums are exact and turned into floats by the
// same operations). The fastest by measurement is used: oneDNN where the CPU has AVX-512
// VNNI (twice our kernel there), else our widest kernel (oneDNN is no faster on AVX2);
// PRECIS_INT8_KERNEL (avx2, avx-vnni, avx512-vnni, onednn) picks another, which is how the
// AVX2 figures are measured on a machine with VNNI.
enum class Int8Kernel { Avx2, AvxVnni, Avx512Vnni, OneDnn };
const char* int8_kernel_name(Int8Kernel k);  // "avx2", "avx-vnni", "avx512-vnni", "onednn"
// The name, and for oneDNN its version and the implementation it picks on this CPU
// ("onednn: oneDNN 2.6.3, brg:avx512_core_vnni"), for benchmark reports.
std::string int8_kernel_description(Int8Kernel k);
bool int8_kernel_supported(Int8Kernel k);
Int8Kernel int8_gemm_kernel();
// For tests and benchmarks; throws if this CPU lacks it. Affects every thread.
void set_int8_gemm_kernel(Int8Kernel k);

// One activation row quantized: x[i] ~= (q[i] - zero) * scale, q in [0, kActivationLevels].
// The range always includes 0, so zero is exact; an all-zero row gets scale 1, zero 0.
struct ActivationScale {
    float scale = 1.f;
    int32_t zero = 0;
};
ActivationScale quantize_activation_row(const float* x, int64_t in, uint8_t* q);

// y[rows, out] = act(x[rows, in] * W[out, in]^T + b[out]) (b may be null) with W stored I8;
// threaded with OpenMP over output columns. The activation is applied to each block of
// rows as soon as it is written, with the same function as Backend::gelu (gelu.h), so
// the bits are those of the product followed by the separate pass.
void int8_gemm(const float* x, int64_t rows, int64_t in, const WeightRef& w, const float* b, int64_t out, float* y,
               Activation activation = Activation::None);

// int8_gemm keeps its scratch (activations of the largest product, 13 MB for a 4k-token
// bart-base FFN) per calling thread between calls; this frees the calling thread's, and
// the bytes it holds are reported for tests.
void release_int8_gemm_scratch();
size_t int8_gemm_scratch_bytes();

}  // namespace precis
