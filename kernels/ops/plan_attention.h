#pragma once
// Attention over gathered keys, the one kernel family behind every encoder attention on the
// device: full, LSG (global + sparse + local) and Fovea. A plan (engine/attention/
// attention_plan.h, host code shared with the CPU's geometry) lists, for each block of
// query rows, segments of keys taken from up to three sources; the kernel gathers them on
// the device and runs an online softmax over the segments, so no score matrix larger than a
// tile ever exists. Keys whose index falls outside their source are skipped: in the
// reference they are zero keys with mask MIN, whose weight is exactly 0 in float32.
#include <cuda_runtime.h>

#include <cstdint>

#include "engine/attention/attention_plan.h"
#include "kernels/device_buffer.h"
#include "kernels/ops/precision.h"

namespace precis::cuda {

// Where a plan source's keys live. Key j of head h is at k + j * row_stride + h * head_stride
// (values likewise at v), its additive mask at mask[h * mask_head_stride + j] (null: 0).
struct KeySource {
    const void* k = nullptr;
    const void* v = nullptr;
    int64_t row_stride = 0;
    int64_t head_stride = 0;
    const float* mask = nullptr;
    int64_t mask_head_stride = 0;
    int32_t rows = 0;  // valid key indices are [0, rows)
    bool f32 = false;  // keys/values stored as float32 whatever the run's precision (sparse keys, Fovea nodes)
};

constexpr int kMaxKeySources = 3;

// A plan uploaded once and reused by every layer and head of a run.
class DevicePlan {
public:
    DevicePlan() = default;
    void upload(const AttentionPlan& plan, cudaStream_t stream);
    const PlanBlock* blocks() const { return blocks_.as<PlanBlock>(); }
    const PlanSegment* segments() const { return segments_.as<PlanSegment>(); }
    int32_t block_count() const { return block_count_; }
    int32_t max_block_rows() const { return max_block_rows_; }

private:
    DeviceBuffer blocks_, segments_;
    int32_t block_count_ = 0, max_block_rows_ = 0;
};

// out[row, h*hd .. (h+1)*hd) = softmax_j(q_row,h . k_j,h * scale + mask_j) v_j,h over the keys
// the plan lists for the row's block. q and out: [rows, heads*head_dim] in precision p
// (q row stride q_stride elements, out row stride out_stride). Query row numbering is the
// plan's (G+T rows for the encoder). head_dim up to 128.
void plan_attention(Precision p, const void* q, int64_t q_stride, const KeySource* sources, int num_sources,
                    const DevicePlan& plan, int heads, int head_dim, float scale, void* out, int64_t out_stride,
                    cudaStream_t stream);

}  // namespace precis::cuda
