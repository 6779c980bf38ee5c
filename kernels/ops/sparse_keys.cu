// LSG sparse keys and Fovea tree nodes on the device (sparse_keys.h). Each kernel follows
// lsg_attention.cpp / FoveaTree::build operation by operation, in float32 and in the same
// order (the CPU engine is built with FMA contraction, so its a*b+c sums are fmaf here), so
// that the data-dependent choices (norm ranks, lsh buckets) come out identical.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <algorithm>
#include <string>

#include "engine/attention/attention.h"
#include "engine/core/error.h"
#include "kernels/cuda_check.h"
#include "kernels/device_query.h"
#include "kernels/ops/element_convert.cuh"
#include "kernels/ops/sparse_keys.h"

namespace precis::cuda {

namespace {

constexpr float kMaskMin = -3.4028234663852886e38f;

template <class T>
__device__ __forceinline__ float ld(const T* p, int64_t i) {
    return to_f(p[i]);
}
template <class T>
__device__ __forceinline__ void st(T* p, int64_t i, float x) {
    p[i] = from_f<T>(x);
}

// The geometry every kernel needs. Token t of head h: k[(G + t) * D + h * hd + d].
struct Geo {
    int G, T, heads, hd, D, B, SB, f, p, bs, len;
};

__device__ __forceinline__ int64_t tok(const Geo& g, int t, int h) { return int64_t(g.G + t) * g.D + int64_t(h) * g.hd; }
__device__ __forceinline__ int64_t out_at(const Geo& g, int h, int j) { return (int64_t(h) * g.len + j) * g.hd; }

// The norm kernel's staged row length in floats: odd, so that the lanes of a warp, each on its
// own row, read 32 different banks.
__host__ __device__ __forceinline__ int norm_row_stride(int hd) { return hd | 1; }
size_t norm_smem_bytes(const Geo& g) {
    return (size_t(g.bs) * norm_row_stride(g.hd) + g.bs) * sizeof(float) + size_t(g.bs / g.f) * sizeof(int);
}

// Identity (f == 1), stride, block_stride: sparse key j is a copy of one token, stored in the
// input's own type O (exact). mode 0 identity, 1 stride, 2 block_stride. One thread per (head, j, d).
template <class T>
__global__ void copy_keys_kernel(Geo g, int mode, const T* k, const T* v, const float* mask, T* ok, T* ov, float* om) {
    const int64_t n = int64_t(g.heads) * g.len * g.hd;
    for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < n; e += int64_t(gridDim.x) * blockDim.x) {
        const int d = int(e % g.hd);
        const int j = int((e / g.hd) % g.len);
        const int h = int(e / (int64_t(g.hd) * g.len));
        int t = j;
        if (mode == 1) t = j * g.f + h % g.f;
        if (mode == 2) t = (j / g.p) * g.B + ((j % g.p) + (h % g.f) * g.p) % g.B;
        ok[out_at(g, h, j) + d] = k[tok(g, t, h) + d];
        ov[out_at(g, h, j) + d] = v[tok(g, t, h) + d];
        if (d == 0) om[int64_t(h) * g.len + j] = mask[t];
    }
}

// pooling: sum of the valid tokens of the group, in token order, / (count + 1e-6).
template <class T>
__global__ void pooling_kernel(Geo g, const T* k, const T* v, const float* mask, float* ok, float* ov, float* om) {
    const int64_t n = int64_t(g.heads) * g.len * g.hd;
    for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < n; e += int64_t(gridDim.x) * blockDim.x) {
        const int d = int(e % g.hd);
        const int j = int((e / g.hd) % g.len);
        const int h = int(e / (int64_t(g.hd) * g.len));
        float sk = 0.0f, sv = 0.0f;
        int count = 0;
        for (int u = 0; u < g.f; ++u) {
            const int t = j * g.f + u;
            if (mask[t] != 0.0f) continue;  // valid means a mask entry of exactly 0
            ++count;
            sk += ld(k, tok(g, t, h) + d);
            sv += ld(v, tok(g, t, h) + d);
        }
        const float div = float(count) + 1e-6f;
        st(ok, out_at(g, h, j) + d, sk / div);
        st(ov, out_at(g, h, j) + d, sv / div);
        if (d == 0) om[int64_t(h) * g.len + j] = count > 0 ? 0.0f : kMaskMin;
    }
}

