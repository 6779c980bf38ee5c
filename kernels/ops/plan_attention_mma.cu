// Tensor-core path of plan_attention (plan_attention.h) for fp16 and bf16 at head_dim 64 and
// 128, the shapes of BART base and large, written in the manner of FlashAttention-2: each warp
// owns 16 query rows; its queries, scores, weights and output accumulator live in registers
// (mma.sync m16n8k16 fragments, float32 accumulation), and only the key/value tile of 64 keys
// goes through shared memory, shared by the CTA's eight warps. The scores' accumulator
// fragment is laid out as the weights' operand fragment, so the online softmax happens in
// registers between the two products, with a row's statistics reduced over its quad of lanes.
//
// Rounding, held to the op tests' 1e-3 of the float32 CPU result:
//  - keys and values stored in float32 (the pooled sparse keys, the Fovea nodes) are split
//    into a 16-bit head and the 16-bit rounding of what the head missed, each multiplied on
//    the tensor cores, so those products are as exact as float32 inputs would be;
//  - the weights P are split the same way in bf16, whose 8-bit mantissa alone would exceed
//    the bound; fp16's 11 bits stay within it, so fp16 multiplies P once.
//
// When every source is 16-bit (the token keys, and sparse keys that copy tokens), a second
// kernel runs the walk over a block's key tiles as a two-stage cp.async pipeline: the next
// tile is copied while the warps multiply the current one, in the same shared memory.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "kernels/cuda_check.h"
#include "kernels/device_query.h"
#include "kernels/ops/element_convert.cuh"
#include "kernels/ops/plan_attention_mma.h"

// mma.sync m16n8k16 and cp.async came with Ampere (8.0). Code built for Turing (7.5) keeps
// the kernels' shapes but traps in their place; the host never launches them there.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
#define PRECIS_MMA_ARCH 1
#else
#define PRECIS_MMA_ARCH 0
#endif

