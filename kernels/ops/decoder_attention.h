#pragma once
// The decoder's self-attention on the device: the cache (append, causal attention of the new
// positions over it, beam reorder). Cross-attention, whose keys/values are computed once per
// document and read by all of its beams, is MemoryAttention (cross_attention.h).
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "kernels/device_buffer.h"
#include "kernels/ops/precision.h"

namespace precis::cuda {

// Cache layout of one layer's keys (or values): [rows, max_len, D], D = heads*head_dim.
// Writes new[r*new_len + i, :] to cache[r, length + i, :] for every row r.
// row_lengths (optional, device [rows]): row r's own length, read on the device when the
// kernel runs, so that a captured CUDA graph replays at every step and rows that joined at
// different steps each write at their own place; `length` is then the longest row's, which
// the host checks against the cache.
void append_to_cache(Precision p, const void* fresh, void* cache, int rows, int new_len, int length, int max_len,
                     int64_t D, cudaStream_t stream, const int32_t* row_lengths = nullptr);

// Causal self-attention: query i of row r (q [rows*new_len, D]) attends to cache positions
// [0, length + i] of row r, scores q.k * scale in float32. out [rows*new_len, D].
// row_lengths as for append_to_cache.
void cached_self_attention(Precision p, const void* q, const void* k_cache, const void* v_cache, int rows,
                           int new_len, int length, int max_len, int heads, int head_dim, float scale, void* out,
                           cudaStream_t stream, const int32_t* row_lengths = nullptr);

// Beam reorder: afterwards row r of every cache holds what row parents[r] held, for the first
// `length` positions. Rows with parents[r] == r are not touched, and a parent that is itself
// overwritten is saved to `scratch` first (grown as needed); nothing else is copied.
// caches: host array of device pointers (every layer's keys and values).
class CacheReorder {
public:
    void run(Precision p, const std::vector<void*>& caches, const std::vector<int>& parents, int length,
             int max_len, int64_t D, cudaStream_t stream);

private:
    DeviceBuffer scratch_, moves_;
};

}  // namespace precis::cuda
