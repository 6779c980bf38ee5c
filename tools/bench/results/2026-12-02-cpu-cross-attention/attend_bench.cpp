// One thread, one head of a decoder's cross-attention: `nq` float32 queries (greedy's one,
// a document's beams; rows 768 floats apart as in bart-base's [rows, 12 x 64] activations)
// over `nk` keys and values of head width 64, each head's rows packed as CrossMemory holds
// them ([heads, tokens, 64]). Three kernels alternated, each timed over many heads:
//   blocks  attend_float_blocks, the 256-bit path (keys as rows)
//   rows    attend_float_zmm with keys as rows (transposed tile by tile; from 4 queries)
//   tiles   attend_float_zmm with keys as AttendArgs::k_tiles (the same bytes read as tiles:
//           their values do not change the time)
// and GB/s of keys and values read printed, with rows/blocks and tiles/blocks.
//   in cache:    the same head again and again (512 KB at 1,024 keys: L2)
//   from memory: heads spread over 400 MB, each read once per pass (past every cache)
// Run with `huge` to offer the rows to transparent huge pages.
// Build from the checkout's root after building `build/`:
//   g++ -O2 -std=c++20 -march=native -I. attend_bench.cpp -Wl,--start-group
//   build/engine/libprecis_engine.a -Wl,--end-group -lpcre2-8 -lopenblas -ldnnl
//   -lsentencepiece -fopenmp
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <sys/mman.h>
#include <vector>

#include "engine/model/attend.h"

using namespace precis;

namespace {

constexpr int64_t kRow = 768, kHd = 64;

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// GB/s of keys and values read by `kernel` over `heads` heads laid out `stride` floats apart.
template <typename Kernel>
double rate(Kernel kernel, const std::vector<float>& memory, int64_t heads, int64_t stride, int64_t nq,
            int64_t nk, int passes) {
    std::vector<float> q(size_t(nq * kRow), 0.01f), out(size_t(nq * kRow)), scratch;
    for (size_t i = 0; i < q.size(); ++i) q[i] = float(i % 17) * 0.01f;
    // On a cache line, as CrossMemory's buffers are (the tiles are read aligned).
    const float* base = reinterpret_cast<const float*>((uintptr_t(memory.data()) + 63) & ~uintptr_t(63));
    AttendArgs a;
    a.q = q.data(); a.ldq = kRow; a.ldk = kHd; a.ldv = kHd;
    a.nq = nq; a.nk = nk; a.hd = kHd; a.scale = 0.125f; a.out = out.data(); a.ldo = kRow;
    const auto t0 = std::chrono::steady_clock::now();
    for (int p = 0; p < passes; ++p)
        for (int64_t h = 0; h < heads; ++h) {
            a.k = base + h * stride;
            a.v = a.k + nk * kHd;
            kernel(a, scratch);
        }
    const double s = seconds_since(t0);
    return double(passes) * double(heads) * 2.0 * double(nk) * kHd * sizeof(float) / s / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
    // `huge`: the rows offered to transparent huge pages (the engine offers its buffers where
    // they arrive fast; this VM's host makes them slow to arrive, so there it does not).
    const bool huge = argc > 1 && std::string(argv[1]) == "huge";
    std::mt19937 rng(1);
    std::normal_distribution<float> n(0.f, 1.f);
    const int64_t big = 400LL * 1000 * 1000 / sizeof(float);
    std::vector<float> memory;
    memory.reserve(static_cast<size_t>(big));
    if (huge) madvise(reinterpret_cast<void*>((uintptr_t(memory.data()) + 4095) & ~uintptr_t(4095)), size_t(big) * 4 - 4096, MADV_HUGEPAGE);
    memory.resize(static_cast<size_t>(big));
    for (auto& x : memory) x = n(rng);
    auto blocks = [](const AttendArgs& a, std::vector<float>& s) { attend_float_blocks(a, s); };
    auto rows = [](const AttendArgs& a, std::vector<float>& s) {
        if (!attend_float_zmm(a, s)) std::abort();
    };
    auto tiles = [](const AttendArgs& a, std::vector<float>& s) {
        AttendArgs t = a;
        t.k_tiles = a.k;
        t.k = nullptr;
        if (!attend_float_zmm(t, s)) std::abort();
    };
    std::printf("nq    nk  where        blocks GB/s  rows GB/s  tiles GB/s  rows/blocks  tiles/blocks\n");
    for (int64_t nq : {1, 4, 5, 8}) {
        for (int64_t nk : {128, 400, 1024}) {  // multiples of 16: the keys' bytes hold whole tiles
            const int64_t stride = 2 * nk * kHd;  // one head's keys then values
            const int64_t heads_far = big / stride - 2;
            for (int round = 0; round < 2; ++round)
                for (const bool far : {false, true}) {
                    const int64_t heads = far ? heads_far : 1;
                    const int passes = far ? 3 : 40000 * 128 / int(nk);
                    const double b = rate(blocks, memory, heads, stride, nq, nk, passes);
                    const double r = nq >= 4 ? rate(rows, memory, heads, stride, nq, nk, passes) : 0.0;
                    const double t = rate(tiles, memory, heads, stride, nq, nk, passes);
                    std::printf("%2ld %5ld  %s  %11.1f  %9.1f  %10.1f  %11.2f  %12.2f\n", long(nq), long(nk),
                                far ? "from memory" : "in cache   ", b, r, t, r / b, t / b);
                }
        }
    }
}