namespace precis::cuda {

namespace {

constexpr int kKeys = 64;    // keys per tile
constexpr int kWarps = 8;    // 16 query rows each: 128 rows, one LSG block, per pass
constexpr int kPad = 8;      // elements added to each shared row: conflict-free fragment reads
constexpr float kLog2e = 1.4426950408889634f;

// Two floats as one register of two 16-bit values (first in the low half, as mma expects).
template <class T>
__device__ __forceinline__ uint32_t pack2(float a, float b);
template <>
__device__ __forceinline__ uint32_t pack2<__half>(float a, float b) {
    __half2 h = __floats2half2_rn(a, b);
    return *reinterpret_cast<uint32_t*>(&h);
}
template <>
__device__ __forceinline__ uint32_t pack2<__nv_bfloat16>(float a, float b) {
    __nv_bfloat162 h = __floats2bfloat162_rn(a, b);
    return *reinterpret_cast<uint32_t*>(&h);
}

// The head of (a, b) in `hi` and the rounding of what it missed in `lo`.
template <class T>
__device__ __forceinline__ void split2(float a, float b, uint32_t& hi, uint32_t& lo) {
    hi = pack2<T>(a, b);
    const T* h = reinterpret_cast<const T*>(&hi);
    lo = pack2<T>(a - to_f(h[0]), b - to_f(h[1]));
}

template <class T>
__device__ __forceinline__ void mma16816(float c[4], const uint32_t a[4], uint32_t b0, uint32_t b1);
template <>
__device__ __forceinline__ void mma16816<__half>(float c[4], const uint32_t a[4], uint32_t b0, uint32_t b1) {
#if PRECIS_MMA_ARCH
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#else
    __trap();  // never launched there: plan_attention_mma() declines cards older than 8.0
#endif
}
template <>
__device__ __forceinline__ void mma16816<__nv_bfloat16>(float c[4], const uint32_t a[4], uint32_t b0, uint32_t b1) {
#if PRECIS_MMA_ARCH
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#else
    __trap();  // never launched there: plan_attention_mma() declines cards older than 8.0
#endif
}

// Four 8x8 blocks of 16-bit values, transposed, from rows whose addresses the lanes give.
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t r[4], const void* row) {
    const unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(row));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

// The tile of the plain kernel: one stage, with the remainder planes float32 sources need.
template <class T, int HD>
struct Tile {
    static constexpr int kRow = HD + kPad;
    T k_hi[kKeys * kRow], k_lo[kKeys * kRow], v_hi[kKeys * kRow], v_lo[kKeys * kRow];
    float mask[kKeys];
};

// The tile of the pipelined kernel (every source 16-bit): two stages, so that the next tile's
// copy (cp.async) runs while the warps multiply the current one. Same bytes as Tile.
template <class T, int HD>
struct PipeTile {
    static constexpr int kRow = HD + kPad;
    T k[2][kKeys * kRow], v[2][kKeys * kRow];
    float mask[2][kKeys];
};

// Keys [t0, t0 + n) of one head into the tile; the rest of the tile is zeroed, so that
// weight-0 keys never multiply garbage (0 * NaN). Float32 sources fill the remainder planes.
template <class T, int HD>
__device__ __forceinline__ void load_tile(Tile<T, HD>& tile, const KeySource& ks, int64_t head_off, const float* mb,
                                          int t0, int n) {
    constexpr int kRow = Tile<T, HD>::kRow;
    if (!ks.f32) {
        constexpr int kChunks = HD / 8;  // 16-byte chunks per row
        for (int e = threadIdx.x; e < kKeys * kChunks; e += kWarps * 32) {
            const int j = e / kChunks, c = (e % kChunks) * 8;
            uint4 kx = make_uint4(0, 0, 0, 0), vx = kx;
            if (j < n) {
                const int64_t off = head_off + int64_t(t0 + j) * ks.row_stride + c;
                kx = *reinterpret_cast<const uint4*>(static_cast<const T*>(ks.k) + off);
                vx = *reinterpret_cast<const uint4*>(static_cast<const T*>(ks.v) + off);
            }
            *reinterpret_cast<uint4*>(&tile.k_hi[j * kRow + c]) = kx;
            *reinterpret_cast<uint4*>(&tile.v_hi[j * kRow + c]) = vx;
        }
    } else {
        constexpr int kChunks = HD / 4;  // float4 per row
        for (int e = threadIdx.x; e < kKeys * kChunks; e += kWarps * 32) {
            const int j = e / kChunks, c = (e % kChunks) * 4;
            float4 kx = make_float4(0.f, 0.f, 0.f, 0.f), vx = kx;
            if (j < n) {
                const int64_t off = head_off + int64_t(t0 + j) * ks.row_stride + c;
                kx = *reinterpret_cast<const float4*>(static_cast<const float*>(ks.k) + off);
                vx = *reinterpret_cast<const float4*>(static_cast<const float*>(ks.v) + off);
            }
            uint2 kh, kl, vh, vl;
            split2<T>(kx.x, kx.y, kh.x, kl.x);
            split2<T>(kx.z, kx.w, kh.y, kl.y);
            split2<T>(vx.x, vx.y, vh.x, vl.x);
            split2<T>(vx.z, vx.w, vh.y, vl.y);
            *reinterpret_cast<uint2*>(&tile.k_hi[j * kRow + c]) = kh;
            *reinterpret_cast<uint2*>(&tile.k_lo[j * kRow + c]) = kl;
            *reinterpret_cast<uint2*>(&tile.v_hi[j * kRow + c]) = vh;
            *reinterpret_cast<uint2*>(&tile.v_lo[j * kRow + c]) = vl;
        }
    }
    for (int j = threadIdx.x; j < kKeys; j += kWarps * 32) tile.mask[j] = (j < n && mb) ? mb[t0 + j] : 0.f;
}

// 16 bytes from global to shared memory without passing through registers; with `valid`
// false the destination is zero-filled (no bytes read).
__device__ __forceinline__ void cp_async16(void* smem, const void* gmem, bool valid) {
#if PRECIS_MMA_ARCH
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem), "r"(valid ? 16 : 0));
#else
    __trap();
#endif
}
__device__ __forceinline__ void cp_async_commit() {
#if PRECIS_MMA_ARCH
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}
template <int N>
__device__ __forceinline__ void cp_async_wait() {
#if PRECIS_MMA_ARCH
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
#endif
}

