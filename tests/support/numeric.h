#pragma once
// Numeric helpers shared by the kernel and compute-type tests: seeded normal draws and the
// normalized error ||y - ref|| / ||ref|| the issue bounds are stated in.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "engine/core/normal_draws.h"

namespace precis::test {

inline std::vector<float> gaussian(size_t n, uint32_t seed, float sigma = 1.f) {
    std::vector<float> v(n);
    NormalDraws(seed).fill(v.data(), int64_t(n), sigma);
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

// LayerNorm of each `dim`-wide row in double (the CPU backend sums in float32, in order):
// the reference where float32 sums are not accurate to the bound themselves (a sum of
// squares over thousands of elements, a row whose common offset leaves rounding in the mean).
inline std::vector<float> layer_norm_f64(const std::vector<float>& x, int64_t rows, int64_t dim,
                                         const std::vector<float>& gamma, const std::vector<float>& beta, double eps) {
    std::vector<float> y(x.size());
    for (int64_t r = 0; r < rows; ++r) {
        const float* xr = x.data() + r * dim;
        double mean = 0, var = 0;
        for (int64_t i = 0; i < dim; ++i) mean += xr[i];
        mean /= double(dim);
        for (int64_t i = 0; i < dim; ++i) var += (xr[i] - mean) * (xr[i] - mean);
        var /= double(dim);
        const double inv = 1.0 / std::sqrt(var + eps);
        for (int64_t i = 0; i < dim; ++i) y[size_t(r * dim + i)] = float((xr[i] - mean) * inv * gamma[i] + beta[i]);
    }
    return y;
}

}  // namespace precis::test
