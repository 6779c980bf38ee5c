#include "kernels/ops/decoder_attention.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>

#include "engine/core/error.h"
#include "kernels/cuda_check.h"
#include "engine/model/reorder_plan.h"
#include "kernels/ops/element_convert.cuh"

namespace precis::cuda {

namespace {


constexpr int kThreads = 128;
constexpr int kWarps = kThreads / 32;
constexpr int kTile = 64;  // keys scored per step; kTile <= kThreads (one thread exponentiates each)
constexpr int kMaxHeadDim = 1024;

size_t attend_smem_bytes(int head_dim) { return (3 * size_t(head_dim) + kTile) * sizeof(float); }

// sum = sum * alpha + x with Kahan compensation c (rescaled along with the sum).
__device__ __forceinline__ void kahan_add(float& sum, float& c, float alpha, float x) {
    sum *= alpha;
    c *= alpha;
    const float y = x - c;
    const float t = sum + y;
    c = (t - sum) - y;
    sum = t;
}

// One query (hd values at q) over nk keys/values (rows ld elements apart), by the whole CTA.
// Keys are taken kTile at a time with an online softmax, so any nk works in fixed shared
// memory. A key whose score is the lowest float (a masked key) gets exp(lowest - max) == 0
// exactly as soon as one real key is seen, also when the masked keys come first: the
// running sum and output are then rescaled by exp(lowest - real) == 0.
template <class T>
__device__ void attend_one(const T* q, const T* k, const T* v, int64_t ld, int nk, const float* mask, float scale,
                           int hd, T* out, float* smem) {
    float* qs = smem;       // [hd] the query in float32
    float* acc = qs + hd;   // [hd] unnormalized output (each thread owns c = tid + n*kThreads)
    float* comp = acc + hd; // [hd] its Kahan compensation
    float* ps = comp + hd;  // [kTile] scores, then weights, of the current tile
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    __syncthreads();  // a previous query's readers of qs/ps are done
    for (int c = tid; c < hd; c += kThreads) {
        qs[c] = to_f(q[c]);
        acc[c] = 0.f;
        comp[c] = 0.f;
    }
    __syncthreads();
    // Running max and sum (with its Kahan compensation), identical in every thread. The
    // sums over tiles are compensated so that 16k keys stay within the fp32 op bound.
    float m = -INFINITY, l = 0.f, lc = 0.f;
    for (int base = 0; base < nk; base += kTile) {
        const int n = min(kTile, nk - base);
        for (int j = warp; j < n; j += kWarps) {  // a warp per key: coalesced key reads
            const T* kj = k + int64_t(base + j) * ld;
            float dot = 0.f;
            for (int c = lane; c < hd; c += 32) dot += qs[c] * to_f(kj[c]);
            for (int o = 16; o > 0; o >>= 1) dot += __shfl_xor_sync(0xffffffffu, dot, o);
            if (lane == 0) ps[j] = dot * scale + (mask ? mask[base + j] : 0.f);
        }
        __syncthreads();
        float tmax = -INFINITY;
        for (int j = 0; j < n; ++j) tmax = fmaxf(tmax, ps[j]);
        const float m_new = fmaxf(m, tmax);
        // -inf guards: exp(-inf - -inf) would be NaN.
        const float alpha = m == -INFINITY ? 0.f : expf(m - m_new);
        __syncthreads();  // everyone has read the raw scores
        if (tid < n) {
            const float s = ps[tid];
            ps[tid] = s == -INFINITY ? 0.f : expf(s - m_new);
        }
        __syncthreads();
        // Four partial sums per tile: shorter rounding chains (and independent adds).
        float w0 = 0.f, w1 = 0.f, w2 = 0.f, w3 = 0.f;
        int j4 = 0;
        for (; j4 + 4 <= n; j4 += 4) {
            w0 += ps[j4];
            w1 += ps[j4 + 1];
            w2 += ps[j4 + 2];
            w3 += ps[j4 + 3];
        }
        for (; j4 < n; ++j4) w0 += ps[j4];
        kahan_add(l, lc, alpha, (w0 + w1) + (w2 + w3));
        m = m_new;
        for (int c = tid; c < hd; c += kThreads) {  // thread per channel: coalesced value reads
            const T* vc = v + int64_t(base) * ld + c;
            float t0 = 0.f, t1 = 0.f, t2 = 0.f, t3 = 0.f;
            int j = 0;
            for (; j + 4 <= n; j += 4) {
                t0 += ps[j] * to_f(vc[int64_t(j) * ld]);
                t1 += ps[j + 1] * to_f(vc[int64_t(j + 1) * ld]);
                t2 += ps[j + 2] * to_f(vc[int64_t(j + 2) * ld]);
                t3 += ps[j + 3] * to_f(vc[int64_t(j + 3) * ld]);
            }
            for (; j < n; ++j) t0 += ps[j] * to_f(vc[int64_t(j) * ld]);
            float a = acc[c], ac = comp[c];
            kahan_add(a, ac, alpha, (t0 + t1) + (t2 + t3));
            acc[c] = a;
            comp[c] = ac;
        }
        __syncthreads();  // ps is rewritten by the next tile
    }
    const float inv = l > 0.f ? 1.f / l : 0.f;  // no key at all: zeros rather than NaN
    for (int c = tid; c < hd; c += kThreads) out[c] = from_f<T>(acc[c] * inv);
}

template <class T>
__global__ void append_kernel(const T* fresh, T* cache, int new_len, int length, const int32_t* row_lengths,
                              int max_len, int64_t D, int64_t total) {
    for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
        const int64_t d = e % D, ri = e / D;  // ri = r * new_len + i
        const int64_t r = ri / new_len, i = ri % new_len;
        const int64_t at = row_lengths ? row_lengths[r] : length;
        cache[(r * max_len + at + i) * D + d] = fresh[e];
    }
}

template <class T>
__global__ void self_attention_kernel(const T* q, const T* kc, const T* vc, int new_len, int length,
                                      const int32_t* row_lengths, int max_len, int64_t D, int hd, float scale,
                                      T* out) {
    extern __shared__ float smem[];
    const int h = blockIdx.x, r = blockIdx.y;
    if (row_lengths) length = row_lengths[r];
    const int64_t cache_at = int64_t(r) * max_len * D + int64_t(h) * hd;
    for (int i = 0; i < new_len; ++i) {
        const int64_t q_at = (int64_t(r) * new_len + i) * D + int64_t(h) * hd;
        attend_one(q + q_at, kc + cache_at, vc + cache_at, D, length + i + 1, nullptr, scale, hd, out + q_at, smem);
    }
}

void check_precision(Precision p, const char* who) {
    check(p == Precision::F32 || p == Precision::F16 || p == Precision::BF16,
          std::string(who) + ": unknown precision");
}

void check_heads(int heads, int head_dim, const char* who) {
    check(heads > 0 && head_dim > 0, std::string(who) + ": heads and head_dim must be positive");
    check(head_dim <= kMaxHeadDim, std::string(who) + ": head_dim over 1024 is not supported");
    check(heads <= INT_MAX / head_dim, std::string(who) + ": heads * head_dim overflows");
}

template <class F>
void dispatch(Precision p, F&& f) {
    if (p == Precision::F32) f(float{});
    else if (p == Precision::F16) f(__half{});
    else f(__nv_bfloat16{});
}

using Move = ReorderMove;  // uploaded as the plan made them

template <class U>
__global__ void copy_rows_kernel(char* const* caches, const Move* moves, int n_moves, char* scratch, int saved,
                                 int64_t cache_row_bytes, int64_t used_bytes, int64_t units) {
    const int c = blockIdx.x / n_moves;
    const Move mv = moves[blockIdx.x % n_moves];
    char* base = caches[c];
    char* own = scratch + int64_t(c) * saved * used_bytes;  // this cache's saved rows
    const U* src = reinterpret_cast<const U*>(mv.src_slot >= 0 ? own + int64_t(mv.src_slot) * used_bytes
                                                                : base + int64_t(mv.src_row) * cache_row_bytes);
    U* dst = reinterpret_cast<U*>(mv.dst_slot >= 0 ? own + int64_t(mv.dst_slot) * used_bytes
                                                   : base + int64_t(mv.dst_row) * cache_row_bytes);
    for (int64_t u = int64_t(blockIdx.y) * blockDim.x + threadIdx.x; u < units; u += int64_t(gridDim.y) * blockDim.x)
        dst[u] = src[u];
}

}  // namespace