// bos_pooling: softmax over the group of q0.k / sqrt(hd) + mask, with q0 the query of token 0.
// One warp per (head, j): the lanes split the dims of each score and sum it with shuffles, and
// each lane accumulates its own dims (up to 4: head_dim <= 128). The group's scores are
// recomputed per pass (max, sum, accumulate) rather than stored, so any factor works.
template <class T>
__global__ void bos_pooling_kernel(Geo g, const T* q, const T* k, const T* v, const float* mask, float* ok,
                                   float* ov, float* om) {
    const int warps = blockDim.x / 32, lane = threadIdx.x % 32;
    const int64_t groups = int64_t(g.heads) * g.len;
    const float sq = sqrtf(float(g.hd));
    for (int64_t w = int64_t(blockIdx.x) * warps + threadIdx.x / 32; w < groups; w += int64_t(gridDim.x) * warps) {
        const int j = int(w % g.len), h = int(w / g.len);
        const int64_t q0 = tok(g, 0, h);
        auto score = [&](int u) {
            const int t = j * g.f + u;
            float dot = 0.0f;
            for (int c = lane; c < g.hd; c += 32) dot = fmaf(ld(q, q0 + c), ld(k, tok(g, t, h) + c), dot);
            for (int o = 16; o > 0; o >>= 1) dot += __shfl_xor_sync(0xffffffffu, dot, o);
            return dot / sq + mask[t];
        };
        float mx = -INFINITY;
        for (int u = 0; u < g.f; ++u) mx = fmaxf(mx, score(u));
        float sum = 0.0f;
        for (int u = 0; u < g.f; ++u) sum += expf(score(u) - mx);
        float sk[4] = {0.f, 0.f, 0.f, 0.f}, sv[4] = {0.f, 0.f, 0.f, 0.f};
        for (int u = 0; u < g.f; ++u) {
            const float wu = expf(score(u) - mx) / sum;
            const int64_t row = tok(g, j * g.f + u, h);
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const int d = lane + 32 * i;
                if (d < g.hd) {
                    sk[i] = fmaf(wu, ld(k, row + d), sk[i]);
                    sv[i] = fmaf(wu, ld(v, row + d), sv[i]);
                }
            }
        }
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const int d = lane + 32 * i;
            if (d < g.hd) {
                st(ok, out_at(g, h, j) + d, sk[i]);
                st(ov, out_at(g, h, j) + d, sv[i]);
            }
        }
        if (lane == 0) om[int64_t(h) * g.len + j] = 0.0f;  // the reference's quirk: never masked
    }
}

// Whether token rows can be read 16 bytes at a time: every row of every head starts on a
// 16-byte boundary (the base, the row stride D and the head offset all allow it).
template <class T>
bool rows_vectorizable(const Geo& g, const void* k, const void* v) {
    constexpr int per = int(16 / sizeof(T));
    return g.hd % per == 0 && g.D % per == 0 && reinterpret_cast<uintptr_t>(k) % 16 == 0 &&
           reinterpret_cast<uintptr_t>(v) % 16 == 0;
}

// Rows [0, n) of one head of token rows starting at token t0, widened to float into shared
// memory (row r at dst + r * stride); with `mask`, the rows of masked tokens (mask != 0) are
// zeros. Loads are independent and issued four per thread before any is stored: a loop of
// single dependent loads was latency-bound.
template <class T>
__device__ __forceinline__ void stage_rows(const Geo& g, const T* src, int t0, int h, int n, bool vec, float* dst,
                                           int stride, const float* mask = nullptr) {
    constexpr int kUnroll = 4;
    if (vec) {
        constexpr int per = int(16 / sizeof(T));
        const int per_row = g.hd / per, total = n * per_row;
        for (int base = threadIdx.x; base < total; base += kUnroll * blockDim.x) {
            uint4 r[kUnroll];
#pragma unroll
            for (int i = 0; i < kUnroll; ++i) {
                const int e = base + i * blockDim.x;
                if (e < total)
                    r[i] = *reinterpret_cast<const uint4*>(src + tok(g, t0 + e / per_row, h) + (e % per_row) * per);
            }
#pragma unroll
            for (int i = 0; i < kUnroll; ++i) {
                const int e = base + i * blockDim.x;
                if (e >= total) break;
                const T* x = reinterpret_cast<const T*>(&r[i]);
                const bool zero = mask && mask[t0 + e / per_row] != 0.0f;
                float* out = dst + (e / per_row) * stride + (e % per_row) * per;
#pragma unroll
                for (int c = 0; c < per; ++c) out[c] = zero ? 0.0f : to_f(x[c]);
            }
        }
    } else {
        const int total = n * g.hd;
        for (int base = threadIdx.x; base < total; base += kUnroll * blockDim.x) {
            float r[kUnroll];
#pragma unroll
            for (int i = 0; i < kUnroll; ++i) {
                const int e = base + i * blockDim.x;
                r[i] = e < total ? to_f(src[tok(g, t0 + e / g.hd, h) + e % g.hd]) : 0.f;
            }
#pragma unroll
            for (int i = 0; i < kUnroll; ++i) {
                const int e = base + i * blockDim.x;
                if (e < total) dst[(e / g.hd) * stride + e % g.hd] = mask && mask[t0 + e / g.hd] != 0.0f ? 0.0f : r[i];
            }
        }
    }
}

