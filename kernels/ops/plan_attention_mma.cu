// Tensor-core path of plan_attention (plan_attention.h) for fp16 and bf16 at head_dim 64 and
// 128, the shapes of BART base and large. Each warp owns 16 query rows of the block; keys and
// values stream through shared memory in tiles of 64, scores and weights go through WMMA
// (16x16x16, float32 accumulation) with an online softmax in float32 between them.
//
// Rounding: the weights P and keys/values stored in float32 (the pooled sparse keys and
// Fovea nodes) are split into a 16-bit head and a 16-bit remainder, each multiplied on the
// tensor cores, so the products are as exact as float32 inputs would be; the op tests hold
// fp16 and bf16 to 1e-3 of the float32 CPU result, which bf16-rounded weights alone exceed.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#include <cmath>

#include "kernels/cuda_check.h"
#include "kernels/ops/element_convert.cuh"
#include "kernels/ops/plan_attention_mma.h"

namespace precis::cuda {

namespace {

using namespace nvcuda;

constexpr int kKeys = 64;  // keys per tile


// Shared memory of one CTA (dynamic; every array offset a multiple of 32 bytes, as WMMA needs).
template <class T, int HD, int W>
struct Smem {
    T k_hi[kKeys][HD], k_lo[kKeys][HD], v_hi[kKeys][HD], v_lo[kKeys][HD];
    float mask[kKeys];
    struct Warp {
        T q[16][HD];
        float s[16][kKeys];
        T p_hi[16][kKeys], p_lo[16][kKeys];
        float o[16][HD];
        float corr[16], l[16];
    } warp[W];
};

// Splits x into a 16-bit head and the 16-bit rounding of what the head missed.
template <class T>
__device__ __forceinline__ void split(float x, T& hi, T& lo) {
    hi = from_f<T>(x);
    lo = from_f<T>(x - to_f(hi));
}

template <class T, int HD, int W>
__global__ void __launch_bounds__(W * 32) mma_kernel(const T* __restrict__ q, int64_t q_stride, Sources src,
                                                      const PlanBlock* __restrict__ blocks,
                                                      const PlanSegment* __restrict__ segments, float scale,
                                                      T* __restrict__ out, int64_t out_stride) {
    extern __shared__ __align__(128) unsigned char raw[];
    Smem<T, HD, W>& sm = *reinterpret_cast<Smem<T, HD, W>*>(raw);
    const PlanBlock blk = blocks[blockIdx.x];
    const int h = blockIdx.y;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    auto& ws = sm.warp[warp];
    const int my_row = lane >> 1, half = lane & 1;  // softmax: a lane pair per row

    for (int r0 = blk.query_begin; r0 < blk.query_end; r0 += 16 * W) {
        const int w0 = r0 + 16 * warp;  // this warp's first row
        for (int e = lane; e < 16 * HD; e += 32) {
            const int r = e / HD, c = e % HD;
            ws.q[r][c] = w0 + r < blk.query_end ? q[int64_t(w0 + r) * q_stride + int64_t(h) * HD + c] : from_f<T>(0.f);
            ws.o[r][c] = 0.f;
        }
        float m = -INFINITY, l = 0.f;  // of row my_row, the same in both lanes of the pair
        __syncwarp();
        wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> qa[HD / 16];
#pragma unroll
        for (int kb = 0; kb < HD / 16; ++kb) wmma::load_matrix_sync(qa[kb], &ws.q[0][kb * 16], HD);

        for (int si = blk.segment_begin; si < blk.segment_end; ++si) {
            const PlanSegment seg = segments[si];
            const KeySource& ks = src.s[seg.source];
            const int j0 = max(seg.begin, 0), j1 = min(seg.begin + seg.count, ks.rows);  // out of range: weight 0
            const int64_t head_off = int64_t(h) * ks.head_stride;
            const float* mb = ks.mask ? ks.mask + int64_t(h) * ks.mask_head_stride : nullptr;
            for (int t0 = j0; t0 < j1; t0 += kKeys) {
                const int n = min(kKeys, j1 - t0);
                __syncthreads();  // every warp is done with the previous tile
                for (int e = threadIdx.x; e < kKeys * HD; e += W * 32) {
                    const int j = e / HD, c = e % HD;
                    float kx = 0.f, vx = 0.f;
                    if (j < n) {
                        const int64_t off = head_off + int64_t(t0 + j) * ks.row_stride + c;
                        kx = ks.f32 ? static_cast<const float*>(ks.k)[off] : to_f(static_cast<const T*>(ks.k)[off]);
                        vx = ks.f32 ? static_cast<const float*>(ks.v)[off] : to_f(static_cast<const T*>(ks.v)[off]);
                    }
                    split(kx, sm.k_hi[j][c], sm.k_lo[j][c]);
                    split(vx, sm.v_hi[j][c], sm.v_lo[j][c]);
                }
                for (int j = threadIdx.x; j < kKeys; j += W * 32) sm.mask[j] = (j < n && mb) ? mb[t0 + j] : 0.f;
                __syncthreads();

                // S = Q K^T (K as a column-major HD x keys matrix is K row-major).
                for (int nb = 0; nb < kKeys / 16; ++nb) {
                    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
                    wmma::fill_fragment(acc, 0.f);
#pragma unroll
                    for (int kb = 0; kb < HD / 16; ++kb) {
                        wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major> kf;
                        wmma::load_matrix_sync(kf, &sm.k_hi[nb * 16][kb * 16], HD);
                        wmma::mma_sync(acc, qa[kb], kf, acc);
                        if (ks.f32) {
                            wmma::load_matrix_sync(kf, &sm.k_lo[nb * 16][kb * 16], HD);
                            wmma::mma_sync(acc, qa[kb], kf, acc);
                        }
                    }
                    wmma::store_matrix_sync(&ws.s[0][nb * 16], acc, kKeys, wmma::mem_row_major);
                }
                __syncwarp();

                // Online softmax: lanes 2r and 2r+1 share row r, 32 keys each. Each lane starts
                // at its own column (skew), so the 32 lanes read 32 different banks.
                float tmax = -INFINITY;
                for (int jj = 0; jj < 32; ++jj) {
                    const int j = half * 32 + ((jj + lane) & 31);
                    if (j < n) tmax = fmaxf(tmax, ws.s[my_row][j] * scale + sm.mask[j]);
                }
                tmax = fmaxf(tmax, __shfl_xor_sync(0xffffffffu, tmax, 1));
                const float m_new = fmaxf(m, tmax);  // finite: n >= 1, masks are finite
                const float corr = m == -INFINITY ? 0.f : expf(m - m_new);
                float sum = 0.f;
                for (int jj = 0; jj < 32; ++jj) {
                    const int j = half * 32 + ((jj + lane) & 31);
                    const float pj = j < n ? expf(ws.s[my_row][j] * scale + sm.mask[j] - m_new) : 0.f;
                    split(pj, ws.p_hi[my_row][j], ws.p_lo[my_row][j]);
                    sum += pj;
                }
                sum += __shfl_xor_sync(0xffffffffu, sum, 1);
                l = l * corr + sum;
                m = m_new;
                if (half == 0) ws.corr[my_row] = corr;
                __syncwarp();
                for (int e = lane; e < 16 * HD; e += 32) ws.o[e / HD][e % HD] *= ws.corr[e / HD];
                __syncwarp();

                // O += P V, P and V each as head + remainder (the remainders' product is below
                // float32's own rounding and is left out).
                for (int nb = 0; nb < HD / 16; ++nb) {
                    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
                    wmma::load_matrix_sync(acc, &ws.o[0][nb * 16], HD, wmma::mem_row_major);
#pragma unroll
                    for (int kb = 0; kb < kKeys / 16; ++kb) {
                        wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> pa;
                        wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> vf;
                        wmma::load_matrix_sync(vf, &sm.v_hi[kb * 16][nb * 16], HD);
                        wmma::load_matrix_sync(pa, &ws.p_hi[0][kb * 16], kKeys);
                        wmma::mma_sync(acc, pa, vf, acc);
                        wmma::load_matrix_sync(pa, &ws.p_lo[0][kb * 16], kKeys);
                        wmma::mma_sync(acc, pa, vf, acc);
                        if (ks.f32) {
                            wmma::load_matrix_sync(vf, &sm.v_lo[kb * 16][nb * 16], HD);
                            wmma::load_matrix_sync(pa, &ws.p_hi[0][kb * 16], kKeys);
                            wmma::mma_sync(acc, pa, vf, acc);
                        }
                    }
                    wmma::store_matrix_sync(&ws.o[0][nb * 16], acc, HD, wmma::mem_row_major);
                }
                __syncwarp();
            }
        }
        if (half == 0) ws.l[my_row] = l;
        __syncwarp();
        for (int e = lane; e < 16 * HD; e += 32) {
            const int r = e / HD, c = e % HD;
            if (w0 + r >= blk.query_end) continue;
            const float lr = ws.l[r];
            out[int64_t(w0 + r) * out_stride + int64_t(h) * HD + c] = from_f<T>(lr > 0.f ? ws.o[r][c] / lr : 0.f);
        }
        __syncwarp();
    }
}

template <class T, int HD, int W>
void launch(const void* q, int64_t q_stride, const Sources& src, const DevicePlan& plan, int heads, float scale,
            void* out, int64_t out_stride, cudaStream_t stream) {
    const size_t smem = sizeof(Smem<T, HD, W>);
    PRECIS_CUDA_CHECK(
        cudaFuncSetAttribute(mma_kernel<T, HD, W>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    mma_kernel<T, HD, W><<<dim3(unsigned(plan.block_count()), unsigned(heads)), W * 32, smem, stream>>>(
        static_cast<const T*>(q), q_stride, src, plan.blocks(), plan.segments(), scale, static_cast<T*>(out),
        out_stride);
    PRECIS_CUDA_LAUNCHED();
}

template <class T>
bool dispatch(const void* q, int64_t q_stride, const Sources& src, const DevicePlan& plan, int heads, int head_dim,
              float scale, void* out, int64_t out_stride, cudaStream_t stream) {
    if (head_dim == 64) {
        launch<T, 64, 8>(q, q_stride, src, plan, heads, scale, out, out_stride, stream);
        return true;
    }
    if (head_dim == 128) {
        launch<T, 128, 4>(q, q_stride, src, plan, heads, scale, out, out_stride, stream);
        return true;
    }
    return false;
}

bool aligned32(const void* p) { return reinterpret_cast<uintptr_t>(p) % 32 == 0; }

}  // namespace

bool plan_attention_mma(Precision p, const void* q, int64_t q_stride, const Sources& src, const DevicePlan& plan,
                        int heads, int head_dim, float scale, void* out, int64_t out_stride, cudaStream_t stream) {
    if (p == Precision::F32 || (head_dim != 64 && head_dim != 128)) return false;
    // Rows are read 16 values at a time: strides and bases on 16-element boundaries.
    if (q_stride % 16 != 0 || out_stride % 16 != 0 || !aligned32(q) || !aligned32(out)) return false;
    if (p == Precision::F16)
        return dispatch<__half>(q, q_stride, src, plan, heads, head_dim, scale, out, out_stride, stream);
    return dispatch<__nv_bfloat16>(q, q_stride, src, plan, heads, head_dim, scale, out, out_stride, stream);
}

}  // namespace precis::cuda
