// The float32 product behind the encoder (sgemm.h), by OpenBLAS and by oneDNN, against a
// double reference: both layouts of B, shapes with odd tails, rows strided wider than
// they are, beta 0 and 1, and called both inside the engine's OpenMP regions (where
// oneDNN takes it, a share of rows per thread) and outside (OpenBLAS).
#include <gtest/gtest.h>
#include <omp.h>

#include <random>
#include <vector>

#include "engine/backend/sgemm.h"
#include "tests/support/numeric.h"

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

std::vector<float> random_floats(size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> d(0.f, 1.f);
    std::vector<float> v(n);
    for (float& x : v) x = d(rng);
    return v;
}

TEST_P(Fp32Product, MatchesADoubleReferenceOverShapesLayoutsStridesAndThreads) {
    for (const Shape s : {Shape{1, 1, 1}, Shape{3, 5, 7}, Shape{17, 33, 65}, Shape{64, 64, 64}, Shape{130, 70, 300}})
        for (const bool bt : {true, false})
            for (const float beta : {0.f, 1.f})
                for (const bool in_region : {true, false}) {
                    SCOPED_TRACE(::testing::Message() << s.m << "x" << s.n << "x" << s.k << (bt ? " B^T" : " B")
                                                      << " beta " << beta << (in_region ? " in" : " outside")
                                                      << " an OpenMP region");
                    const int64_t lda = s.k + 3, ldb = (bt ? s.k : s.n) + 5, ldc = s.n + 2;
                    const std::vector<float> a = random_floats(size_t(s.m * lda), 1),
                                             b = random_floats(size_t((bt ? s.n : s.k) * ldb), 2);
                    std::vector<float> c = random_floats(size_t(s.m * ldc), 3), ref(size_t(s.m * s.n)),
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

INSTANTIATE_TEST_SUITE_P(Libraries, Fp32Product, ::testing::Values(Fp32Gemm::OpenBlas, Fp32Gemm::OneDnn),
                         [](const auto& info) { return std::string(fp32_gemm_name(info.param)); });

}  // namespace
}  // namespace precis::test