// norm: one CTA per (head, chunk of bs tokens). Norms as the CPU (double sum in dimension
// order, float result, 0 when masked); a token's rank in descending order with ties to the
// lower index decides whether it is kept and, counted from the end, its slot (ascending norm
// order). The chunk's keys are first staged in shared memory (a thread walking its own row
// in global memory was latency-bound: 64 scattered loads per token), and the kept tokens
// are written slot by slot, so every global access is coalesced.
template <class T>
__global__ void norm_kernel(Geo g, const T* k, const T* v, const float* mask, T* ok, T* ov, float* om, bool vec) {
    extern __shared__ float staged[];
    const int stride = norm_row_stride(g.hd);  // odd: a thread per row reads its own bank
    float* rows = staged;                       // [bs][stride] the chunk's keys, widened
    float* norms = rows + size_t(g.bs) * stride;
    int* slot_token = reinterpret_cast<int*>(norms + g.bs);  // [keep] chunk token of each slot
    const int h = blockIdx.y, c = blockIdx.x, keep = g.bs / g.f;
    stage_rows(g, k, c * g.bs, h, g.bs, vec, rows, stride);
    __syncthreads();
    for (int u = threadIdx.x; u < g.bs; u += blockDim.x) {
        double acc = 0.0;
        for (int d = 0; d < g.hd; ++d) {
            const double x = rows[u * stride + d];
            acc = fma(x, x, acc);
        }
        norms[u] = mask[c * g.bs + u] == 0.0f ? float(sqrt(acc)) : 0.0f;
    }
    __syncthreads();
    for (int u = threadIdx.x; u < g.bs; u += blockDim.x) {
        const float nu = norms[u];
        int rank = 0;
        for (int w = 0; w < g.bs; ++w) rank += (norms[w] > nu) || (norms[w] == nu && w < u);
        if (rank < keep) slot_token[keep - 1 - rank] = u;  // ranks are distinct: every slot once
    }
    __syncthreads();
    // Keys from the staged rows (exact: each was a T), values straight from global memory,
    // several loads in flight per thread.
    constexpr int kUnroll = 4;
    const int total = keep * g.hd;
    for (int base = threadIdx.x; base < total; base += kUnroll * blockDim.x) {
        T vx[kUnroll];
#pragma unroll
        for (int i = 0; i < kUnroll; ++i) {
            const int e = base + i * blockDim.x;
            if (e < total) vx[i] = v[tok(g, c * g.bs + slot_token[e / g.hd], h) + e % g.hd];
        }
#pragma unroll
        for (int i = 0; i < kUnroll; ++i) {
            const int e = base + i * blockDim.x;
            if (e >= total) break;
            const int s = e / g.hd, d = e % g.hd, u = slot_token[s], j = c * keep + s;
            ok[out_at(g, h, j) + d] = from_f<T>(rows[u * stride + d]);
            ov[out_at(g, h, j) + d] = vx[i];
            if (d == 0) om[int64_t(h) * g.len + j] = mask[c * g.bs + u];
        }
    }
}

