// Built against packed-weights.diff (output: ../microbench-encoder-shares.txt).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>
#include <omp.h>
#include "engine/backend/backend.h"
#include "engine/backend/sgemm.h"
#include "engine/backend/packed_fp32_product.h"
#include "engine/core/normal_draws.h"
using namespace precis;
// 2 threads each their own share of M rows, K x N: sgemm (plain weights) vs packed
int main(int argc, char** argv) {
    set_cpu_threads(2);
    const int64_t K = atol(argv[1]), N = atol(argv[2]);
    std::vector<float> w(static_cast<size_t>(N * K)), b(static_cast<size_t>(N));
    NormalDraws(1).fill(w.data(), N * K, 0.05f);
    auto p = PackedFp32Weights::make(w.data(), N, K, 2);
    for (int64_t M : {16, 64, 256, 512, 1024}) {
        std::vector<float> x(size_t(2 * M * K)), y(size_t(2 * M * N));
        NormalDraws(2).fill(x.data(), int64_t(x.size()), 1.f);
        const int reps = std::max<int>(3, int(2000 / M));
        double ts[2];
        for (int mode = 0; mode < 2; ++mode) {
            auto t0 = std::chrono::steady_clock::now();
            for (int r = 0; r < reps; ++r) {
#pragma omp parallel num_threads(2)
                {
                    const int t = omp_get_thread_num();
                    const float* xs = x.data() + t * M * K; float* ys = y.data() + t * M * N;
                    if (mode == 0) sgemm(true, M, N, K, 1.f, xs, K, w.data(), K, 0.f, ys, N);
                    else p->multiply(xs, M, nullptr, ys);
                }
            }
            ts[mode] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / reps;
        }
        double fl = 2.0 * M * K * N;  // per thread
        printf("K=%ld N=%ld M=%4ld/thread sgemm %.0f GF/s/thread  packed(%d parts) %.0f  ratio %.2f\n", K, N, M, fl / ts[0] / 1e9, p->parts(), fl / ts[1] / 1e9, ts[1] / ts[0]);
    }
}