// Issues the copy of keys [t0, t0 + n) of one 16-bit source into one stage (zeros past n).
template <class T, int HD>
__device__ __forceinline__ void issue_tile(PipeTile<T, HD>& tile, int stage, const KeySource& ks, int64_t head_off,
                                           const float* mb, int t0, int n) {
    constexpr int kRow = PipeTile<T, HD>::kRow;
    constexpr int kChunks = HD / 8;
    const T* kb = static_cast<const T*>(ks.k) + head_off;
    const T* vb = static_cast<const T*>(ks.v) + head_off;
    for (int e = threadIdx.x; e < kKeys * kChunks; e += kWarps * 32) {
        const int j = e / kChunks, c = (e % kChunks) * 8;
        const bool valid = j < n;
        const int64_t off = int64_t(t0 + (valid ? j : 0)) * ks.row_stride + c;  // in range even when unused
        cp_async16(&tile.k[stage][j * kRow + c], kb + off, valid);
        cp_async16(&tile.v[stage][j * kRow + c], vb + off, valid);
    }
    for (int j = threadIdx.x; j < kKeys; j += kWarps * 32) tile.mask[stage][j] = (j < n && mb) ? mb[t0 + j] : 0.f;
}

// Four 8x8 blocks of 16-bit values, as stored, from rows whose addresses the lanes give.
__device__ __forceinline__ void ldmatrix_x4(uint32_t r[4], const void* row) {
    const unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(row));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

// One warp's running state over the keys: its 16 query rows (a = rows g, b = rows g + 8 of
// the fragment), the output accumulator, and the online softmax statistics.
template <int HD>
struct WarpState {
    uint32_t qa[HD / 16][4];
    float o[HD / 8][4];
    float m_a, m_b;  // running maxima (natural log domain)
    float l_a, l_b;  // this lane's part of the running sums
};