// lsh: one CTA per (head, chunk). Shared memory holds the items of the current round and the
// buckets of the next (bs rows of hd each, padded to hd + 1 so that a warp whose lanes own
// consecutive items reads 32 different banks) plus counts; keys go through all rounds first
// (recording every item's bucket), then the values replay the recorded buckets in the same
// buffers. Bucket sums add items in item order, one thread per dim, exactly like the CPU loop;
// the normalized items are computed once per round (into the buckets' buffer, free until the
// sums) with the CPU's expression, so the projections, and the buckets, come out identical.
template <class T>
__global__ void lsh_kernel(Geo g, int rounds, const float* __restrict__ R, const T* k, const T* v,
                           const float* mask, float* ok, float* ov, float* om, bool vec) {
    extern __shared__ float sm[];
    const int bs = g.bs, hd = g.hd, ld_x = hd + 1, h = blockIdx.y, c = blockIdx.x, out_final = bs / g.f;
    float* in_x = sm;                  // bs * ld_x
    float* out_x = in_x + bs * ld_x;   // bs * ld_x
    float* in_c = out_x + bs * ld_x;   // bs
    float* out_c = in_c + bs;          // bs
    int* bucket = reinterpret_cast<int*>(out_c + bs);  // rounds * bs
    for (int pass = 0; pass < 2; ++pass) {  // 0: keys (bucketing), 1: values (replay)
        stage_rows(g, pass == 0 ? k : v, c * bs, h, bs, vec, in_x, ld_x, mask);
        for (int u = threadIdx.x; u < bs; u += blockDim.x) in_c[u] = mask[c * bs + u] == 0.0f ? 1.0f : 0.0f;
        __syncthreads();
        int items = bs;
        int64_t r_off = 0;
        for (int r = 0; r < rounds; ++r) {
            const int out = r + 1 < rounds ? bs : out_final, nh = out / 2;
            int* bk = bucket + r * bs;
            if (pass == 0) {
                // The item norms (out_c is free until the counts below), then x / norm * bin.
                for (int u = threadIdx.x; u < items; u += blockDim.x) {
                    const float* x = in_x + u * ld_x;
                    float nrm = 0.0f;
                    for (int d = 0; d < hd; ++d) nrm = fmaf(x[d], x[d], nrm);
                    out_c[u] = fmaxf(sqrtf(nrm), 1e-12f);
                }
                __syncthreads();
                for (int e = threadIdx.x; e < items * hd; e += blockDim.x) {
                    const int u = e / hd, d = e % hd;
                    const float bin = fminf(fmaxf(in_c[u], 0.0f), 1.0f);
                    out_x[u * ld_x + d] = in_x[u * ld_x + d] / out_c[u] * bin;
                }
                __syncthreads();
                const float* Rh = R + r_off + int64_t(h) * hd * nh;  // [hd][nh]
                for (int u = threadIdx.x; u < items; u += blockDim.x) {
                    const float* xn = out_x + u * ld_x;
                    // argmax over [proj, -proj], first maximum wins: the first max of proj, unless
                    // -proj has a strictly larger max (then its first index).
                    int best_hi = 0, best_lo = 0;
                    float hi = 0.0f, lo = 0.0f;
                    auto take = [&](int e, float pr) {
                        if (e == 0 || pr > hi) hi = pr, best_hi = e;
                        if (e == 0 || pr < lo) lo = pr, best_lo = e;
                    };
                    // Four projections at once: four independent fma chains (each in the CPU's
                    // dimension order) instead of one chain whose every step waits on the last.
                    int e = 0;
                    for (; e + 4 <= nh; e += 4) {
                        float p0 = 0.0f, p1 = 0.0f, p2 = 0.0f, p3 = 0.0f;
#pragma unroll 4
                        for (int d = 0; d < hd; ++d) {
                            const float x = xn[d];
                            const float* r = Rh + d * nh + e;
                            p0 = fmaf(x, __ldg(r), p0);
                            p1 = fmaf(x, __ldg(r + 1), p1);
                            p2 = fmaf(x, __ldg(r + 2), p2);
                            p3 = fmaf(x, __ldg(r + 3), p3);
                        }
                        take(e, p0), take(e + 1, p1), take(e + 2, p2), take(e + 3, p3);
                    }
                    for (; e < nh; ++e) {
                        float pr = 0.0f;
                        for (int d = 0; d < hd; ++d) pr = fmaf(xn[d], __ldg(Rh + d * nh + e), pr);
                        take(e, pr);
                    }
                    bk[u] = (-lo > hi) ? nh + best_lo : best_hi;
                }
                r_off += int64_t(g.heads) * hd * nh;
            }
            __syncthreads();
            for (int e = threadIdx.x; e < out * ld_x; e += blockDim.x) out_x[e] = 0.0f;
            __syncthreads();
            for (int d = threadIdx.x; d < hd; d += blockDim.x)
                for (int u = 0; u < items; ++u) out_x[bk[u] * ld_x + d] += in_x[u * ld_x + d];
            if (threadIdx.x == 0) {
                for (int b = 0; b < out; ++b) out_c[b] = 0.0f;
                for (int u = 0; u < items; ++u) out_c[bk[u]] += in_c[u];
            }
            __syncthreads();
            for (int e = threadIdx.x; e < out * ld_x; e += blockDim.x) in_x[e] = out_x[e];
            for (int b = threadIdx.x; b < out; b += blockDim.x) in_c[b] = out_c[b];
            __syncthreads();
            items = out;
        }
        float* dst = pass == 0 ? ok : ov;
        for (int e = threadIdx.x; e < out_final * hd; e += blockDim.x) {
            const int b = e / hd, d = e % hd, j = c * out_final + b;
            st(dst, out_at(g, h, j) + d, in_x[b * ld_x + d] / (in_c[b] + 1e-8f));
        }
        if (pass == 0)
            for (int b = threadIdx.x; b < out_final; b += blockDim.x)
                om[int64_t(h) * g.len + c * out_final + b] = (1.0f - fminf(fmaxf(in_c[b], 0.0f), 1.0f)) * kMaskMin;
        __syncthreads();
    }
}

