// Plan-driven attention (plan_attention.h). One CTA per (plan block, head): its threads own
// query rows (one row per thread, two threads per row at head_dim 128 so that q and the
// accumulator stay in registers), keys and values stream through shared memory in tiles
// converted to float32, and the softmax is online (running max, sum and accumulator in
// float32). Out-of-range key indices are never loaded: they are the reference's masked zero
// keys, whose weight is exactly 0.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <string>
#include <vector>

#include "kernels/cuda_check.h"
#include "kernels/ops/element_convert.cuh"
#include "kernels/ops/plan_attention.h"
#include "kernels/ops/plan_attention_mma.h"

namespace precis::cuda {

void DevicePlan::upload(const AttentionPlan& plan, cudaStream_t stream) {
    check(!plan.blocks.empty(), "DevicePlan::upload: the plan has no blocks");
    for (const PlanSegment& s : plan.segments)
        check(s.source >= 0 && s.source < kMaxKeySources && s.count >= 0,
              "DevicePlan::upload: bad segment (source " + std::to_string(s.source) + ", count " +
                  std::to_string(s.count) + ")");
    blocks_.reserve(plan.blocks.size() * sizeof(PlanBlock));
    segments_.reserve(std::max<size_t>(plan.segments.size(), 1) * sizeof(PlanSegment));
    PRECIS_CUDA_CHECK(cudaMemcpyAsync(blocks_.get(), plan.blocks.data(), plan.blocks.size() * sizeof(PlanBlock),
                                      cudaMemcpyHostToDevice, stream));
    if (!plan.segments.empty())
        PRECIS_CUDA_CHECK(cudaMemcpyAsync(segments_.get(), plan.segments.data(),
                                          plan.segments.size() * sizeof(PlanSegment), cudaMemcpyHostToDevice, stream));
    // The host vectors belong to the caller and may die right after this call; pageable
    // copies are staged before cudaMemcpyAsync returns, but wait anyway to be safe with
    // pinned plans.
    PRECIS_CUDA_CHECK(cudaStreamSynchronize(stream));
    block_count_ = int32_t(plan.blocks.size());
    max_block_rows_ = plan.max_block_rows();
}

namespace {

constexpr int kThreads = 128;
constexpr float kNegInf = -INFINITY;



// HD: head_dim rounded up to a supported size (the padding dims are loaded as 0).
// TPR: threads per query row; each owns HD / TPR consecutive dims.
template <class T, int HD, int TPR>
__global__ void __launch_bounds__(kThreads) plan_attention_kernel(const T* __restrict__ q, int64_t q_stride,
                                                                  Sources src, const PlanBlock* __restrict__ blocks,
                                                                  const PlanSegment* __restrict__ segments,
                                                                  int head_dim, float scale, T* __restrict__ out,
                                                                  int64_t out_stride) {
    constexpr int kTile = HD >= 64 ? 32 : 64;  // s[kTile] stays in registers (no spills at HD 64)
    constexpr int kDims = HD / TPR;             // dims per thread
    constexpr int kRows = kThreads / TPR;       // query rows per pass
    __shared__ float ks[kTile][HD];
    __shared__ float vs[kTile][HD];
    __shared__ float ms[kTile];

    const PlanBlock blk = blocks[blockIdx.x];
    const int h = blockIdx.y;
    const int tid = threadIdx.x;
    const int sub = tid % TPR;  // which slice of the dims
    const int d0 = sub * kDims;

    for (int r0 = blk.query_begin; r0 < blk.query_end; r0 += kRows) {
        const int row = r0 + tid / TPR;
        const bool active = row < blk.query_end;
        float qv[kDims], acc[kDims];
        const T* qrow = q + int64_t(active ? row : blk.query_begin) * q_stride + int64_t(h) * head_dim;
#pragma unroll
        for (int d = 0; d < kDims; ++d) {
            qv[d] = (d0 + d < head_dim) ? to_f(qrow[d0 + d]) : 0.0f;
            acc[d] = 0.0f;
        }
        float m = kNegInf, l = 0.0f;

        for (int si = blk.segment_begin; si < blk.segment_end; ++si) {
            const PlanSegment seg = segments[si];
            const KeySource& ksrc = src.s[seg.source];
            // Skip the out-of-range indices: masked zero keys in the reference, weight 0.
            const int j0 = max(seg.begin, 0);
            const int j1 = min(seg.begin + seg.count, ksrc.rows);
            const int64_t head_off = int64_t(h) * ksrc.head_stride;
            const bool f32 = ksrc.f32;
            const float* mb = ksrc.mask ? ksrc.mask + int64_t(h) * ksrc.mask_head_stride : nullptr;
            for (int t0 = j0; t0 < j1; t0 += kTile) {
                const int n = min(kTile, j1 - t0);
                __syncthreads();  // the previous tile is no longer read
                for (int e = tid; e < kTile * HD; e += kThreads) {
                    const int j = e / HD, d = e % HD;
                    float kx = 0.0f, vx = 0.0f;
                    if (j < n && d < head_dim) {
                        const int64_t off = head_off + int64_t(t0 + j) * ksrc.row_stride + d;
                        if (f32) {
                            kx = static_cast<const float*>(ksrc.k)[off];
                            vx = static_cast<const float*>(ksrc.v)[off];
                        } else {
                            kx = to_f(static_cast<const T*>(ksrc.k)[off]);
                            vx = to_f(static_cast<const T*>(ksrc.v)[off]);
                        }
                    }
                    ks[j][d] = kx;
                    vs[j][d] = vx;
                }
                for (int j = tid; j < kTile; j += kThreads) ms[j] = (j < n && mb) ? mb[t0 + j] : 0.0f;
                __syncthreads();

                float s[kTile];
                float tmax = kNegInf;
#pragma unroll
                for (int j = 0; j < kTile; ++j) {
                    float dot = 0.0f;
#pragma unroll
                    for (int d = 0; d < kDims; ++d) dot = fmaf(qv[d], ks[j][d0 + d], dot);
#pragma unroll
                    for (int o = 1; o < TPR; o <<= 1) dot += __shfl_xor_sync(0xffffffffu, dot, o);
                    // lowest-float masks stay lowest (s + lowest == lowest): weight exactly 0 below
                    s[j] = j < n ? dot * scale + ms[j] : kNegInf;
                    tmax = fmaxf(tmax, s[j]);
                }
                const float m_new = fmaxf(m, tmax);  // finite: n >= 1 and scores are finite
                // Nothing accumulated yet (m == -inf): no rescale, and no exp(-inf - -inf).
                const float corr = (m == kNegInf) ? 0.0f : expf(m - m_new);
                l *= corr;
#pragma unroll
                for (int d = 0; d < kDims; ++d) acc[d] *= corr;
#pragma unroll
                for (int j = 0; j < kTile; ++j) {
                    const float p = j < n ? expf(s[j] - m_new) : 0.0f;
                    l += p;
#pragma unroll
                    for (int d = 0; d < kDims; ++d) acc[d] = fmaf(p, vs[j][d0 + d], acc[d]);
                }
                m = m_new;
            }
        }
        if (active) {
            const float inv = l > 0.0f ? 1.0f / l : 0.0f;  // l == 0 only for a block with no keys
            T* orow = out + int64_t(row) * out_stride + int64_t(h) * head_dim;
#pragma unroll
            for (int d = 0; d < kDims; ++d)
                if (d0 + d < head_dim) orow[d0 + d] = from_f<T>(acc[d] * inv);
        }
    }
}

template <class T, int HD, int TPR>
void launch(const void* q, int64_t q_stride, const Sources& src, const DevicePlan& plan, int heads, int head_dim,
            float scale, void* out, int64_t out_stride, cudaStream_t stream) {
    const dim3 grid(unsigned(plan.block_count()), unsigned(heads));
    plan_attention_kernel<T, HD, TPR><<<grid, kThreads, 0, stream>>>(
        static_cast<const T*>(q), q_stride, src, plan.blocks(), plan.segments(), head_dim, scale,
        static_cast<T*>(out), out_stride);
    PRECIS_CUDA_LAUNCHED();
}

template <class T>
void dispatch(const void* q, int64_t q_stride, const Sources& src, const DevicePlan& plan, int heads, int head_dim,
              float scale, void* out, int64_t out_stride, cudaStream_t stream) {
    if (head_dim <= 16)
        launch<T, 16, 1>(q, q_stride, src, plan, heads, head_dim, scale, out, out_stride, stream);
    else if (head_dim <= 32)
        launch<T, 32, 1>(q, q_stride, src, plan, heads, head_dim, scale, out, out_stride, stream);
    else if (head_dim <= 64)
        launch<T, 64, 1>(q, q_stride, src, plan, heads, head_dim, scale, out, out_stride, stream);
    else
        launch<T, 128, 2>(q, q_stride, src, plan, heads, head_dim, scale, out, out_stride, stream);
}

}  // namespace

void plan_attention(Precision p, const void* q, int64_t q_stride, const KeySource* sources, int num_sources,
                    const DevicePlan& plan, int heads, int head_dim, float scale, void* out, int64_t out_stride,
                    cudaStream_t stream) {
    // Every check runs before any CUDA call, so bad arguments never reach the device.
    check(q != nullptr && out != nullptr && sources != nullptr, "plan_attention: q, out and sources must not be null");
    check(num_sources >= 1 && num_sources <= kMaxKeySources,
          "plan_attention: num_sources must be in [1, " + std::to_string(kMaxKeySources) + "] (got " +
              std::to_string(num_sources) + ")");
    check(heads >= 1 && heads <= 65535, "plan_attention: heads must be in [1, 65535] (got " + std::to_string(heads) + ")");
    check(head_dim >= 1 && head_dim <= 128,
          "plan_attention: head_dim must be in [1, 128] (got " + std::to_string(head_dim) + ")");
    check(q_stride >= int64_t(heads) * head_dim && out_stride >= int64_t(heads) * head_dim,
          "plan_attention: q_stride and out_stride must be at least heads * head_dim");
    check(plan.block_count() > 0, "plan_attention: the plan is empty (upload it first)");
    check(std::isfinite(scale), "plan_attention: scale must be finite");
    Sources src{};
    for (int i = 0; i < num_sources; ++i) {
        const KeySource& s = sources[i];
        check(s.rows >= 0, "plan_attention: source " + std::to_string(i) + " has negative rows");
        check(s.rows == 0 || (s.k != nullptr && s.v != nullptr),
              "plan_attention: source " + std::to_string(i) + " has rows but no keys or values");
        src.s[i] = s;
    }
    // Sources the caller did not pass have no rows: every index into them is skipped.
    if (plan_attention_mma(p, q, q_stride, src, plan, heads, head_dim, scale, out, out_stride, stream)) return;
    switch (p) {
        case Precision::F32:
            dispatch<float>(q, q_stride, src, plan, heads, head_dim, scale, out, out_stride, stream);
            break;
        case Precision::F16:
            dispatch<__half>(q, q_stride, src, plan, heads, head_dim, scale, out, out_stride, stream);
            break;
        case Precision::BF16:
            dispatch<__nv_bfloat16>(q, q_stride, src, plan, heads, head_dim, scale, out, out_stride, stream);
            break;
    }
}

}  // namespace precis::cuda
