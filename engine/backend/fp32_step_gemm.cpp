#include "engine/backend/fp32_step_gemm.h"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include "engine/core/simd_transpose.h"
#include "engine/core/worker_team.h"

namespace precis {

namespace {

constexpr int kColumns = 12;  // weight rows per kernel call: 12 x 2 accumulators
// A block of 64 rows (the CPU's fp32 beam-4 batch: 16 documents x 4 beams) takes half a
// group's weight rows at a time, 6 x 4 accumulators: each broadcast weight feeds four
// FMAs instead of two.
constexpr int kHalfColumns = kColumns / 2;
// That kernel reads each of its weight rows once per step, from memory, and asks for each
// row's cache line four lines (64 inputs) ahead. All of bart-base's decoder-step products
// at 64 rows (weights larger than the caches, 2 threads, alternated in one process): 0.86-
// 0.92x the time of twelve columns by two row vectors, but 0.95-1.0x without the prefetch.
// The 32-row kernels gained nothing from it (0.99-1.05x), so they do not ask.
constexpr int64_t kPrefetchInputs = 64;

// xt[k * ld + m] = x[m, k], the rows past `rows` up to ld zero: tiles of 16 rows by 16
// inputs transposed in registers. It runs on the caller before the product is shared out,
// so the other thread waits for it: the scalar loop this replaced took 1.25 % of the
// 32-document fp32 beam-4 batch's samples, this 0.8 % (reading and writing 200 KB).
__attribute__((target("avx512f"))) void transpose_rows(const float* x, int64_t rows, int64_t in, int64_t ld,
                                                       std::vector<float>& xt) {
    if (xt.size() < size_t(ld * in)) xt.resize(size_t(ld * in));
    float* out = xt.data();
    const int64_t whole = in / 16 * 16;
    for (int64_t m0 = 0; m0 < ld; m0 += 16) {
        const int64_t valid = std::min<int64_t>(16, rows - m0);  // ld < rows + 16: at least one
        for (int64_t k0 = 0; k0 < whole; k0 += 16) {
            __m512 r[16], t[16];
            for (int i = 0; i < 16; ++i)
                r[i] = i < valid ? _mm512_loadu_ps(x + (m0 + i) * in + k0) : _mm512_setzero_ps();
            transpose16_in_registers(r, t);
            for (int j = 0; j < 16; ++j) _mm512_storeu_ps(out + (k0 + j) * ld + m0, t[j]);
        }
        for (int64_t k = whole; k < in; ++k)
            for (int64_t i = 0; i < 16; ++i) out[k * ld + m0 + i] = i < valid ? x[(m0 + i) * in + k] : 0.f;
    }
}

// y[rows <= 16V, C columns] = x * W[C rows]^T + b, from xt (16V rows side by side). The
// sum over k runs in blocks of kSumBlock, each block's sum added to the total in memory:
// one FMA chain over all of 3,072 inputs (bart-base's fc2) lost twice the precision of
// sgemm's blocked sums.
constexpr int64_t kSumBlock = 256;
template <int V, int C>
__attribute__((target("avx512f"))) void rows_by_columns(const float* xt, int64_t ld, int64_t in, const float* w,
                                                        const float* b, int rows, float* y, int64_t ldy) {
    alignas(64) float total[C][16 * V];
    for (int64_t k0 = 0; k0 < in; k0 += kSumBlock) {
        const int64_t k1 = std::min(in, k0 + kSumBlock);
        __m512 acc[C][V];
        for (int c = 0; c < C; ++c)
            for (int v = 0; v < V; ++v) acc[c][v] = _mm512_setzero_ps();
        for (int64_t k = k0; k < k1; ++k) {
            if constexpr (V == 4)
                if (k % 16 == 0)
                    for (int c = 0; c < C; ++c)
                        _mm_prefetch(reinterpret_cast<const char*>(w + c * in + k + kPrefetchInputs), _MM_HINT_T0);
            __m512 xv[V];
            for (int v = 0; v < V; ++v) xv[v] = _mm512_loadu_ps(xt + k * ld + 16 * v);
            for (int c = 0; c < C; ++c) {
                const __m512 wv = _mm512_set1_ps(w[c * in + k]);
                for (int v = 0; v < V; ++v) acc[c][v] = _mm512_fmadd_ps(wv, xv[v], acc[c][v]);
            }
        }
        for (int c = 0; c < C; ++c)
            for (int v = 0; v < V; ++v)
                _mm512_store_ps(&total[c][16 * v],
                                k0 == 0 ? acc[c][v] : _mm512_add_ps(_mm512_load_ps(&total[c][16 * v]), acc[c][v]));
    }
    // Back to row-major: once per product of these rows, a few percent of it.
    for (int m = 0; m < rows; ++m)
        for (int c = 0; c < C; ++c) y[m * ldy + c] = total[c][m] + (b ? b[c] : 0.f);
}

using Kernel = void (*)(const float*, int64_t, int64_t, const float*, const float*, int, float*, int64_t);
template <int V, int... C>
constexpr std::array<Kernel, sizeof...(C)> kernels_for(std::integer_sequence<int, C...>) {
    return {rows_by_columns<V, C + 1>...};
}
constexpr auto kTwoVectors = kernels_for<2>(std::make_integer_sequence<int, kColumns>{});
constexpr auto kOneVector = kernels_for<1>(std::make_integer_sequence<int, kColumns>{});
constexpr auto kFourVectors = kernels_for<4>(std::make_integer_sequence<int, kHalfColumns>{});

// Output features [c0, c1): for each group of twelve weight rows (in L1 or L2 while every
// block reads them), every block of 64 rows (six weight rows at a time), then of 32 rows,
// then a last block of up to 16.
void step_gemm_columns(const float* xt, int64_t ld, int64_t rows, int64_t in, const float* w, const float* b,
                       int64_t out, int64_t c0, int64_t c1, float* y) {
    for (int64_t c = c0; c < c1; c += kColumns) {
        const int n = int(std::min<int64_t>(kColumns, c1 - c));
        const float* wc = w + c * in;
        const float* bc = b ? b + c : nullptr;
        int64_t r = 0;
        for (; ld - r >= 64; r += 64)
            for (int h = 0; h < n; h += kHalfColumns) {
                const int m = std::min(kHalfColumns, n - h);
                kFourVectors[size_t(m - 1)](xt + r, ld, in, wc + h * in, bc ? bc + h : nullptr,
                                            int(std::min<int64_t>(64, rows - r)), y + r * out + c + h, out);
            }
        for (; ld - r > 16; r += 32)
            kTwoVectors[size_t(n - 1)](xt + r, ld, in, wc, bc, int(std::min<int64_t>(32, rows - r)), y + r * out + c, out);
        if (r < ld) kOneVector[size_t(n - 1)](xt + r, ld, in, wc, bc, int(rows - r), y + r * out + c, out);
    }
}

}  // namespace

void fp32_step_gemm(const float* x, int64_t rows, int64_t in, const float* w, const float* b, int64_t out, float* y) {
    if (rows <= 0) return;
    // Transposed once here and read by every thread (a reference: each thread would see
    // its own thread_local).
    thread_local std::vector<float> transposed_here;
    const int64_t ld = (rows + 15) / 16 * 16;
    transpose_rows(x, rows, in, ld, transposed_here);
    const float* xt = transposed_here.data();
    const int threads = rows * in * out < (1 << 16) ? 1 : omp_get_max_threads();
    run_on_team(threads, [&](int t, int nt) {
        const auto [c0, c1] = column_part(out, t, nt);
        if (c1 > c0) step_gemm_columns(xt, ld, rows, in, w, b, out, c0, c1, y);
    });
}

}  // namespace precis