// One tile of n keys (n >= 1) through the warp's state: S = Q K^T, online softmax, O += P V.
// k_lo/v_lo are read only when f32 (the sources' remainder planes).
template <class T, int HD>
__device__ __forceinline__ void attend_tile(WarpState<HD>& st, const T* k_hi, const T* k_lo, const T* v_hi,
                                            const T* v_lo, const float* mask, int n, bool f32, float scale) {
    constexpr int kRow = HD + kPad;
    constexpr int kChunks = HD / 16;
    constexpr int kDimTiles = HD / 8;
    constexpr bool kSplitP = !std::is_same<T, __half>::value;  // see the header comment
    const int lane = threadIdx.x % 32;
    const int tig = lane & 3;

    // S = Q K^T over the tile's n-tiles of 8 keys that hold any key. One ldmatrix gives the
    // key fragments of two k-steps: lanes 0-7 address the 8 keys' dims [0, 8) of the pair,
    // lanes 8-15 dims [8, 16), 16-23 [16, 24), 24-31 [24, 32).
    float s[kKeys / 8][4];
#pragma unroll
    for (int nt = 0; nt < kKeys / 8; ++nt) {
        s[nt][0] = s[nt][1] = s[nt][2] = s[nt][3] = 0.f;
        if (nt * 8 >= n) continue;
        const int at = (nt * 8 + (lane & 7)) * kRow + (lane >> 3) * 8;
#pragma unroll
        for (int kp = 0; kp < kChunks / 2; ++kp) {
            uint32_t b[4];
            ldmatrix_x4(b, k_hi + at + kp * 32);
            mma16816<T>(s[nt], st.qa[2 * kp], b[0], b[1]);
            mma16816<T>(s[nt], st.qa[2 * kp + 1], b[2], b[3]);
            if (f32) {
                ldmatrix_x4(b, k_lo + at + kp * 32);
                mma16816<T>(s[nt], st.qa[2 * kp], b[0], b[1]);
                mma16816<T>(s[nt], st.qa[2 * kp + 1], b[2], b[3]);
            }
        }
    }

    // Online softmax in registers. x = s * scale + mask; keys past n weigh 0. The
    // lowest-float masks stay finite (s * scale + lowest == lowest), and n >= 1, so
    // the new maxima are finite and no exp sees inf - inf.
    float mx_a = -INFINITY, mx_b = -INFINITY;
#pragma unroll
    for (int nt = 0; nt < kKeys / 8; ++nt) {
#pragma unroll
        for (int e = 0; e < 2; ++e) {
            const int j = nt * 8 + tig * 2 + e;
            const float mj = mask[j];
            s[nt][e] = j < n ? s[nt][e] * scale + mj : -INFINITY;
            s[nt][2 + e] = j < n ? s[nt][2 + e] * scale + mj : -INFINITY;
            mx_a = fmaxf(mx_a, s[nt][e]);
            mx_b = fmaxf(mx_b, s[nt][2 + e]);
        }
    }
#pragma unroll
    for (int o2 = 1; o2 < 4; o2 <<= 1) {
        mx_a = fmaxf(mx_a, __shfl_xor_sync(0xffffffffu, mx_a, o2));
        mx_b = fmaxf(mx_b, __shfl_xor_sync(0xffffffffu, mx_b, o2));
    }
    const float mn_a = fmaxf(st.m_a, mx_a), mn_b = fmaxf(st.m_b, mx_b);
    const float corr_a = exp2f((st.m_a - mn_a) * kLog2e), corr_b = exp2f((st.m_b - mn_b) * kLog2e);
    st.m_a = mn_a, st.m_b = mn_b;
    st.l_a *= corr_a, st.l_b *= corr_b;
#pragma unroll
    for (int d = 0; d < kDimTiles; ++d) {
        st.o[d][0] *= corr_a, st.o[d][1] *= corr_a;
        st.o[d][2] *= corr_b, st.o[d][3] *= corr_b;
    }
#pragma unroll
    for (int nt = 0; nt < kKeys / 8; ++nt) {
        s[nt][0] = exp2f((s[nt][0] - st.m_a) * kLog2e);
        s[nt][1] = exp2f((s[nt][1] - st.m_a) * kLog2e);
        s[nt][2] = exp2f((s[nt][2] - st.m_b) * kLog2e);
        s[nt][3] = exp2f((s[nt][3] - st.m_b) * kLog2e);
        st.l_a += s[nt][0] + s[nt][1];
        st.l_b += s[nt][2] + s[nt][3];
    }

    // O += P V, 16 keys per step: the weights' fragment is two score fragments.
#pragma unroll
    for (int kc = 0; kc < kKeys / 16; ++kc) {
        if (kc * 16 >= n) continue;
        uint32_t pa[4], pl[4];
        split2<T>(s[2 * kc][0], s[2 * kc][1], pa[0], pl[0]);
        split2<T>(s[2 * kc][2], s[2 * kc][3], pa[1], pl[1]);
        split2<T>(s[2 * kc + 1][0], s[2 * kc + 1][1], pa[2], pl[2]);
        split2<T>(s[2 * kc + 1][2], s[2 * kc + 1][3], pa[3], pl[3]);
        const int key = kc * 16 + (lane & 7) + ((lane >> 3) & 1) * 8;
        const int col = (lane >> 4) * 8;
#pragma unroll
        for (int dt = 0; dt < HD / 16; ++dt) {
            uint32_t b[4];
            ldmatrix_x4_trans(b, v_hi + key * kRow + dt * 16 + col);
            mma16816<T>(st.o[2 * dt], pa, b[0], b[1]);
            mma16816<T>(st.o[2 * dt + 1], pa, b[2], b[3]);
            if (kSplitP) {
                mma16816<T>(st.o[2 * dt], pl, b[0], b[1]);
                mma16816<T>(st.o[2 * dt + 1], pl, b[2], b[3]);
            }
            if (f32) {
                ldmatrix_x4_trans(b, v_lo + key * kRow + dt * 16 + col);
                mma16816<T>(st.o[2 * dt], pa, b[0], b[1]);
                mma16816<T>(st.o[2 * dt + 1], pa, b[2], b[3]);
            }
        }
    }
}

