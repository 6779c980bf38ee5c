// Whole-array float <-> half conversions (engine/core/dtype.h) give exactly what the
// scalar conversions give, element for element: ties to even, subnormals, overflow to
// infinity, and lengths that are not a multiple of the vector width or of a thread's block.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "engine/core/dtype.h"
#include "engine/core/tensor.h"

namespace precis::test {
namespace {

std::vector<float> awkward_floats(size_t n) {
    std::vector<float> v{0.f, -0.f, 1.f, -2.5f, 65504.f, 65520.f, 1e6f, -1e6f, 6e-8f, 3e-8f, 1e-10f, 6.1e-5f,
                         std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()};
    // Halfway between two halves: 1 + 2^-11 rounds to 1 (even), 1 + 3 * 2^-11 up to 1 + 2^-9.
    v.push_back(1.f + std::ldexp(1.f, -11));
    v.push_back(1.f + 3 * std::ldexp(1.f, -11));
    std::mt19937 rng(7);
    std::normal_distribution<float> normal(0.f, 0.05f);
    std::uniform_int_distribution<uint32_t> bits(0, 0x7f7fffffu);  // any finite positive float
    while (v.size() < n) {
        uint32_t u = bits(rng);
        float f;
        std::memcpy(&f, &u, 4);
        v.push_back(v.size() % 3 == 0 ? f : normal(rng));
    }
    v.resize(n);
    return v;
}

TEST(HalfConversion, ArrayNarrowingMatchesTheScalarRoundingBitForBit) {
    for (size_t n : {size_t(1), size_t(7), size_t(8), size_t(13), size_t(65536 * 2 + 5)}) {
        const std::vector<float> in = awkward_floats(n);
        std::vector<uint16_t> out(n);
        halves_from_floats(in.data(), out.data(), int64_t(n));
        for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], float_to_half(in[i])) << "n " << n << " element " << i << " = " << in[i];
    }
}

TEST(HalfConversion, ArrayWideningMatchesTheScalarOneForEveryHalf) {
    std::vector<uint16_t> all(65536);
    for (size_t i = 0; i < all.size(); ++i) all[i] = uint16_t(i);
    std::vector<float> out(all.size());
    floats_from_halves(all.data(), out.data(), int64_t(all.size()));
    for (size_t i = 0; i < all.size(); ++i) {
        const float want = half_to_float(all[i]);
        if (std::isnan(want)) {
            EXPECT_TRUE(std::isnan(out[i])) << i;
        } else {
            ASSERT_EQ(out[i], want) << "half 0x" << std::hex << i;
        }
    }
}

TEST(HalfConversion, TensorConversionUsesTheSameRounding) {
    const std::vector<float> in = awkward_floats(1000);
    Tensor t = Tensor::empty(DType::F32, {10, 100});
    std::memcpy(t.data<float>(), in.data(), in.size() * sizeof(float));
    const Tensor h = t.to(DType::F16);
    for (size_t i = 0; i < in.size(); ++i) ASSERT_EQ(h.data<uint16_t>()[i], float_to_half(in[i])) << i;
    const Tensor back = h.to_f32();
    for (size_t i = 0; i < in.size(); ++i)
        if (!std::isnan(in[i])) ASSERT_EQ(back.data<float>()[i], half_to_float(float_to_half(in[i]))) << i;
}

}  // namespace
}  // namespace precis::test
