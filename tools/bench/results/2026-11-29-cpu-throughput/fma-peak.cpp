// The float32 FMA ceiling of this machine: N independent chains of 512-bit FMAs per
// thread (no memory traffic), on 1 and 2 threads, best of 3. Built and run as
//   g++ -O3 -pthread fma-peak.cpp -o fma-peak && ./fma-peak
// A bound for the throughput rows: no float32 implementation of the same arithmetic runs
// faster than its FLOPs divided by this.
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

template <int N>
__attribute__((target("avx512f"))) float chains(long iters) {
    __m512 a[N];
    for (int i = 0; i < N; ++i) a[i] = _mm512_set1_ps(i * 0.001f);
    const __m512 x = _mm512_set1_ps(0.9999f), y = _mm512_set1_ps(1e-7f);
    for (long n = 0; n < iters; ++n) {
#pragma GCC unroll 32
        for (int i = 0; i < N; ++i) a[i] = _mm512_fmadd_ps(a[i], x, y);
    }
    __m512 s = a[0];
    for (int i = 1; i < N; ++i) s = _mm512_add_ps(s, a[i]);
    return _mm512_reduce_add_ps(s);
}

template <int N>
void measure() {
    const long iters = 600000000L / N * 8;  // the same FMA count for every N
    for (int threads = 1; threads <= 2; ++threads) {
        double best = 0;
        for (int rep = 0; rep < 3; ++rep) {
            float sink[2];
            std::thread t[2];
            const auto t0 = std::chrono::steady_clock::now();
            for (int i = 0; i < threads; ++i) t[i] = std::thread([&, i] { sink[i] = chains<N>(iters); });
            for (int i = 0; i < threads; ++i) t[i].join();
            const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            best = std::max(best, threads * double(iters) * N * 32 / s / 1e9);
            if (sink[0] < 0) std::printf("?");
        }
        std::printf("%2d chains, %d thread%s: %.1f GFLOP/s\n", N, threads, threads > 1 ? "s" : "", best);
    }
}

int main() {
    measure<8>();
    measure<12>();
    measure<16>();
    measure<24>();
}