// The warp's queries into registers (rows past the block read as zeros) and a fresh state.
template <class T, int HD>
__device__ __forceinline__ void start_rows(WarpState<HD>& st, const T* q, int64_t q_stride, int h, int row_a,
                                           bool ok_a, int row_b, bool ok_b, int fallback_row) {
    const int tig = (threadIdx.x % 32) & 3;
    const T* qrow_a = q + int64_t(ok_a ? row_a : fallback_row) * q_stride + int64_t(h) * HD;
    const T* qrow_b = q + int64_t(ok_b ? row_b : fallback_row) * q_stride + int64_t(h) * HD;
#pragma unroll
    for (int kc = 0; kc < HD / 16; ++kc) {
        const int c = kc * 16 + tig * 2;
        st.qa[kc][0] = ok_a ? *reinterpret_cast<const uint32_t*>(qrow_a + c) : 0u;
        st.qa[kc][1] = ok_b ? *reinterpret_cast<const uint32_t*>(qrow_b + c) : 0u;
        st.qa[kc][2] = ok_a ? *reinterpret_cast<const uint32_t*>(qrow_a + c + 8) : 0u;
        st.qa[kc][3] = ok_b ? *reinterpret_cast<const uint32_t*>(qrow_b + c + 8) : 0u;
    }
#pragma unroll
    for (int d = 0; d < HD / 8; ++d) st.o[d][0] = st.o[d][1] = st.o[d][2] = st.o[d][3] = 0.f;
    st.m_a = st.m_b = -INFINITY;
    st.l_a = st.l_b = 0.f;
}

// The warp's rows of the output: O / l (0 for a row that saw no key).
template <class T, int HD>
__device__ __forceinline__ void finish_rows(WarpState<HD>& st, T* out, int64_t out_stride, int h, int row_a,
                                            bool ok_a, int row_b, bool ok_b) {
    const int tig = (threadIdx.x % 32) & 3;
#pragma unroll
    for (int o2 = 1; o2 < 4; o2 <<= 1) {
        st.l_a += __shfl_xor_sync(0xffffffffu, st.l_a, o2);
        st.l_b += __shfl_xor_sync(0xffffffffu, st.l_b, o2);
    }
    const float inv_a = st.l_a > 0.f ? 1.f / st.l_a : 0.f, inv_b = st.l_b > 0.f ? 1.f / st.l_b : 0.f;
    T* out_a = out + int64_t(row_a) * out_stride + int64_t(h) * HD + tig * 2;
    T* out_b = out + int64_t(row_b) * out_stride + int64_t(h) * HD + tig * 2;
#pragma unroll
    for (int d = 0; d < HD / 8; ++d) {
        if (ok_a) *reinterpret_cast<uint32_t*>(out_a + d * 8) = pack2<T>(st.o[d][0] * inv_a, st.o[d][1] * inv_a);
        if (ok_b) *reinterpret_cast<uint32_t*>(out_b + d * 8) = pack2<T>(st.o[d][2] * inv_b, st.o[d][3] * inv_b);
    }
}

// Any sources: one tile at a time, loaded through registers (float32 sources are split).
template <class T, int HD>
__global__ void __launch_bounds__(kWarps * 32) flash_kernel(const T* __restrict__ q, int64_t q_stride, Sources src,
                                                          const PlanBlock* __restrict__ blocks,
                                                          const PlanSegment* __restrict__ segments, float scale,
                                                          T* __restrict__ out, int64_t out_stride) {
    extern __shared__ __align__(16) unsigned char raw[];
    Tile<T, HD>& tile = *reinterpret_cast<Tile<T, HD>*>(raw);
    const PlanBlock blk = blocks[blockIdx.x];
    const int h = blockIdx.y;
    const int warp = threadIdx.x / 32, g = (threadIdx.x % 32) >> 2;

    for (int r0 = blk.query_begin; r0 < blk.query_end; r0 += 16 * kWarps) {
        const int w0 = r0 + 16 * warp;            // this warp's first row
        const bool busy = w0 < blk.query_end;     // idle warps still load tiles and meet the barriers
        const int row_a = w0 + g, row_b = w0 + g + 8;
        const bool ok_a = row_a < blk.query_end, ok_b = row_b < blk.query_end;
        WarpState<HD> st;
        start_rows<T, HD>(st, q, q_stride, h, row_a, ok_a, row_b, ok_b, blk.query_begin);
        for (int si = blk.segment_begin; si < blk.segment_end; ++si) {
            const PlanSegment seg = segments[si];
            const KeySource& ks = src.s[seg.source];
            const int j0 = max(seg.begin, 0), j1 = min(seg.begin + seg.count, ks.rows);  // out of range: weight 0
            const int64_t head_off = int64_t(h) * ks.head_stride;
            const float* mb = ks.mask ? ks.mask + int64_t(h) * ks.mask_head_stride : nullptr;
            for (int t0 = j0; t0 < j1; t0 += kKeys) {
                const int n = min(kKeys, j1 - t0);
                __syncthreads();  // every warp is done with the previous tile
                load_tile<T, HD>(tile, ks, head_off, mb, t0, n);
                __syncthreads();
                if (busy) attend_tile<T, HD>(st, tile.k_hi, tile.k_lo, tile.v_hi, tile.v_lo, tile.mask, n, ks.f32, scale);
            }
        }
        if (busy) finish_rows<T, HD>(st, out, out_stride, h, row_a, ok_a, row_b, ok_b);
    }
}

