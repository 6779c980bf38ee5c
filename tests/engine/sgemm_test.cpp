// The float32 product behind the encoder (sgemm.h), by OpenBLAS and by oneDNN, against a
// double reference: both layouts of B, shapes with odd tails, rows strided wider than
// they are, beta 0 and 1, and called both inside the engine's OpenMP regions (where
// oneDNN takes it, a share of rows per thread) and outside (OpenBLAS); and, under the CPU
// backend's allocator settings, repeated products that fault in no fresh memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <omp.h>
#include <sys/resource.h>

#include <vector>

#include "engine/backend/backend.h"
#include "engine/backend/sgemm.h"
#include "tests/support/numeric.h"
#include "tests/support/sanitizers.h"

namespace precis::test {
namespace {

struct Shape {
    int64_t m, n, k;
};

class Fp32Product : public ::testing::TestWithParam<Fp32Gemm> {
protected:
    void SetUp() override {
        saved_ = fp32_gemm_in_use();
        set_fp32_gemm(GetParam());
    }
    void TearDown() override { set_fp32_gemm(saved_); }
    Fp32Gemm saved_ = Fp32Gemm::OpenBlas;
};

TEST_P(Fp32Product, MatchesADoubleReferenceOverShapesLayoutsStridesAndThreads) {
    for (const Shape s : {Shape{1, 1, 1}, Shape{3, 5, 7}, Shape{17, 33, 65}, Shape{64, 64, 64}, Shape{130, 70, 300}})
        for (const bool bt : {true, false})
            for (const float beta : {0.f, 1.f})
                for (const bool in_region : {true, false}) {
                    SCOPED_TRACE(::testing::Message() << s.m << "x" << s.n << "x" << s.k << (bt ? " B^T" : " B")
                                                      << " beta " << beta << (in_region ? " in" : " outside")
                                                      << " an OpenMP region");
                    const int64_t lda = s.k + 3, ldb = (bt ? s.k : s.n) + 5, ldc = s.n + 2;
                    const std::vector<float> a = gaussian(size_t(s.m * lda), 1),
                                             b = gaussian(size_t((bt ? s.n : s.k) * ldb), 2);
                    std::vector<float> c = gaussian(size_t(s.m * ldc), 3), ref(size_t(s.m * s.n)),
                                       got(ref.size());
                    for (int64_t i = 0; i < s.m; ++i)
                        for (int64_t j = 0; j < s.n; ++j) {
                            double sum = 0;
                            for (int64_t p = 0; p < s.k; ++p)
                                sum += double(a[size_t(i * lda + p)]) * (bt ? b[size_t(j * ldb + p)] : b[size_t(p * ldb + j)]);
                            ref[size_t(i * s.n + j)] = float(0.5 * sum + beta * c[size_t(i * ldc + j)]);
                        }
                    if (in_region) {
#pragma omp parallel num_threads(2)
                        {
                            const int t = omp_get_thread_num(), nt = omp_get_num_threads();
                            const int64_t r0 = s.m * t / nt, r1 = s.m * (t + 1) / nt;
                            sgemm(bt, r1 - r0, s.n, s.k, 0.5f, a.data() + r0 * lda, lda, b.data(), ldb, beta,
                                  c.data() + r0 * ldc, ldc);
                        }
                    } else {
                        sgemm(bt, s.m, s.n, s.k, 0.5f, a.data(), lda, b.data(), ldb, beta, c.data(), ldc);
                    }
                    for (int64_t i = 0; i < s.m; ++i)
                        for (int64_t j = 0; j < s.n; ++j) got[size_t(i * s.n + j)] = c[size_t(i * ldc + j)];
                    EXPECT_LT(normalized_error(got, ref), 1e-6);
                }
}

long minor_page_faults() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt;
}

// oneDNN's sgemm allocates 1.5-5.3 MB of packing space on every call and frees it at the end.
// Mapped afresh each time, those pages were faulted in and zeroed on every product: 670k
// faults in a 32-document bart-base batch, a tenth of its encoding time (cpu_backend.cpp's
// allocator settings keep that space in the heap now).
TEST_P(Fp32Product, RepeatedProductsOfEncoderShapesFaultInNoFreshMemory) {
    if (kBuiltWithAddressSanitizer) GTEST_SKIP() << "AddressSanitizer's allocator quarantines freed memory by design";
    (void)make_cpu_backend();  // the process's allocator settings
    const int64_t rows = 256, k = 768;  // a share of rows per thread, as the encoder splits them
    for (const int64_t n : {int64_t(768), int64_t(3072)}) {  // attention projections, feed-forward
        SCOPED_TRACE(::testing::Message() << rows << "x" << n << "x" << k << " per thread");
        const std::vector<float> a = gaussian(size_t(2 * rows * k), 1), b = gaussian(size_t(n * k), 2);
        std::vector<float> c(size_t(2 * rows * n));
        const auto product = [&] {
#pragma omp parallel num_threads(2)
            {
                const int64_t r0 = rows * omp_get_thread_num();
                sgemm(true, rows, n, k, 1.f, a.data() + r0 * k, k, b.data(), k, 0.f, c.data() + r0 * n, n);
            }
        };
        // The heap settles over the first calls: glibc places each call's page-aligned
        // blocks a little higher until the freed ones fit them (no faults from about the
        // tenth call on; mapped afresh instead, the blocks fault in ~230 pages every call).
        for (int i = 0; i < 16; ++i) product();
        // The fewest of three rounds: space mapped afresh faults in every call, so in every
        // round; a buffer a library maps once faults in one round at most. (OpenBLAS maps one
        // more the first time two threads call it at once, which on a busy machine, where the
        // warm-up's two threads ran one after the other, came in the measured calls: 180 pages
        // in 3 of 40 runs beside another test.)
        constexpr int kCalls = 8;
        long pages = std::numeric_limits<long>::max();
        for (int round = 0; round < 3; ++round) {
            const long before = minor_page_faults();
            for (int i = 0; i < kCalls; ++i) product();
            pages = std::min(pages, minor_page_faults() - before);
        }
        // One call's packing space alone is hundreds of 4 KB pages a thread.
        EXPECT_LT(pages, 64) << pages << " pages faulted in over " << kCalls << " products (the fewest of 3 rounds)";
    }
}

INSTANTIATE_TEST_SUITE_P(Libraries, Fp32Product, ::testing::Values(Fp32Gemm::OpenBlas, Fp32Gemm::OneDnn),
                         [](const auto& info) { return std::string(fp32_gemm_name(info.param)); });

}  // namespace
}  // namespace precis::test
