#include "kernels/ops/cross_attention.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

#include "engine/core/error.h"
#include "kernels/cuda_check.h"
#include "kernels/ops/element_convert.cuh"

namespace precis::cuda {

namespace {

constexpr int kWarps = 4;
constexpr int kMinChunk = 128;      // keys per CTA at least (shorter chunks cost more to merge than they save)
constexpr int kCtasPerSm = 4;       // enough CTAs of partial_kernel to fill the GPU
constexpr int kQueriesPerPass = 8;  // queries held in registers at once, at most
constexpr int kMaxPerLane = 4;      // head_dim / 32, up to 128

// Value rows read whole (the vector-values path, for fp16/bf16 at head size 64): a value row
// is 128 bytes, eight 16-byte vectors, so lanes 8s..8s+7 take one row and a load instruction
// brings four whole rows; a lane's eight loads bring the batch's 32 rows, all issued with the
// batch's keys, before any score is known. The other path reads two bytes a lane, eight rows
// at a time, after the scores: five waits on memory a batch instead of one. A lane then sums
// its eight columns over its rows (s, s + 4, ...) and the four row sets are added at the end.
constexpr int kVecHeadDim = 64;
constexpr int kVecLanesPerRow = kVecHeadDim / 8;       // 8
constexpr int kVecRowsPerLoad = 32 / kVecLanesPerRow;  // 4
constexpr int kVecLoads = 32 / kVecRowsPerLoad;        // 8


// Partial result of one CTA's keys for one (query row, head): running max m, sum l and the
// unnormalized output; one part per chunk.
struct PartLayout {
    int parts, hd, chunk;  // parts per (row, head), head_dim, keys per CTA
    __device__ int64_t at(int64_t row, int heads, int h, int part) const {
        return ((row * heads + h) * parts + part) * int64_t(hd + 2);
    }
};

// One warp takes 32 consecutive keys at a time, a key per lane: each lane scores its key
// against every query of the pass (queries in shared memory, read as broadcasts; its key row
// read 16 bytes at a time where the layout allows), the batch's maximum and sum are one warp
// reduction per query, and then the values are summed with the lanes owning dims (lane,
// lane + 32, ...), each key's weight broadcast from its lane, so every value row is read
// coalesced. Every load of a batch is independent of the others: the warp keeps many in
// flight instead of one key's dependent chain at a time.
//
// NQ, the queries of a pass, is the group rounded up to a compiled size: a pass of 8 for one
// query (the encoder's global row, greedy decoding) would score 7 zero queries per key.
// VecV: values read whole rows at a time (kVecHeadDim above; fp16/bf16, head_dim 64 only).
template <class T, int NQ, bool VecV>
__global__ void __launch_bounds__(kWarps * 32) partial_kernel(MemoryAttentionArgs a, PartLayout lay, float* parts,
                                                              bool vector_rows) {
    static_assert(!VecV || sizeof(T) == 2, "whole value rows are read as 16-byte vectors of 2-byte values");
    constexpr int kAcc = VecV ? 8 : kMaxPerLane;  // a lane's output columns: 8 of its row slice, or lane + 32i
    __shared__ float qs[NQ][32 * kMaxPerLane];
    __shared__ float wm[kWarps][NQ], wl[kWarps][NQ];
    __shared__ float wacc[kWarps][NQ][32 * kMaxPerLane];
    const int chunk = blockIdx.x, h = blockIdx.y, item = blockIdx.z;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int hd = a.head_dim, per_lane = (hd + 31) / 32;
    const int begin = a.offsets[item];
    const int keys = a.key_counts ? a.key_counts[item] : a.offsets[item + 1] - begin;
    const int j0 = chunk * lay.chunk, j1 = min(keys, j0 + lay.chunk);
    const T* q = static_cast<const T*>(a.q);
    const T* k = static_cast<const T*>(a.k);
    const T* v = static_cast<const T*>(a.v);
    for (int g0 = 0; g0 < a.group; g0 += NQ) {
        const int ng = min(NQ, a.group - g0);
        __syncthreads();  // the previous pass's queries and warp results are no longer read
        for (int e = threadIdx.x; e < NQ * hd; e += blockDim.x) {
            const int g = e / hd, c = e % hd;
            const int64_t row = int64_t(item) * a.group + g0 + g;
            qs[g][c] = g < ng ? to_f(q[row * a.q_stride + int64_t(h) * hd + c]) : 0.f;
        }
        __syncthreads();
        float acc[NQ][kAcc], m[NQ], l[NQ];
#pragma unroll
        for (int g = 0; g < NQ; ++g) {
#pragma unroll
            for (int i = 0; i < kAcc; ++i) acc[g][i] = 0.f;
            m[g] = -INFINITY;
            l[g] = 0.f;
        }
        for (int base = j0 + 32 * warp; base < j1; base += 32 * kWarps) {
            const int j = base + lane, batch = min(32, j1 - base);
            const bool valid = lane < batch;
            // VecV: the batch's value rows, requested before its keys are scored.
            uint4 vraw[VecV ? kVecLoads : 1];
            if constexpr (VecV) {
                const int sub = lane / kVecLanesPerRow, col = (lane % kVecLanesPerRow) * 8;
#pragma unroll
                for (int i = 0; i < kVecLoads; ++i) {
                    const int r = sub + kVecRowsPerLoad * i;
                    vraw[i] = r < batch ? *reinterpret_cast<const uint4*>(v + int64_t(begin + base + r) * a.kv_stride +
                                                                          int64_t(h) * hd + col)
                                        : make_uint4(0u, 0u, 0u, 0u);
                }
            }
            float dot[NQ];
#pragma unroll
            for (int g = 0; g < NQ; ++g) dot[g] = 0.f;
            bool scored = false;
            if constexpr (sizeof(T) == 2) {
                if (valid && vector_rows) {
                    // The lane's key row is loaded 64 dims at a time, all of a part before any
                    // of it is used: one memory latency per part instead of one per 16 bytes (the
                    // loop below waits on each load in turn). The sums keep that loop's order.
                    constexpr int kVecs = 8;  // 16-byte vectors per part
                    const T* krow = k + int64_t(begin + j) * a.kv_stride + int64_t(h) * hd;
                    for (int c0 = 0; c0 < hd; c0 += 8 * kVecs) {
                        uint4 raw[kVecs];
#pragma unroll
                        for (int i = 0; i < kVecs; ++i)
                            if (c0 + i * 8 < hd) raw[i] = *reinterpret_cast<const uint4*>(krow + c0 + i * 8);
#pragma unroll
                        for (int i = 0; i < kVecs; ++i) {
                            if (c0 + i * 8 >= hd) break;
                            const T* e = reinterpret_cast<const T*>(&raw[i]);
#pragma unroll
                            for (int g = 0; g < NQ; ++g)
#pragma unroll
                                for (int x = 0; x < 8; ++x)
                                    dot[g] = fmaf(qs[g][c0 + i * 8 + x], to_f(e[x]), dot[g]);
                        }
                    }
                    scored = true;
                }
            }
            if (valid && !scored) {
                const T* krow = k + int64_t(begin + j) * a.kv_stride + int64_t(h) * hd;
                for (int c = 0; c < hd; c += 8) {
                    float kx[8];
                    bool loaded = false;
                    if constexpr (sizeof(T) == 2) {
                        if (vector_rows) {
                            const uint4 raw = *reinterpret_cast<const uint4*>(krow + c);
                            const T* e = reinterpret_cast<const T*>(&raw);
#pragma unroll
                            for (int x = 0; x < 8; ++x) kx[x] = to_f(e[x]);
                            loaded = true;
                        }
                    }
                    if (!loaded)
#pragma unroll
                        for (int x = 0; x < 8; ++x) kx[x] = c + x < hd ? to_f(krow[c + x]) : 0.f;
#pragma unroll
                    for (int g = 0; g < NQ; ++g)
#pragma unroll
                        for (int x = 0; x < 8; ++x)
                            if (c + x < hd) dot[g] = fmaf(qs[g][c + x], kx[x], dot[g]);
                }
            }
            // A lowest-float mask keeps the score at lowest: once any real key is seen,
            // exp(lowest - max) is exactly 0, here or when the parts are merged.
            const float bias = valid && a.mask ? a.mask[begin + j] : 0.f;
            float w[NQ];
#pragma unroll
            for (int g = 0; g < NQ; ++g) {
                if (g >= ng) break;
                const float sc = valid ? dot[g] * a.scale + bias : -INFINITY;
                float bm = sc;
                for (int o = 16; o > 0; o >>= 1) bm = fmaxf(bm, __shfl_xor_sync(0xffffffffu, bm, o));
                const float m_new = fmaxf(m[g], bm);  // finite: the batch holds a key
                const float corr = m[g] == -INFINITY ? 0.f : expf(m[g] - m_new);
                w[g] = valid ? expf(sc - m_new) : 0.f;
                float bs = w[g];
                for (int o = 16; o > 0; o >>= 1) bs += __shfl_xor_sync(0xffffffffu, bs, o);
                l[g] = l[g] * corr + bs;
#pragma unroll
                for (int i = 0; i < kAcc; ++i) acc[g][i] *= corr;
                m[g] = m_new;
            }
            if constexpr (VecV) {
                // Row r of the batch is weighed by lane r's weight (0 past the batch, whose rows
                // were loaded as zeros).
                const int sub = lane / kVecLanesPerRow;
#pragma unroll
                for (int i = 0; i < kVecLoads; ++i) {
                    const T* e = reinterpret_cast<const T*>(&vraw[i]);
                    float vx[8];
#pragma unroll
                    for (int x = 0; x < 8; ++x) vx[x] = to_f(e[x]);
#pragma unroll
                    for (int g = 0; g < NQ; ++g) {
                        if (g >= ng) break;
                        const float pj = __shfl_sync(0xffffffffu, w[g], sub + kVecRowsPerLoad * i);
#pragma unroll
                        for (int x = 0; x < 8; ++x) acc[g][x] = fmaf(pj, vx[x], acc[g][x]);
                    }
                }
            } else {
                // Eight value rows at a time: their loads are all issued before any is used.
                constexpr int kRows = 8;
                for (int j8 = 0; j8 < batch; j8 += kRows) {
                    float vx[kRows][kMaxPerLane];
#pragma unroll
                    for (int u = 0; u < kRows; ++u) {
                        const T* vrow = v + int64_t(begin + base + j8 + u) * a.kv_stride + int64_t(h) * hd;
#pragma unroll
                        for (int i = 0; i < kMaxPerLane; ++i) {
                            const int c = lane + 32 * i;
                            vx[u][i] = j8 + u < batch && i < per_lane && c < hd ? to_f(vrow[c]) : 0.f;
                        }
                    }
#pragma unroll
                    for (int u = 0; u < kRows; ++u) {
#pragma unroll
                        for (int g = 0; g < NQ; ++g) {
                            if (g >= ng) break;
                            const float pj = __shfl_sync(0xffffffffu, w[g], (j8 + u) & 31);  // 0 past the batch
#pragma unroll
                            for (int i = 0; i < kAcc; ++i) acc[g][i] = fmaf(pj, vx[u][i], acc[g][i]);
                        }
                    }
                }
            }
        }
        // The CTA's four warps become one part: fewer parts for the merge to read.
        if (lane == 0)
            for (int g = 0; g < NQ; ++g) wm[warp][g] = m[g], wl[warp][g] = l[g];
        if constexpr (VecV) {
            // The four row sets' sums of each column (lanes l, l^8, l^16, l^24), then lanes
            // 0..7 hold the warp's 64 columns, eight each.
#pragma unroll
            for (int g = 0; g < NQ; ++g)
#pragma unroll
                for (int x = 0; x < 8; ++x) {
                    float t = acc[g][x];
                    t += __shfl_xor_sync(0xffffffffu, t, 8);
                    t += __shfl_xor_sync(0xffffffffu, t, 16);
                    acc[g][x] = t;
                }
            if (lane < kVecLanesPerRow)
#pragma unroll
                for (int g = 0; g < NQ; ++g)
#pragma unroll
                    for (int x = 0; x < 8; ++x) wacc[warp][g][lane * 8 + x] = acc[g][x];
        } else {
#pragma unroll
            for (int g = 0; g < NQ; ++g)
#pragma unroll
                for (int i = 0; i < kMaxPerLane; ++i) wacc[warp][g][lane + 32 * i] = acc[g][i];
        }
        __syncthreads();
        for (int e = threadIdx.x; e < ng * hd; e += blockDim.x) {
            const int g = e / hd, c = e % hd;
            float M = -INFINITY;
            for (int w2 = 0; w2 < kWarps; ++w2) M = fmaxf(M, wm[w2][g]);
            float L = 0.f, out_c = 0.f;
            for (int w2 = 0; w2 < kWarps; ++w2) {
                // A warp that saw no key. One whose scores were all NaN or -inf (an fp16
                // overflow) also kept m at -inf, but its sum is NaN: it is added, so the NaN
                // reaches the output and the overflow is seen.
                if (wm[w2][g] == -INFINITY && wl[w2][g] == 0.f) continue;
                const float f = expf(wm[w2][g] - M);
                L += f * wl[w2][g];
                out_c += f * wacc[w2][g][c];
            }
            const int64_t row = int64_t(item) * a.group + g0 + g;
            float* out = parts + lay.at(row, a.heads, h, chunk);
            if (c == 0) out[0] = M, out[1] = L;
            out[2 + c] = out_c;
        }
    }
}

// Merges the parts of one (query row, head), a CTA of kMergeThreads each:
// out = sum_p e^(m_p - M) acc_p / sum_p e^(m_p - M) l_p. The weights e^(m_p - M) are computed
// once per part into shared memory; then the threads split the dims and the parts (groups of
// parts per dim), each reading its parts' rows coalesced with several loads in flight, and the
// groups' sums are added at the end.
constexpr int kMergeThreads = 128;

__device__ float block_reduce(float x, bool take_max, float* scratch) {
    for (int o = 16; o > 0; o >>= 1) {
        const float y = __shfl_xor_sync(0xffffffffu, x, o);
        x = take_max ? fmaxf(x, y) : x + y;
    }
    const int warp = threadIdx.x / 32;
    __syncthreads();  // scratch may still be read by a previous reduction
    if (threadIdx.x % 32 == 0) scratch[warp] = x;
    __syncthreads();
    x = scratch[0];
    for (int w = 1; w < kMergeThreads / 32; ++w) x = take_max ? fmaxf(x, scratch[w]) : x + scratch[w];
    return x;
}

template <class T>
__global__ void __launch_bounds__(kMergeThreads) merge_kernel(MemoryAttentionArgs a, PartLayout lay,
                                                              const float* parts) {
    extern __shared__ float weight[];  // lay.parts
    __shared__ float scratch[kMergeThreads / 32];
    __shared__ float sums[kMergeThreads];
    const int h = blockIdx.x, tid = threadIdx.x;
    const int64_t row = blockIdx.y;
    const float* base = parts + lay.at(row, a.heads, h, 0);
    const int64_t step = lay.hd + 2;
    float M = -INFINITY;
    for (int p = tid; p < lay.parts; p += kMergeThreads) M = fmaxf(M, base[p * step]);
    M = block_reduce(M, true, scratch);
    float L = 0.f;
    for (int p = tid; p < lay.parts; p += kMergeThreads) {
        const float mp = base[p * step];
        const float w = mp != -INFINITY ? expf(mp - M) : 0.f;  // a part that saw no key weighs 0
        weight[p] = w;
        L += w * base[p * step + 1];
    }
    L = block_reduce(L, false, scratch);  // its barriers also publish `weight`
    const int groups = kMergeThreads / lay.hd;  // >= 1: head_dim <= 128
    const int c = tid % lay.hd, grp = tid / lay.hd;
    float s = 0.f;
    if (grp < groups) {
        int p = grp;
        for (; p + 3 * groups < lay.parts; p += 4 * groups) {  // four rows in flight
            const float x0 = base[p * step + 2 + c], x1 = base[(p + groups) * step + 2 + c];
            const float x2 = base[(p + 2 * groups) * step + 2 + c], x3 = base[(p + 3 * groups) * step + 2 + c];
            s += weight[p] * x0 + weight[p + groups] * x1 + weight[p + 2 * groups] * x2 + weight[p + 3 * groups] * x3;
        }
        for (; p < lay.parts; p += groups) s += weight[p] * base[p * step + 2 + c];
    }
    sums[tid] = s;
    __syncthreads();
    if (tid < lay.hd) {
        float total = 0.f;
        for (int g = 0; g < groups; ++g) total += sums[g * lay.hd + tid];
        T* out = static_cast<T*>(a.out) + row * a.out_stride + int64_t(h) * lay.hd;
        out[tid] = from_f<T>(L == 0.f ? 0.f : total / L);  // no key: 0; a NaN sum stays NaN
    }
}

template <class T, bool VecV>
void launch_partial(const MemoryAttentionArgs& a, dim3 grid, const PartLayout& lay, float* parts, bool vector_rows,
                    cudaStream_t stream) {
    if (a.group == 1)
        partial_kernel<T, 1, VecV><<<grid, kWarps * 32, 0, stream>>>(a, lay, parts, vector_rows);
    else if (a.group == 2)
        partial_kernel<T, 2, VecV><<<grid, kWarps * 32, 0, stream>>>(a, lay, parts, vector_rows);
    else if (a.group <= 4)
        partial_kernel<T, 4, VecV><<<grid, kWarps * 32, 0, stream>>>(a, lay, parts, vector_rows);
    else if (a.group == 5)  // five beams, the paper's setting
        partial_kernel<T, 5, VecV><<<grid, kWarps * 32, 0, stream>>>(a, lay, parts, vector_rows);
    else
        partial_kernel<T, kQueriesPerPass, VecV><<<grid, kWarps * 32, 0, stream>>>(a, lay, parts, vector_rows);
}

// Returns whether the value rows were read whole.
template <class T>
bool launch(const MemoryAttentionArgs& a, int chunks, int chunk, float* parts, bool vector_values,
            cudaStream_t stream) {
    const PartLayout lay{chunks, a.head_dim, chunk};
    // Key rows are read 8 values (16 bytes for fp16/bf16) at a time where every row allows it.
    const bool vector_rows = sizeof(T) == 2 && a.head_dim % 8 == 0 && a.kv_stride % 8 == 0 &&
                             reinterpret_cast<uintptr_t>(a.k) % 16 == 0;
    const dim3 grid(unsigned(chunks), unsigned(a.heads), unsigned(a.items));
    bool whole_value_rows = false;
    if constexpr (sizeof(T) == 2) {
        whole_value_rows = vector_values && vector_rows && a.head_dim == kVecHeadDim &&
                           reinterpret_cast<uintptr_t>(a.v) % 16 == 0;
        if (whole_value_rows) launch_partial<T, true>(a, grid, lay, parts, vector_rows, stream);
    }
    if (!whole_value_rows) launch_partial<T, false>(a, grid, lay, parts, vector_rows, stream);
    PRECIS_CUDA_LAUNCHED();
    merge_kernel<T><<<dim3(unsigned(a.heads), unsigned(a.items * a.group)), kMergeThreads,
                       size_t(lay.parts) * sizeof(float), stream>>>(a, lay, parts);
    PRECIS_CUDA_LAUNCHED();
    return whole_value_rows;
}

}  // namespace

bool MemoryAttention::vector_values_by_default() {
    const char* env = std::getenv("PRECIS_CUDA_VECTOR_VALUES");
    return env && std::string(env) == "1";
}

void MemoryAttention::run(const MemoryAttentionArgs& a, cudaStream_t stream) {
    check(a.p == Precision::F32 || a.p == Precision::F16 || a.p == Precision::BF16,
          "memory attention: unknown precision");
    check(a.items >= 0 && a.group >= 0 && a.max_keys >= 0, "memory attention: negative sizes");
    check(a.heads > 0 && a.head_dim > 0 && a.head_dim <= 32 * kMaxPerLane,
          "memory attention: heads must be positive and head_dim in [1, " + std::to_string(32 * kMaxPerLane) + "]");
    check(a.items <= 65535 && int64_t(a.items) * a.group <= 65535 && a.heads <= 65535,
          "memory attention: too many query rows or heads for one launch");
    read_whole_rows_ = false;
    if (a.items == 0 || a.group == 0) return;
    check(a.q && a.offsets && a.k && a.v && a.out, "memory attention: null device pointer");
    check(a.q_stride >= int64_t(a.heads) * a.head_dim && a.kv_stride >= int64_t(a.heads) * a.head_dim &&
              a.out_stride >= int64_t(a.heads) * a.head_dim,
          "memory attention: a row stride is shorter than heads * head_dim");
    // Split each memory into as many chunks as fill the GPU (a few CTAs per SM over all items
    // and heads), but no chunk shorter than kMinChunk keys: every chunk adds a part to merge.
    if (sm_count_ == 0) {
        int device = 0;
        PRECIS_CUDA_CHECK(cudaGetDevice(&device));
        PRECIS_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count_, cudaDevAttrMultiProcessorCount, device));
    }
    const int64_t wanted = std::max<int64_t>(1, int64_t(sm_count_) * kCtasPerSm / (int64_t(a.items) * a.heads));
    const int chunks = int(std::max<int64_t>(1, std::min<int64_t>(wanted, (a.max_keys + kMinChunk - 1) / kMinChunk)));
    const int chunk = std::max(1, (a.max_keys + chunks - 1) / chunks);
    const size_t bytes =
        size_t(a.items) * a.group * a.heads * size_t(chunks) * size_t(a.head_dim + 2) * sizeof(float);
    partials_.reserve(bytes);
    float* parts = partials_.as<float>();
    switch (a.p) {
        case Precision::F32: read_whole_rows_ = launch<float>(a, chunks, chunk, parts, vector_values_, stream); break;
        case Precision::F16: read_whole_rows_ = launch<__half>(a, chunks, chunk, parts, vector_values_, stream); break;
        case Precision::BF16:
            read_whole_rows_ = launch<__nv_bfloat16>(a, chunks, chunk, parts, vector_values_, stream);
            break;
    }
}

}  // namespace precis::cuda