// What builds the keys, resolved as lsg_attention does (f == 1 identity, lsh with f == SB as
// bos_pooling): 0 identity, 1 stride, 2 block_stride, 3 pooling, 4 bos_pooling, 5 norm, 6 lsh.
int resolved_kind(SparsityType type, int f, int sparse_block_size) {
    if (f <= 1) return 0;
    switch (type) {
        case SparsityType::Stride: return 1;
        case SparsityType::BlockStride: return 2;
        case SparsityType::Pooling: return 3;
        case SparsityType::BosPooling: return 4;
        case SparsityType::Norm: return 5;
        case SparsityType::Lsh: return f == sparse_block_size ? 4 : 6;
        case SparsityType::None: break;
    }
    return 0;
}

int grid_for(int64_t n) { return int(std::min<int64_t>((n + 255) / 256, 65535)); }

template <class T>
void launch_sparse(const SparseKeysArgs& a, const Geo& g, int kind, int rounds, size_t lsh_smem, cudaStream_t stream) {
    const T* q = static_cast<const T*>(a.q);
    const T* k = static_cast<const T*>(a.k);
    const T* v = static_cast<const T*>(a.v);
    // Copies of tokens (kinds 0-2 and 5) are stored as T, sums as float32 (sparse_keys.h).
    T* ck = static_cast<T*>(a.sparse_k);
    T* cv = static_cast<T*>(a.sparse_v);
    float* ok = static_cast<float*>(a.sparse_k);
    float* ov = static_cast<float*>(a.sparse_v);
    const int64_t n = int64_t(g.heads) * g.len * g.hd;
    switch (kind) {
        case 0: case 1: case 2:
            copy_keys_kernel<T><<<grid_for(n), 256, 0, stream>>>(g, kind, k, v, a.token_mask, ck, cv, a.sparse_mask);
            break;
        case 3: pooling_kernel<T><<<grid_for(n), 256, 0, stream>>>(g, k, v, a.token_mask, ok, ov, a.sparse_mask); break;
        case 4:
            bos_pooling_kernel<T><<<grid_for(int64_t(g.heads) * g.len * 32), 256, 0, stream>>>(
                g, q, k, v, a.token_mask, ok, ov, a.sparse_mask);
            break;
        case 5: {
            const size_t smem = norm_smem_bytes(g);
            PRECIS_CUDA_CHECK(
                cudaFuncSetAttribute(norm_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
            norm_kernel<T><<<dim3(g.T / g.bs, g.heads), 128, smem, stream>>>(g, k, v, a.token_mask, ck, cv,
                                                                             a.sparse_mask, rows_vectorizable<T>(g, k, v));
            break;
        }
        case 6:
            PRECIS_CUDA_CHECK(cudaFuncSetAttribute(lsh_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                   int(lsh_smem)));
            lsh_kernel<T><<<dim3(g.T / g.bs, g.heads), 128, lsh_smem, stream>>>(g, rounds, a.lsh_r, k, v, a.token_mask,
                                                                              ok, ov, a.sparse_mask,
                                                                              rows_vectorizable<T>(g, k, v));
            break;
    }
    PRECIS_CUDA_LAUNCHED();
}

// Fovea level 0: token rows copied (rows beyond T: zero keys, masked).
template <class T>
__global__ void fovea_level0_kernel(const T* k, const T* v, const float* mask, int T_, int rows, int D, float* nk,
                                    float* nv, float* nm) {
    const int64_t n = int64_t(rows) * D;
    for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < n; e += int64_t(gridDim.x) * blockDim.x) {
        const int t = int(e / D);
        st(nk, e, t < T_ ? ld(k, e) : 0.0f);
        st(nv, e, t < T_ ? ld(v, e) : 0.0f);
        if (e % D == 0) nm[t] = t < T_ ? (mask ? mask[t] : 0.0f) : kMaskMin;
    }
}

// Fovea level q: node j = (node j + node j + half of level q-1) * 0.5, position by position;
// masked only when both halves are masked.
__global__ void fovea_level_kernel(int64_t prev_row, int64_t cur_row, int nodes, int half_rows, int BL, int D,
                                   float* nk, float* nv, float* nm) {
    const int64_t n = int64_t(nodes) * BL * D;
    for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < n; e += int64_t(gridDim.x) * blockDim.x) {
        const int64_t r = e / D, col = e % D;
        const int64_t a = (prev_row + r) * D + col, b = (prev_row + r + half_rows) * D + col, o = (cur_row + r) * D + col;
        st(nk, o, (ld(nk, a) + ld(nk, b)) * 0.5f);
        st(nv, o, (ld(nv, a) + ld(nv, b)) * 0.5f);
        if (col == 0) {
            const bool valid = nm[prev_row + r] == 0.0f || nm[prev_row + r + half_rows] == 0.0f;
            nm[cur_row + r] = valid ? 0.0f : kMaskMin;
        }
    }
}

