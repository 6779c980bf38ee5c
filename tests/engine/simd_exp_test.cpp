// exp8 (engine/core/simd_exp.h) and the softmaxes built on it: within 2 ulp of std::exp
// over the whole range a softmax uses, exact zeros for masked scores, NaN kept.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "engine/core/simd_exp.h"
#include "engine/generate/search.h"
#include "engine/model/softmax_row.h"
#include "tests/support/numeric.h"

namespace precis::test {
namespace {

std::vector<float> exp8_of(const std::vector<float>& x) {
    std::vector<float> y(x.size());
    for (size_t i = 0; i + 8 <= x.size(); i += 8) _mm256_storeu_ps(&y[i], exp8(_mm256_loadu_ps(&x[i])));
    return y;
}

TEST(SimdExp, WithinTwoUlpOfStdExpFromMinus87To88) {
    std::vector<float> x;
    for (double v = -87.0; v <= 88.0; v += 1.0 / 1024) x.push_back(float(v));
    x.resize(x.size() / 8 * 8);
    const std::vector<float> y = exp8_of(x);
    double worst = 0;
    for (size_t i = 0; i < x.size(); ++i) {
        const double ref = std::exp(double(x[i]));
        const double ulp = std::nextafter(float(ref), std::numeric_limits<float>::infinity()) - float(ref);
        worst = std::max(worst, std::fabs(y[i] - ref) / ulp);
    }
    EXPECT_LE(worst, 2.0);
    std::printf("exp8: worst error %.2f ulp over %zu points in [-87, 88]\n", worst, x.size());
}

TEST(SimdExp, MaskedScoresGiveZeroOverflowInfinityAndNaNStaysNaN) {
    const float inf = std::numeric_limits<float>::infinity();
    const std::vector<float> x = {-inf, std::numeric_limits<float>::lowest(), -1000.f, -87.5f,
                                  89.f, inf, std::nanf(""), 0.f};
    const std::vector<float> y = exp8_of(x);
    EXPECT_EQ(y[0], 0.f);
    EXPECT_EQ(y[1], 0.f);
    EXPECT_EQ(y[2], 0.f);
    EXPECT_EQ(y[3], 0.f);
    EXPECT_EQ(y[4], inf);
    EXPECT_EQ(y[5], inf);
    EXPECT_TRUE(std::isnan(y[6]));
    EXPECT_EQ(y[7], 1.f);
}

TEST(SoftmaxRow, MatchesTheDoublePrecisionSoftmaxAndZeroesMaskedKeys) {
    for (int64_t n : {1, 7, 8, 300, 4099}) {
        SCOPED_TRACE("n " + std::to_string(n));
        std::vector<float> s = gaussian(size_t(n), 5, 4.f);
        for (int64_t j = 3; j < n; j += 7) s[size_t(j)] = std::numeric_limits<float>::lowest();
        std::vector<float> ref(s.size());
        double m = -INFINITY, sum = 0;
        for (float v : s) m = std::max(m, double(v));
        for (size_t j = 0; j < s.size(); ++j) sum += ref[j] = float(std::exp(double(s[j]) - m));
        for (float& r : ref) r = float(r / sum);
        softmax_row(s.data(), n);
        EXPECT_LT(normalized_error(s, ref), 1e-6);
        for (int64_t j = 3; j < n; j += 7) EXPECT_EQ(s[size_t(j)], 0.f);
    }
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
