// exp_nonpositive (engine/core/simd_exp.h), the exp of every softmax, and the decoder's
// vocabulary log-softmax built on it: within 2 ulp of std::exp over the range a softmax
// uses, exact zeros for masked scores, a NaN passed on.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "engine/core/simd_exp.h"
#include "engine/generate/search.h"
#include "tests/support/numeric.h"

namespace precis::test {
namespace {

std::vector<float> vector_exp(const std::vector<float>& x) {
    std::vector<float> y(x.size());
    for (size_t i = 0; i + 8 <= x.size(); i += 8) _mm256_storeu_ps(&y[i], exp_nonpositive(_mm256_loadu_ps(&x[i])));
    return y;
}

TEST(SimdExp, WithinTwoUlpOfStdExpFromMinus87To0) {
    std::vector<float> x;
    for (double v = -87.0; v <= 0.0; v += 1.0 / 4096) x.push_back(float(v));
    x.resize(x.size() / 8 * 8);
    const std::vector<float> y = vector_exp(x);
    double worst = 0;
    for (size_t i = 0; i < x.size(); ++i) {
        const double ref = std::exp(double(x[i]));
        const double ulp = std::nextafter(float(ref), std::numeric_limits<float>::infinity()) - float(ref);
        worst = std::max(worst, std::fabs(y[i] - ref) / ulp);
    }
    EXPECT_LE(worst, 2.0);
    std::printf("exp_nonpositive: worst error %.2f ulp over %zu points in [-87, 0]\n", worst, x.size());
}

TEST(SimdExp, MaskedScoresGiveExactlyZeroAndNaNStaysNaN) {
    const float inf = std::numeric_limits<float>::infinity();
    const std::vector<float> x = {-inf, std::numeric_limits<float>::lowest(), -1000.f, -87.5f,
                                  std::nanf(""), 0.f, -1e-30f, -0.5f};
    const std::vector<float> y = vector_exp(x);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(y[size_t(i)], 0.f) << x[size_t(i)];
    EXPECT_TRUE(std::isnan(y[4]));
    EXPECT_EQ(y[5], 1.f);
    EXPECT_EQ(y[6], 1.f);
    EXPECT_NEAR(y[7], std::exp(-0.5), 1e-7);
}

__attribute__((target("avx512f"))) std::vector<float> sixteen_lane_exp(const std::vector<float>& x) {
    std::vector<float> y(x.size());
    for (size_t i = 0; i + 16 <= x.size(); i += 16) _mm512_storeu_ps(&y[i], exp_nonpositive(_mm512_loadu_ps(&x[i])));
    return y;
}

TEST(SimdExp, SixteenLanesGiveTheBitsOfEight) {
    if (!__builtin_cpu_supports("avx512f")) GTEST_SKIP() << "no AVX-512 here";
    const float inf = std::numeric_limits<float>::infinity();
    std::vector<float> x = {-inf, std::numeric_limits<float>::lowest(), -1000.f, -87.5f, -87.3f, -87.29f,
                            std::nanf(""), 0.f, -0.f, -1e-30f, -0.5f, -88.f, -20.f, -1.f, -3.25f, -60.f};
    for (double v = -90.0; v <= 0.0; v += 1.0 / 1024) x.push_back(float(v));
    x.resize(x.size() / 16 * 16);
    const std::vector<float> eight = vector_exp(x), sixteen = sixteen_lane_exp(x);
    for (size_t i = 0; i < x.size(); ++i)
        EXPECT_EQ(0, std::memcmp(&eight[i], &sixteen[i], sizeof(float)))
            << x[i] << ": " << eight[i] << " against " << sixteen[i];
}

TEST(LogSoftmaxRow, MatchesTheDoublePrecisionLogSoftmaxOverAVocabulary) {
    const int64_t V = 50265;  // BART's, not a multiple of 8
    std::vector<float> x = gaussian(size_t(V), 9, 3.f);
    x[17] = -std::numeric_limits<float>::infinity();  // a banned token
    double m = -INFINITY, sum = 0;
    for (float v : x) m = std::max(m, double(v));
    for (float v : x) sum += std::exp(double(v) - m);
    const double lse = m + std::log(sum);
    std::vector<float> y = x;
    log_softmax_row(y.data(), V);
    double worst = 0;
    for (int64_t i = 0; i < V; ++i)
        if (i != 17) worst = std::max(worst, std::fabs(y[size_t(i)] - (double(x[size_t(i)]) - lse)));
    EXPECT_LT(worst, 2e-6);
    EXPECT_EQ(y[17], -std::numeric_limits<float>::infinity());
}

}  // namespace
}  // namespace precis::test
