// GELU (engine/backend/gelu.h): the eight-lane form gives the scalar form's bits for every
// input, so the int8 product's fused GELU, the backend's threaded pass and any tail agree;
// and both stay within a few float32 roundings of 0.5 x (1 + erf(x / sqrt 2)).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "engine/backend/backend.h"
#include "engine/backend/gelu.h"
#include "tests/support/numeric.h"

namespace precis::test {
namespace {

uint32_t bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

// Every kind of input: a fine sweep over the curved part, the clamp's edges (+-4 sqrt 2),
// signed zeros, subnormals, huge values, infinities and NaN.
std::vector<float> awkward_inputs() {
    std::vector<float> v;
    for (int i = -20000; i <= 20000; ++i) v.push_back(float(i) * 5e-4f);
    const float edge = 4.f * std::sqrt(2.f);
    for (float e : {edge, -edge})
        for (int k = -3; k <= 3; ++k) v.push_back(std::nextafter(e, e + float(k)));
    const float inf = std::numeric_limits<float>::infinity();
    for (float s : {1.f, -1.f})
        for (float m : {0.f, std::numeric_limits<float>::denorm_min(), 1e-30f, 1e-3f, 30.f, 1e10f,
                        std::numeric_limits<float>::max(), inf})
            v.push_back(s * m);
    v.push_back(std::numeric_limits<float>::quiet_NaN());
    return v;
}

TEST(Gelu, EightLanesGiveTheScalarBitsForEveryInput) {
    const std::vector<float> in = awkward_inputs();
    // Every length up to 40 puts each input once through the lanes and once through a tail.
    for (size_t len : {size_t(1), size_t(7), size_t(8), size_t(9), size_t(40), in.size()}) {
        for (size_t start = 0; start + len <= in.size(); start += std::max<size_t>(len, 997)) {
            std::vector<float> x(in.begin() + long(start), in.begin() + long(start + len));
            gelu_in_place(x.data(), int64_t(x.size()));
            for (size_t i = 0; i < len; ++i) {
                const float want = gelu_erf(in[start + i]);
                if (std::isnan(want))
                    EXPECT_TRUE(std::isnan(x[i])) << "input " << in[start + i];
                else
                    EXPECT_EQ(bits(x[i]), bits(want)) << "input " << in[start + i] << " length " << len;
            }
        }
    }
}

TEST(Gelu, StaysWithinAFewRoundingsOfTheErfDefinition) {
    double worst = 0;
    for (float x : awkward_inputs()) {
        if (!std::isfinite(x) || std::fabs(x) > 1e6f) continue;
        const double exact = 0.5 * double(x) * (1.0 + std::erf(double(x) / std::sqrt(2.0)));
        // Relative to the size of x: GELU passes x through for large x and tends to 0 below.
        const double err = std::fabs(double(gelu_erf(x)) - exact) / std::max(1.0, std::fabs(double(x)));
        worst = std::max(worst, err);
    }
    EXPECT_LT(worst, 4 * double(std::numeric_limits<float>::epsilon())) << worst;
}

TEST(Gelu, PassesNaNAndInfinityOn) {
    const float inf = std::numeric_limits<float>::infinity();
    EXPECT_TRUE(std::isnan(gelu_erf(std::numeric_limits<float>::quiet_NaN())));
    EXPECT_EQ(gelu_erf(inf), inf);
    EXPECT_EQ(gelu_erf(0.f), 0.f);
}

TEST(Gelu, TheBackendsThreadedPassGivesTheSameBits) {
    set_cpu_threads(2);
    auto be = make_cpu_backend();
    // Over four chunks, so the pass is split over threads; an odd length leaves a tail.
    std::vector<float> x = gaussian(70001, 11, 3.f), want = x;
    for (float& v : want) v = gelu_erf(v);
    be->gelu(x.data(), int64_t(x.size()));
    for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(bits(x[i]), bits(want[i])) << i;
}

}  // namespace
}  // namespace precis::test