void append_to_cache(Precision p, const void* fresh, void* cache, int rows, int new_len, int length, int max_len,
                     int64_t D, cudaStream_t stream, const int32_t* row_lengths) {
    check_precision(p, "append_to_cache");
    check(fresh != nullptr && cache != nullptr, "append_to_cache: null device pointer");
    check(rows >= 0 && new_len >= 1 && length >= 0 && D > 0,
          "append_to_cache: rows, new_len, length and D must be non-negative (new_len, D positive)");
    check(int64_t(length) + new_len <= max_len, "append_to_cache: the new positions do not fit in the cache");
    const int64_t total = int64_t(rows) * new_len * D;
    if (total == 0) return;
    const int blocks = int(std::min<int64_t>((total + 255) / 256, 65535));
    dispatch(p, [&](auto tag) {
        using T = decltype(tag);
        append_kernel<T><<<blocks, 256, 0, stream>>>(static_cast<const T*>(fresh), static_cast<T*>(cache), new_len,
                                                     length, row_lengths, max_len, D, total);
    });
    PRECIS_CUDA_LAUNCHED();
}

void cached_self_attention(Precision p, const void* q, const void* k_cache, const void* v_cache, int rows,
                           int new_len, int length, int max_len, int heads, int head_dim, float scale, void* out,
                           cudaStream_t stream, const int32_t* row_lengths) {
    check_precision(p, "cached_self_attention");
    check(q && k_cache && v_cache && out, "cached_self_attention: null device pointer");
    check_heads(heads, head_dim, "cached_self_attention");
    check(rows >= 0 && rows <= 65535, "cached_self_attention: rows must be in [0, 65535]");
    check(new_len >= 1 && length >= 0, "cached_self_attention: new_len must be positive and length non-negative");
    check(int64_t(length) + new_len <= max_len, "cached_self_attention: the positions exceed the cache");
    if (rows == 0) return;
    const int64_t D = int64_t(heads) * head_dim;
    const dim3 grid{unsigned(heads), unsigned(rows)};
    dispatch(p, [&](auto tag) {
        using T = decltype(tag);
        self_attention_kernel<T><<<grid, kThreads, attend_smem_bytes(head_dim), stream>>>(
            static_cast<const T*>(q), static_cast<const T*>(k_cache), static_cast<const T*>(v_cache), new_len, length,
            row_lengths, max_len, D, head_dim, scale, static_cast<T*>(out));
    });
    PRECIS_CUDA_LAUNCHED();
}

