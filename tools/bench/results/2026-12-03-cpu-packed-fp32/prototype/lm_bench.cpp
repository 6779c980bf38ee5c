// Built against the prototype's first version, whose PackedFp32Weights::make(w, out, in) packed a
// matrix whole (its output: ../microbench-lm-head.txt). Against packed-weights.diff, add a thread count
// of 1 to make(): each half is then packed in parts of at most 512 columns.
#include <chrono>
#include <cstdio>
#include <vector>
#include <omp.h>
#include "engine/backend/backend.h"
#include "engine/backend/fp32_step_gemm.h"
#include "engine/backend/packed_fp32_product.h"
#include "engine/core/normal_draws.h"
using namespace precis;
int main(int argc, char** argv) {
    set_cpu_threads(2);
    const int64_t K = 768, N = argc > 1 ? atol(argv[1]) : 50265;
    std::vector<float> w(static_cast<size_t>(N * K)), b(static_cast<size_t>(N)), x(static_cast<size_t>(128 * K));
    NormalDraws(1).fill(w.data(), int64_t(w.size()), 0.05f);
    NormalDraws(2).fill(x.data(), int64_t(x.size()), 1.f);
    // two column halves, each packed on its own, aligned to 64
    const int64_t half = (N / 2 + 63) / 64 * 64;
    auto p0 = PackedFp32Weights::make(w.data(), half, K);
    auto p1 = PackedFp32Weights::make(w.data() + half * K, N - half, K);
    for (int64_t M : {8, 16, 32, 64, 128}) {
        std::vector<float> y(size_t(M * N)), y0(size_t(M * half)), y1(size_t(M * (N - half)));
        auto t0 = std::chrono::steady_clock::now();
        const int reps = 20;
        for (int r = 0; r < reps; ++r) fp32_step_gemm(x.data(), M, K, w.data(), b.data(), N, y.data());
        auto t1 = std::chrono::steady_clock::now();
        for (int r = 0; r < reps; ++r) {
#pragma omp parallel num_threads(2)
            {
                if (omp_get_thread_num() == 0) p0->multiply(x.data(), M, b.data(), y0.data());
                else p1->multiply(x.data(), M, b.data() + half, y1.data());
            }
        }
        auto t2 = std::chrono::steady_clock::now();
        double a = std::chrono::duration<double>(t1 - t0).count() / reps, c = std::chrono::duration<double>(t2 - t1).count() / reps;
        double fl = 2.0 * M * K * N;
        printf("M=%3ld step_gemm %.2f ms (%.0f GF/s)  packed-halves %.2f ms (%.0f GF/s)\n", M, a * 1e3, fl / a / 1e9, c * 1e3, fl / c / 1e9);
    }
}
