// Manual timing of the attention cores at bart-base shape (12 heads, head_dim 64).
// Disabled by default (no timing asserts); run with
//   engine_attention_bench_test --gtest_also_run_disabled_tests
// PRECIS_BENCH_T overrides the lengths (comma separated), default 4096,16384.
#include <gtest/gtest.h>

#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "engine/attention/attention.h"

namespace precis::test {
namespace {

std::vector<int> bench_lengths() {
    std::vector<int> ts{4096, 16384};
    if (const char* env = std::getenv("PRECIS_BENCH_T")) {
        ts.clear();
        std::stringstream ss(env);
        std::string item;
        while (std::getline(ss, item, ',')) ts.push_back(std::stoi(item));
    }
    return ts;
}

struct BenchInput {
    std::vector<float> q, k, v, out, mask;
    AttentionInput in;
};

BenchInput make_input(int G, int T, int heads, int hd) {
    BenchInput b;
    const size_t n = size_t(G + T) * heads * hd;
    std::mt19937 gen(1);
    std::normal_distribution<float> nd;
    for (auto* vec : {&b.q, &b.k, &b.v}) {
        vec->resize(n);
        for (auto& e : *vec) e = nd(gen);
    }
    b.out.resize(n);
    b.mask.assign(size_t(T), 0.0f);
    for (int t = T - 100; t < T; ++t) b.mask[size_t(t)] = -3.4028234663852886e38f;
    b.in = {b.q.data(), b.k.data(), b.v.data(), G + T, heads, hd};
    return b;
}

double cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

double g_last_cpu = 0;  // process CPU seconds of the best run (the machine may be shared)

template <class F>
double best_of(int reps, F&& f) {
    double best = 1e30;
    for (int r = 0; r < reps; ++r) {
        const double c0 = cpu_seconds();
        const auto t0 = std::chrono::steady_clock::now();
        f();
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (wall < best) best = wall, g_last_cpu = cpu_seconds() - c0;
    }
    return best;
}

TEST(AttentionBench, DISABLED_BartBaseShapes) {
    const int heads = 12, hd = 64, G = 1;
    for (int T : bench_lengths()) {
        BenchInput b = make_input(G, T, heads, hd);
        for (SparsityType type : {SparsityType::Norm, SparsityType::Stride, SparsityType::Pooling,
                                  SparsityType::BosPooling, SparsityType::Lsh, SparsityType::None}) {
            LsgSettings s;
            s.block_size = 128;
            s.sparse_block_size = 128;
            s.sparsity_factor = 4;
            s.sparsity_type = type;
            LshProjections lsh = LshProjections::seeded(7);
            const double sec = best_of(3, [&] { lsg_attention(b.in, b.mask.data(), G, s, 0, &lsh, b.out.data()); });
            std::printf("lsg %-12s T=%6d  %.3f s wall  %.3f s cpu\n", sparsity_type_name(type), T, sec,
                        g_last_cpu);
        }
        FoveaSettings fs;
        fs.block_size = 64;
        std::vector<float> fmask(size_t(G), 0.0f);
        fmask.insert(fmask.end(), b.mask.begin(), b.mask.end());
        const double fsec = best_of(2, [&] { fovea_attention(b.in, fmask.data(), G, fs, b.out.data()); });
        std::printf("fovea BL=64 w=1  T=%6d  %.3f s wall  %.3f s cpu\n", T, fsec, g_last_cpu);
        if (T <= 8192) {
            const double dsec = best_of(1, [&] { full_attention(b.in, fmask.data(), b.out.data()); });
            std::printf("full             T=%6d  %.3f s wall  %.3f s cpu\n", T, dsec, g_last_cpu);
        }
        std::fflush(stdout);
    }
}

}  // namespace
}  // namespace precis::test
