#pragma once
// Row-wise kernels of the encoder and decoder: embedding lookup with positions, the fused
// bias + residual + LayerNorm after every sub-layer, the fused bias + GELU after fc1, and
// precision conversion (weights are converted once, at upload). Each function checks its
// arguments (precis::Error), launches on `stream` and checks the launch.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/ops/precision.h"

namespace precis::cuda {

// out[r, :] = table[ids[r], :] * scale + positions[pos_first + (r % pos_period), :]
// (positions may be null: no position added). table [vocab, dim] and positions in precision
// p; ids are checked against vocab on the host before upload, so they are trusted here.
// The encoder passes pos_period = rows; a decoder step with new_len tokens per row passes
// pos_period = new_len, so every row gets positions pos_first .. pos_first + new_len - 1.
// device_group_offsets (optional, device [rows / pos_period]): rows r of group
// g = r / pos_period add device_group_offsets[g] to pos_first, read when the kernel runs (a
// decoder step's cache length of each decoder row, so that a captured CUDA graph replays at
// every step, and rows that joined at other steps each read their own positions).
void embed(Precision p, const int32_t* ids, int64_t rows, const void* table, int64_t vocab, int64_t dim, float scale,
           const void* positions, int64_t pos_first, int64_t pos_period, void* out, cudaStream_t stream,
           const int32_t* device_group_offsets = nullptr);

// x[r, :] = LayerNorm(x[r, :] + delta[r, :] + delta_bias) * gamma + beta, statistics in float32.
// delta may be null (plain LayerNorm); delta_bias may be null. gamma, beta, delta_bias: float32 [dim].
void add_layer_norm(Precision p, void* x, const void* delta, const float* delta_bias, int64_t rows, int64_t dim,
                    const float* gamma, const float* beta, float eps, cudaStream_t stream);

// y[r, :] = act(y[r, :] + bias) with act = identity or exact GELU (erf); bias float32 [n] or null.
void bias_activation(Precision p, void* y, const float* bias, int64_t rows, int64_t n, bool gelu, cudaStream_t stream);

// dst = src converted (float32 -> p, p -> float32); n elements.
void convert_from_f32(Precision p, const float* src, void* dst, int64_t n, cudaStream_t stream);
void convert_to_f32(Precision p, const void* src, float* dst, int64_t n, cudaStream_t stream);

}  // namespace precis::cuda
