// NormalDraws: the seeded standard normal draws behind random test weights, `precis bench`
// and the LSG conversion's padding rows.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "engine/core/normal_draws.h"

namespace precis::test {
namespace {

TEST(NormalDraws, TheSameSeedGivesTheSameSequenceAndAnotherSeedDoesNot) {
    NormalDraws a(42), b(42), c(43);
    int differ = 0;
    for (int i = 0; i < 1000; ++i) {
        const double x = a.next();
        EXPECT_EQ(x, b.next());
        differ += x != c.next();
    }
    EXPECT_EQ(differ, 1000);
}

TEST(NormalDraws, HaveMeanZeroVarianceOneAndANormalTail) {
    NormalDraws d(7);
    constexpr int kN = 200000;
    double sum = 0, squares = 0;
    int beyond_two = 0;
    for (int i = 0; i < kN; ++i) {
        const double x = d.next();
        ASSERT_TRUE(std::isfinite(x));
        sum += x;
        squares += x * x;
        beyond_two += std::fabs(x) > 2.0;
    }
    const double mean = sum / kN, variance = squares / kN - mean * mean;
    // Standard errors over 200k draws: mean 0.0022, variance 0.0032, P(|x| > 2) 0.0005.
    EXPECT_NEAR(mean, 0.0, 0.01);
    EXPECT_NEAR(variance, 1.0, 0.015);
    EXPECT_NEAR(double(beyond_two) / kN, 0.0455, 0.003);
}

TEST(NormalDraws, FillWritesTheSameDrawsScaledBySigma) {
    std::vector<float> filled(101);
    NormalDraws(5).fill(filled.data(), int64_t(filled.size()), 0.02f);
    NormalDraws one_by_one(5);
    for (float v : filled) EXPECT_EQ(v, float(one_by_one.next() * 0.02f));
}

}  // namespace
}  // namespace precis::test