// Where the next tile of a block's key walk starts: segment si, key t0 (si == end: none left).
struct TileCursor {
    int si, t0, j1;
};

__device__ __forceinline__ void seek(TileCursor& c, const Sources& src, const PlanSegment* segments, int end) {
    while (c.si < end) {
        const PlanSegment seg = segments[c.si];
        const int rows = src.s[seg.source].rows;
        c.j1 = min(seg.begin + seg.count, rows);
        if (c.t0 < c.j1) return;
        if (++c.si < end) c.t0 = max(segments[c.si].begin, 0);
    }
}

// Every source 16-bit: the walk over the block's tiles is a two-stage pipeline; tile i + 1 is
// copied by cp.async while the warps multiply tile i.
template <class T, int HD>
__global__ void __launch_bounds__(kWarps * 32) flash_pipe_kernel(const T* __restrict__ q, int64_t q_stride,
                                                               Sources src, const PlanBlock* __restrict__ blocks,
                                                               const PlanSegment* __restrict__ segments, float scale,
                                                               T* __restrict__ out, int64_t out_stride) {
    extern __shared__ __align__(16) unsigned char raw[];
    PipeTile<T, HD>& tile = *reinterpret_cast<PipeTile<T, HD>*>(raw);
    const PlanBlock blk = blocks[blockIdx.x];
    const int h = blockIdx.y;
    const int warp = threadIdx.x / 32, g = (threadIdx.x % 32) >> 2;

    auto issue = [&](const TileCursor& c, int stage) {
        const KeySource& ks = src.s[segments[c.si].source];
        const float* mb = ks.mask ? ks.mask + int64_t(h) * ks.mask_head_stride : nullptr;
        issue_tile<T, HD>(tile, stage, ks, int64_t(h) * ks.head_stride, mb, c.t0, min(kKeys, c.j1 - c.t0));
    };
    for (int r0 = blk.query_begin; r0 < blk.query_end; r0 += 16 * kWarps) {
        const int w0 = r0 + 16 * warp;
        const bool busy = w0 < blk.query_end;
        const int row_a = w0 + g, row_b = w0 + g + 8;
        const bool ok_a = row_a < blk.query_end, ok_b = row_b < blk.query_end;
        WarpState<HD> st;
        start_rows<T, HD>(st, q, q_stride, h, row_a, ok_a, row_b, ok_b, blk.query_begin);

        TileCursor cur{blk.segment_begin, 0, 0};
        if (cur.si < blk.segment_end) cur.t0 = max(segments[cur.si].begin, 0);
        seek(cur, src, segments, blk.segment_end);
        __syncthreads();  // the previous pass's warps are done with both stages
        if (cur.si < blk.segment_end) issue(cur, 0);
        cp_async_commit();
        for (int stage = 0; cur.si < blk.segment_end; stage ^= 1) {
            const int n = min(kKeys, cur.j1 - cur.t0);
            const bool f32 = false;
            TileCursor next = cur;
            next.t0 += kKeys;
            seek(next, src, segments, blk.segment_end);
            if (next.si < blk.segment_end) issue(next, stage ^ 1);
            cp_async_commit();
            cp_async_wait<1>();  // this thread's copies of the current tile have landed
            __syncthreads();     // and everyone's
            if (busy)
                attend_tile<T, HD>(st, tile.k[stage], tile.k[stage], tile.v[stage], tile.v[stage], tile.mask[stage], n,
                                   f32, scale);
            __syncthreads();  // the stage is free for the tile after next
            cur = next;
        }
        cp_async_wait<0>();
        if (busy) finish_rows<T, HD>(st, out, out_stride, h, row_a, ok_a, row_b, ok_b);
    }
}

