// Built against the prototype's first version, whose PackedFp32Weights::make(w, out, in) packed a
// matrix whole (its outputs here: ../microbench-step-17-128-rows.txt, ../microbench-gemv-1-16-rows.txt
// with the argument gemv, ../microbench-lm-head.txt). Against packed-weights.diff, add a thread count
// of 1 to make(): each half is then packed in parts of at most 512 columns.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>
#include <omp.h>
#include "engine/backend/backend.h"
#include "engine/backend/fp32_step_gemm.h"
#include "engine/backend/lowp_linear.h"
#include "engine/backend/packed_fp32_product.h"
#include "engine/core/normal_draws.h"
using namespace precis;
// L matrices [N, K] rotated (more than the L3 holds), M rows: the step product (17-128 rows) or,
// with a fourth argument "gemv", the streamed GEMV (1-16 rows), against packed column halves.
// usage: step_bench K N L [gemv]
int main(int argc, char** argv) {
    set_cpu_threads(2);
    const int64_t K = atol(argv[1]), N = atol(argv[2]); const int L = atoi(argv[3]);
    const bool gemv = argc > 4 && std::string(argv[4]) == "gemv";
    std::vector<std::vector<float>> w(L);
    std::vector<std::unique_ptr<PackedFp32Weights>> p0(L), p1(L);
    const int64_t half = (N / 2 + 63) / 64 * 64;
    for (int l = 0; l < L; ++l) {
        w[l].resize(size_t(N * K)); NormalDraws(l + 1).fill(w[l].data(), N * K, 0.05f);
        p0[l] = PackedFp32Weights::make(w[l].data(), half, K);
        p1[l] = PackedFp32Weights::make(w[l].data() + half * K, N - half, K);
    }
    std::vector<float> b(static_cast<size_t>(N)), x(static_cast<size_t>(128 * K));
    NormalDraws(99).fill(x.data(), int64_t(x.size()), 1.f);
    for (int64_t M : gemv ? std::vector<int64_t>{1, 2, 4, 8, 12, 16} : std::vector<int64_t>{17, 24, 32, 48, 64, 96, 128}) {
        std::vector<float> y(size_t(M * N)), y0(size_t(M * half)), y1(size_t(M * (N - half)));
        const int reps = 5;
        auto t0 = std::chrono::steady_clock::now();
        for (int r = 0; r < reps; ++r)
            for (int l = 0; l < L; ++l) {
                if (gemv) lowp_gemv(x.data(), M, K, WeightRef{WeightFormat::F32, w[l].data(), nullptr}, b.data(), N, y.data());
                else fp32_step_gemm(x.data(), M, K, w[l].data(), b.data(), N, y.data());
            }
        auto t1 = std::chrono::steady_clock::now();
        for (int r = 0; r < reps; ++r) for (int l = 0; l < L; ++l) {
#pragma omp parallel num_threads(2)
            {
                if (omp_get_thread_num() == 0) p0[l]->multiply(x.data(), M, b.data(), y0.data());
                else p1[l]->multiply(x.data(), M, b.data() + half, y1.data());
            }
        }
        auto t2 = std::chrono::steady_clock::now();
        double a = std::chrono::duration<double>(t1 - t0).count() / reps / L, c = std::chrono::duration<double>(t2 - t1).count() / reps / L;
        double fl = 2.0 * M * K * N;
        printf("K=%ld N=%ld M=%3ld %s %.3f ms (%.0f GF/s)  packed-halves %.3f ms (%.0f GF/s)  ratio %.2f\n", K, N, M, gemv ? "gemv" : "step_gemm", a * 1e3, fl / a / 1e9, c * 1e3, fl / c / 1e9, c / a);
    }
}
