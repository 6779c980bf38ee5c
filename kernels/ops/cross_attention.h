#pragma once
// Attention of a few queries over a long memory, split across the GPU: the decoder's
// cross-attention (each document's beams over its encoder output) and the encoder's global
// tokens (G queries over all G+T rows). One CTA per (item, head, key chunk) reads its keys
// once for all of the item's queries, keeps a running softmax per warp, and a second kernel
// merges the chunks' partial results; so a 16k-token memory is read by hundreds of CTAs at
// once instead of one per head. The chunks are sized to fill the GPU, not more: each is a
// part the merge must read.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/device_buffer.h"
#include "kernels/ops/precision.h"

namespace precis::cuda {

struct MemoryAttentionArgs {
    Precision p = Precision::F32;
    // Queries: item i owns rows [i*group, (i+1)*group) of q ([items*group, q_stride]).
    const void* q = nullptr;
    int64_t q_stride = 0;
    int items = 0, group = 0;
    // Memory of item i: key/value rows [offsets[i], offsets[i+1]) of k/v (row stride
    // kv_stride), additive float32 mask per row (null: 0). offsets is a device array.
    const int32_t* offsets = nullptr;
    // Optional, device [items]: item i's memory is rows [offsets[i], offsets[i] + key_counts[i])
    // instead (offsets then has `items` entries): the decoder's slots, whose regions hold
    // documents shorter than the region, and free slots with no keys at all (zeros out).
    const int32_t* key_counts = nullptr;
    int max_keys = 0;  // the longest item's key count, at least (sizes the grid)
    const void* k = nullptr;
    const void* v = nullptr;
    int64_t kv_stride = 0;
    const float* mask = nullptr;
    int heads = 0, head_dim = 0;
    float scale = 1.f;
    void* out = nullptr;  // [items*group, out_stride], head h at column h*head_dim
    int64_t out_stride = 0;
};

class MemoryAttention {
public:
    // Argument checks first (precis::Error), then two launches on `stream`. head_dim <= 128.
    void run(const MemoryAttentionArgs& a, cudaStream_t stream);

    // How fp16/bf16 value rows of head size 64 are read: whole rows, 16 bytes a lane, issued
    // with the keys (true), or two bytes a lane after the scores (false). Both give the same
    // attention up to float rounding. Whole rows are written for the many documents' decoding
    // step, whose cross-attention reads every document's memory each step, and are not yet
    // measured on a GPU: on only where PRECIS_CUDA_VECTOR_VALUES=1 until a device run
    // shows them correct and faster (tools/gpu/README.md).
    static bool vector_values_by_default();
    void set_vector_values(bool on) { vector_values_ = on; }
    // Whether the last run() read them whole (the layout and alignment allow it only so far).
    bool read_whole_rows() const { return read_whole_rows_; }

private:
    bool vector_values_ = vector_values_by_default();
    bool read_whole_rows_ = false;
    DeviceBuffer partials_;  // per (query row, head, part): max, sum, unnormalized output
    int sm_count_ = 0;       // the device's multiprocessors, asked once
};

}  // namespace precis::cuda