template <class T>
void launch_fovea(const void* k, const void* v, const float* mask, int T_, int heads, int hd, int BL, int levels,
                  float* nk, float* nv, float* nm, cudaStream_t stream) {
    const int D = heads * hd, NB = (T_ + BL - 1) / BL;
    float* k_out = nk;
    float* v_out = nv;
    fovea_level0_kernel<T><<<grid_for(int64_t(NB) * BL * D), 256, 0, stream>>>(
        static_cast<const T*>(k), static_cast<const T*>(v), mask, T_, NB * BL, D, k_out, v_out, nm);
    PRECIS_CUDA_LAUNCHED();
    int64_t prev = 0, cur = int64_t(NB) * BL;  // first row of the previous / current level
    for (int q = 1; q < levels; ++q) {
        const int nodes = NB - (1 << q) + 1, prev_nodes = NB - (1 << (q - 1)) + 1;
        fovea_level_kernel<<<grid_for(int64_t(nodes) * BL * D), 256, 0, stream>>>(
            prev, cur, nodes, (1 << (q - 1)) * BL, BL, D, k_out, v_out, nm);
        PRECIS_CUDA_LAUNCHED();
        prev = cur;
        cur += int64_t(nodes) * BL;
        (void)prev_nodes;
    }
}

}  // namespace

bool sparse_keys_copy_tokens(SparsityType type, int factor, int sparse_block_size) {
    const int kind = resolved_kind(type, factor, sparse_block_size);
    return kind <= 2 || kind == 5;
}

