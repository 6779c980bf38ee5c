#pragma once
// Numeric helpers shared by the kernel and compute-type tests: seeded normal draws and the
// normalized error ||y - ref|| / ||ref|| the issue bounds are stated in.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace precis::test {

inline std::vector<float> gaussian(size_t n, uint32_t seed, float sigma = 1.f) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> d(0.f, sigma);
    std::vector<float> v(n);
    for (float& x : v) x = d(rng);
    return v;
}

// Over every element: a NaN or Inf in `y` makes the error NaN, which fails any bound.
inline double normalized_error(const std::vector<float>& y, const std::vector<float>& ref) {
    double num = 0, den = 0;
    for (size_t i = 0; i < y.size(); ++i) {
        num += (double(y[i]) - ref[i]) * (double(y[i]) - ref[i]);
        den += double(ref[i]) * ref[i];
    }
    return std::sqrt(num / std::max(den, 1e-30));
}

}  // namespace precis::test
