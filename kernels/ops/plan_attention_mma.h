#pragma once
// The tensor-core path of plan_attention (fp16/bf16, head_dim 64 or 128); internal to
// plan_attention.cu, which falls back to its float32 CUDA-core kernel for everything else.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/ops/plan_attention.h"

namespace precis::cuda {

struct Sources {
    KeySource s[kMaxKeySources];
};

// Launches and returns true when the arguments fit the tensor-core kernel; false (nothing
// launched) otherwise.
bool plan_attention_mma(Precision p, const void* q, int64_t q_stride, const Sources& src, const DevicePlan& plan,
                        int heads, int head_dim, float scale, void* out, int64_t out_stride, cudaStream_t stream);

}  // namespace precis::cuda
