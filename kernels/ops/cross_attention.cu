#include "kernels/ops/cross_attention.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <string>

#include "engine/core/error.h"
#include "kernels/cuda_check.h"
#include "kernels/ops/element_convert.cuh"

namespace precis::cuda {

namespace {

constexpr int kWarps = 4;
constexpr int kChunk = 256;       // keys per CTA
constexpr int kQueriesPerPass = 8;  // queries held in registers at once
constexpr int kMaxPerLane = 4;      // head_dim / 32, up to 128


// Partial result of one warp's keys for one (query row, head): running max m, sum l and the
// unnormalized output; parts = chunks * kWarps per (row, head).
struct PartLayout {
    int parts, hd;
    __device__ int64_t at(int64_t row, int heads, int h, int part) const {
        return ((row * heads + h) * parts + part) * int64_t(hd + 2);
    }
};

// Lane `lane` owns dims lane, lane+32, ... of a head: every key row is read coalesced.
template <class T>
__global__ void __launch_bounds__(kWarps * 32) partial_kernel(MemoryAttentionArgs a, PartLayout lay, float* parts) {
    const int chunk = blockIdx.x, h = blockIdx.y, item = blockIdx.z;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int hd = a.head_dim, per_lane = (hd + 31) / 32;
    const int begin = a.offsets[item], keys = a.offsets[item + 1] - begin;
    const int j0 = chunk * kChunk, j1 = min(keys, j0 + kChunk);
    const T* q = static_cast<const T*>(a.q);
    const T* k = static_cast<const T*>(a.k);
    const T* v = static_cast<const T*>(a.v);
    const int part = chunk * kWarps + warp;
    for (int g0 = 0; g0 < a.group; g0 += kQueriesPerPass) {
        const int ng = min(kQueriesPerPass, a.group - g0);
        float qv[kQueriesPerPass][kMaxPerLane], acc[kQueriesPerPass][kMaxPerLane], m[kQueriesPerPass],
            l[kQueriesPerPass];
#pragma unroll
        for (int g = 0; g < kQueriesPerPass; ++g) {
            const int64_t row = int64_t(item) * a.group + g0 + g;
#pragma unroll
            for (int i = 0; i < kMaxPerLane; ++i) {
                const int c = lane + 32 * i;
                qv[g][i] = (g < ng && i < per_lane && c < hd) ? to_f(q[row * a.q_stride + int64_t(h) * hd + c]) : 0.f;
                acc[g][i] = 0.f;
            }
            m[g] = -INFINITY;
            l[g] = 0.f;
        }
        for (int j = j0 + warp; j < j1; j += kWarps) {
            const int64_t at = int64_t(begin + j) * a.kv_stride + int64_t(h) * hd;
            float kx[kMaxPerLane], vx[kMaxPerLane];
#pragma unroll
            for (int i = 0; i < kMaxPerLane; ++i) {
                const int c = lane + 32 * i;
                const bool in = i < per_lane && c < hd;
                kx[i] = in ? to_f(k[at + c]) : 0.f;
                vx[i] = in ? to_f(v[at + c]) : 0.f;
            }
            const float bias = a.mask ? a.mask[begin + j] : 0.f;
#pragma unroll
            for (int g = 0; g < kQueriesPerPass; ++g) {
                if (g >= ng) break;
                float dot = 0.f;
#pragma unroll
                for (int i = 0; i < kMaxPerLane; ++i) dot = fmaf(qv[g][i], kx[i], dot);
#pragma unroll
                for (int o = 16; o > 0; o >>= 1) dot += __shfl_xor_sync(0xffffffffu, dot, o);
                // A lowest-float mask keeps the score at lowest: once any real key is seen,
                // exp(lowest - max) is exactly 0, here or when the parts are merged.
                const float s = dot * a.scale + bias;
                const float m_new = fmaxf(m[g], s);
                const float corr = m[g] == -INFINITY ? 0.f : expf(m[g] - m_new);
                const float pj = expf(s - m_new);
                l[g] = l[g] * corr + pj;
#pragma unroll
                for (int i = 0; i < kMaxPerLane; ++i) acc[g][i] = fmaf(pj, vx[i], acc[g][i] * corr);
                m[g] = m_new;
            }
        }
        for (int g = 0; g < ng; ++g) {
            const int64_t row = int64_t(item) * a.group + g0 + g;
            float* out = parts + lay.at(row, a.heads, h, part);
            if (lane == 0) out[0] = m[g], out[1] = l[g];
#pragma unroll
            for (int i = 0; i < kMaxPerLane; ++i) {
                const int c = lane + 32 * i;
                if (i < per_lane && c < hd) out[2 + c] = acc[g][i];
            }
        }
    }
}

// Merges the parts of one (query row, head): out = sum_p e^(m_p - M) acc_p / sum_p e^(m_p - M) l_p.
template <class T>
__global__ void merge_kernel(MemoryAttentionArgs a, PartLayout lay, const float* parts) {
    const int h = blockIdx.x;
    const int64_t row = blockIdx.y;
    const float* base = parts + lay.at(row, a.heads, h, 0);
    const int64_t step = lay.hd + 2;
    float M = -INFINITY;
    for (int p = 0; p < lay.parts; ++p) M = fmaxf(M, base[p * step]);
    float L = 0.f;
    for (int p = 0; p < lay.parts; ++p) {
        const float mp = base[p * step];
        if (mp != -INFINITY) L += expf(mp - M) * base[p * step + 1];
    }
    T* out = static_cast<T*>(a.out) + row * a.out_stride + int64_t(h) * lay.hd;
    for (int c = threadIdx.x; c < lay.hd; c += blockDim.x) {
        float s = 0.f;
        for (int p = 0; p < lay.parts; ++p) {
            const float mp = base[p * step];
            if (mp != -INFINITY) s += expf(mp - M) * base[p * step + 2 + c];
        }
        out[c] = from_f<T>(L > 0.f ? s / L : 0.f);
    }
}

template <class T>
void launch(const MemoryAttentionArgs& a, int chunks, float* parts, cudaStream_t stream) {
    const PartLayout lay{chunks * kWarps, a.head_dim};
    partial_kernel<T><<<dim3(unsigned(chunks), unsigned(a.heads), unsigned(a.items)), kWarps * 32, 0, stream>>>(
        a, lay, parts);
    PRECIS_CUDA_LAUNCHED();
    merge_kernel<T><<<dim3(unsigned(a.heads), unsigned(a.items * a.group)), 64, 0, stream>>>(a, lay, parts);
    PRECIS_CUDA_LAUNCHED();
}

}  // namespace

void MemoryAttention::run(const MemoryAttentionArgs& a, cudaStream_t stream) {
    check(a.p == Precision::F32 || a.p == Precision::F16 || a.p == Precision::BF16,
          "memory attention: unknown precision");
    check(a.items >= 0 && a.group >= 0 && a.max_keys >= 0, "memory attention: negative sizes");
    check(a.heads > 0 && a.head_dim > 0 && a.head_dim <= 32 * kMaxPerLane,
          "memory attention: heads must be positive and head_dim in [1, " + std::to_string(32 * kMaxPerLane) + "]");
    check(a.items <= 65535 && int64_t(a.items) * a.group <= 65535 && a.heads <= 65535,
          "memory attention: too many query rows or heads for one launch");
    if (a.items == 0 || a.group == 0) return;
    check(a.q && a.offsets && a.k && a.v && a.out, "memory attention: null device pointer");
    check(a.q_stride >= int64_t(a.heads) * a.head_dim && a.kv_stride >= int64_t(a.heads) * a.head_dim &&
              a.out_stride >= int64_t(a.heads) * a.head_dim,
          "memory attention: a row stride is shorter than heads * head_dim");
    const int chunks = std::max(1, (a.max_keys + kChunk - 1) / kChunk);
    const size_t bytes =
        size_t(a.items) * a.group * a.heads * size_t(chunks) * kWarps * size_t(a.head_dim + 2) * sizeof(float);
    partials_.reserve(bytes);
    float* parts = partials_.as<float>();
    switch (a.p) {
        case Precision::F32: launch<float>(a, chunks, parts, stream); break;
        case Precision::F16: launch<__half>(a, chunks, parts, stream); break;
        case Precision::BF16: launch<__nv_bfloat16>(a, chunks, parts, stream); break;
    }
}

}  // namespace precis::cuda