// Copies only what changes, as DecoderState::reorder does on the CPU: in beam search most
// beams usually continue themselves (parents[r] == r), and a full gather of every row of
// every layer's cache would move rows x length x D x layers x 2 elements each step for
// nothing. Only rows that take another row's history are written, and only a parent that is
// itself overwritten is saved to scratch first (once, however many children it has).
void CacheReorder::run(Precision p, const std::vector<void*>& caches, const std::vector<int>& parents, int length,
                       int max_len, int64_t D, cudaStream_t stream) {
    check_precision(p, "CacheReorder");
    const int rows = int(parents.size());
    for (void* c : caches) check(c != nullptr, "CacheReorder: null cache pointer");
    for (int par : parents) check(par >= 0 && par < rows, "CacheReorder: a parent names a row that does not exist");
    check(length >= 0 && length <= max_len && D > 0, "CacheReorder: length must be in [0, max_len] and D positive");
    if (length == 0 || caches.empty()) return;

    const ReorderPlan plan = plan_reorder(parents);  // the CPU decoder's plan too
    const std::vector<Move>& moves = plan.moves;
    const int saved = plan.slots, n_saves = plan.saves, n_writes = plan.writes();
    if (n_writes == 0) return;  // identity: nothing is launched or uploaded

    const int64_t elem = int64_t(bytes_of(p));
    const int64_t cache_row_bytes = int64_t(max_len) * D * elem;
    const int64_t used_bytes = int64_t(length) * D * elem;
    const int n_caches = int(caches.size());
    check(int64_t(n_caches) * int64_t(moves.size()) <= INT_MAX, "CacheReorder: too many caches and rows");
    if (saved > 0)  // sized for max_len, so the growing length never asks for a new buffer
        scratch_.reserve(size_t(n_caches) * size_t(saved) * size_t(cache_row_bytes));

    // Cache pointers, then the moves, in one upload. From pageable memory the copy has
    // staged the host bytes when it returns; kernels of an earlier run on the same stream
    // still reading moves_ finish before it lands (stream order).
    const size_t ptr_bytes = size_t(n_caches) * sizeof(void*);
    std::vector<char> host(ptr_bytes + moves.size() * sizeof(Move));
    std::memcpy(host.data(), caches.data(), ptr_bytes);
    std::memcpy(host.data() + ptr_bytes, moves.data(), moves.size() * sizeof(Move));
    moves_.reserve(host.size());
    PRECIS_CUDA_CHECK(cudaMemcpyAsync(moves_.get(), host.data(), host.size(), cudaMemcpyHostToDevice, stream));
    char* const* d_caches = moves_.as<char* const>();
    const Move* d_moves = reinterpret_cast<const Move*>(moves_.as<char>() + ptr_bytes);

    // Widest copy unit every address and length allows.
    auto aligned = [&](int64_t a) {
        bool ok = cache_row_bytes % a == 0 && used_bytes % a == 0 && reinterpret_cast<uintptr_t>(scratch_.get()) % a == 0;
        for (void* c : caches) ok = ok && reinterpret_cast<uintptr_t>(c) % a == 0;
        return ok;
    };
    const int64_t unit = aligned(16) ? 16 : aligned(4) ? 4 : 2;
    const int64_t units = used_bytes / unit;
    const unsigned chunks = unsigned(std::clamp<int64_t>((units + 1023) / 1024, 1, 32));
    auto launch = [&](const Move* first, int count) {
        const dim3 grid{unsigned(n_caches * count), chunks};
        char* scratch = scratch_.as<char>();
        if (unit == 16)
            copy_rows_kernel<uint4><<<grid, 256, 0, stream>>>(d_caches, first, count, scratch, saved, cache_row_bytes,
                                                              used_bytes, units);
        else if (unit == 4)
            copy_rows_kernel<uint32_t><<<grid, 256, 0, stream>>>(d_caches, first, count, scratch, saved,
                                                                 cache_row_bytes, used_bytes, units);
        else
            copy_rows_kernel<uint16_t><<<grid, 256, 0, stream>>>(d_caches, first, count, scratch, saved,
                                                                 cache_row_bytes, used_bytes, units);
        PRECIS_CUDA_LAUNCHED();
    };
    // Two launches when parents are saved: every save must land before any row is overwritten.
    if (n_saves > 0) launch(d_moves, n_saves);
    launch(d_moves + n_saves, n_writes);
}

}  // namespace precis::cuda