// PRECIS_ATTENTION_PIPELINE=0 keeps the one-stage kernel for every input (A/B measurements).
bool pipeline_enabled() {
    static const bool on = [] {
        const char* e = std::getenv("PRECIS_ATTENTION_PIPELINE");
        return !(e && std::string(e) == "0");
    }();
    return on;
}

template <class T, int HD>
void launch(const void* q, int64_t q_stride, const Sources& src, const DevicePlan& plan, int heads, float scale,
            void* out, int64_t out_stride, cudaStream_t stream) {
    bool all16 = true;
    for (const KeySource& s : src.s) all16 = all16 && (s.rows == 0 || !s.f32);
    const dim3 grid(unsigned(plan.block_count()), unsigned(heads));
    if (all16 && pipeline_enabled()) {
        const size_t smem = sizeof(PipeTile<T, HD>);
        PRECIS_CUDA_CHECK(
            cudaFuncSetAttribute(flash_pipe_kernel<T, HD>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
        flash_pipe_kernel<T, HD><<<grid, kWarps * 32, smem, stream>>>(static_cast<const T*>(q), q_stride, src,
                                                                       plan.blocks(), plan.segments(), scale,
                                                                       static_cast<T*>(out), out_stride);
    } else {
        const size_t smem = sizeof(Tile<T, HD>);
        PRECIS_CUDA_CHECK(
            cudaFuncSetAttribute(flash_kernel<T, HD>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
        flash_kernel<T, HD><<<grid, kWarps * 32, smem, stream>>>(static_cast<const T*>(q), q_stride, src,
                                                                  plan.blocks(), plan.segments(), scale,
                                                                  static_cast<T*>(out), out_stride);
    }
    PRECIS_CUDA_LAUNCHED();
}

template <class T>
bool dispatch(const void* q, int64_t q_stride, const Sources& src, const DevicePlan& plan, int heads, int head_dim,
              float scale, void* out, int64_t out_stride, cudaStream_t stream) {
    if (head_dim == 64)
        launch<T, 64>(q, q_stride, src, plan, heads, scale, out, out_stride, stream);
    else
        launch<T, 128>(q, q_stride, src, plan, heads, scale, out, out_stride, stream);
    return true;
}

bool aligned(const void* p, size_t bytes) { return reinterpret_cast<uintptr_t>(p) % bytes == 0; }

// Tiles are read 16 bytes at a time: every source's base, row and head strides must keep that.
bool vector_readable(const KeySource& s, size_t element_bytes) {
    if (s.rows == 0) return true;
    const size_t e = s.f32 ? 4 : element_bytes;
    const int64_t per = int64_t(16 / e);
    return aligned(s.k, 16) && aligned(s.v, 16) && s.row_stride % per == 0 && s.head_stride % per == 0;
}

}  // namespace

bool plan_attention_mma(Precision p, const void* q, int64_t q_stride, const Sources& src, const DevicePlan& plan,
                        int heads, int head_dim, float scale, void* out, int64_t out_stride, cudaStream_t stream) {
    if (p == Precision::F32 || (head_dim != 64 && head_dim != 128)) return false;
    // Turing (7.5) lacks the m16n8k16 products and cp.async: its float32 kernel serves.
    if (current_device_capability() < 80) return false;
    // Queries and outputs move two values per register: even strides, 4-byte aligned bases.
    if (q_stride % 2 != 0 || out_stride % 2 != 0 || !aligned(q, 4) || !aligned(out, 4)) return false;
    for (const KeySource& s : src.s)
        if (!vector_readable(s, 2)) return false;
    if (p == Precision::F16)
        return dispatch<__half>(q, q_stride, src, plan, heads, head_dim, scale, out, out_stride, stream);
    return dispatch<__nv_bfloat16>(q, q_stride, src, plan, heads, head_dim, scale, out, out_stride, stream);
}

}  // namespace precis::cuda