void build_sparse_keys(const SparseKeysArgs& a, cudaStream_t stream) {
    // All checks first: nothing reaches the device with bad arguments.
    check(a.G >= 0 && a.T > 0 && a.heads > 0 && a.head_dim > 0,
          "build_sparse_keys: G >= 0, T > 0, heads > 0 and head_dim > 0 required");
    LsgSettings s;
    s.block_size = a.block_size;
    s.sparse_block_size = a.sparse_block_size;
    s.sparsity_factor = a.factor;
    s.sparsity_type = a.type;
    s.lsh_num_pre_rounds = a.lsh_pre_rounds;
    check_lsg_attention_settings(s, a.T);
    check(s.sparse_enabled(), "build_sparse_keys: the sparse part is off (type none or factor/SB 0)");
    check(a.T > 2 * a.block_size, "build_sparse_keys: only the sparse path (T > 2B) has sparse keys");
    check(a.k && a.v && a.token_mask && a.sparse_k && a.sparse_v && a.sparse_mask,
          "build_sparse_keys: k, v, token_mask and the outputs must not be null");
    const int f = a.factor;
    Geo g{a.G, a.T, a.heads, a.head_dim, a.heads * a.head_dim, a.block_size, a.sparse_block_size, f,
          a.block_size / f, std::min(a.block_size, a.sparse_block_size), a.T / f};
    const int kind = resolved_kind(a.type, f, a.sparse_block_size);
    check(kind != 4 || a.q != nullptr, "build_sparse_keys: bos_pooling needs q");
    const int rounds = a.lsh_pre_rounds + 1;
    // What the kernels support (argument errors), then what this card gives a block (64 KiB
    // on Turing, 99 on the 8.6/8.9 cards): past that it is the device that cannot run the
    // layer, a DeviceFailure, so the run goes on on the CPU and says why.
    const int card_limit = current_device_shared_memory_limit();  // 0 without a GPU
    auto check_shared = [&](size_t bytes, const char* type) {
        const std::string what = std::string("build_sparse_keys: ") + type + " with min(B, SB) = " +
                                 std::to_string(g.bs) + " and head_dim " + std::to_string(g.hd) + " needs " +
                                 std::to_string(bytes >> 10) + " KiB of shared memory";
        check(bytes <= size_t(200) * 1024, what + ", more than the kernel supports");
        if (card_limit > 0 && bytes > size_t(card_limit))
            throw DeviceFailure(what + ", more than the " + std::to_string(card_limit >> 10) +
                                " KiB this GPU gives a block");
    };
    size_t lsh_smem = 0;
    if (kind == 6) {
        check(a.lsh_r != nullptr, "build_sparse_keys: sparsity type lsh needs the projections (lsh_r is null)");
        lsh_smem = (size_t(2) * g.bs * (g.hd + 1) + 2 * size_t(g.bs)) * sizeof(float) +
                   size_t(rounds) * g.bs * sizeof(int);
        check_shared(lsh_smem, "lsh");
    }
    if (kind == 5) check_shared(norm_smem_bytes(g), "norm");
    switch (a.p) {
        case Precision::F32: launch_sparse<float>(a, g, kind, rounds, lsh_smem, stream); break;
        case Precision::F16: launch_sparse<__half>(a, g, kind, rounds, lsh_smem, stream); break;
        case Precision::BF16: launch_sparse<__nv_bfloat16>(a, g, kind, rounds, lsh_smem, stream); break;
    }
}

void build_fovea_nodes(Precision p, const void* k, const void* v, const float* token_mask, int T, int heads,
                       int head_dim, int block_len, int levels, float* node_k, float* node_v, float* node_mask,
                       cudaStream_t stream) {
    check(T > 0 && heads > 0 && head_dim > 0 && block_len > 0,
          "build_fovea_nodes: T, heads, head_dim and block_len must be positive");
    const int NB = (T + block_len - 1) / block_len;
    // levels counts the tree levels built (fovea_top_level + 1); level q needs 2^q <= NB.
    check(levels >= 1 && levels <= 31 && (int64_t(1) << (levels - 1)) <= NB,
          "build_fovea_nodes: " + std::to_string(levels) + " levels do not exist with " + std::to_string(NB) +
              " blocks");
    check(k && v && node_k && node_v && node_mask, "build_fovea_nodes: k, v and the outputs must not be null");
    switch (p) {
        case Precision::F32:
            launch_fovea<float>(k, v, token_mask, T, heads, head_dim, block_len, levels, node_k, node_v, node_mask,
                                stream);
            break;
        case Precision::F16:
            launch_fovea<__half>(k, v, token_mask, T, heads, head_dim, block_len, levels, node_k, node_v, node_mask,
                                 stream);
            break;
        case Precision::BF16:
            launch_fovea<__nv_bfloat16>(k, v, token_mask, T, heads, head_dim, block_len, levels, node_k, node_v,
                                        node_mask, stream);
            break;
    }
}

}  // namespace precis::cuda
