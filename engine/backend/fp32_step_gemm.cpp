#include "engine/backend/fp32_step_gemm.h"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include "engine/core/worker_team.h"

namespace precis {

namespace {

constexpr int kColumns = 12;  // weight rows per kernel call: 12 x 2 accumulators

// xt[k * ld + m] = x[m, k], the rows past `rows` up to ld zero (only they are cleared:
// every other element is written, for each of a step's ~50 products).
void transpose_rows(const float* x, int64_t rows, int64_t in, int64_t ld, std::vector<float>& xt) {
    if (xt.size() < size_t(ld * in)) xt.resize(size_t(ld * in));
    if (rows < ld)
        for (int64_t k = 0; k < in; ++k) std::fill_n(xt.data() + k * ld + rows, ld - rows, 0.f);
    constexpr int64_t kBlock = 64;  // a block of k stays in cache while every row writes it
    for (int64_t k0 = 0; k0 < in; k0 += kBlock) {
        const int64_t k1 = std::min(in, k0 + kBlock);
        for (int64_t m = 0; m < rows; ++m)
            for (int64_t k = k0; k < k1; ++k) xt[size_t(k * ld + m)] = x[m * in + k];
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

// Output features [c0, c1): for each group of twelve weight rows (in L1 or L2 while every
// block reads them), every block of 32 rows, then a last block of up to 16.
void step_gemm_columns(const float* xt, int64_t ld, int64_t rows, int64_t in, const float* w, const float* b,
                       int64_t out, int64_t c0, int64_t c1, float* y) {
    for (int64_t c = c0; c < c1; c += kColumns) {
        const int n = int(std::min<int64_t>(kColumns, c1 - c));
        const float* wc = w + c * in;
        const float* bc = b ? b + c : nullptr;
        int64_t r = 0;
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
