#include <cmath>
#include <string>

#include "engine/attention/attention.h"

namespace precis {

namespace {

uint64_t splitmix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// Uniform in (0, 1], 53 bits.
double uniform01(uint64_t bits) { return (double((bits >> 11) + 1)) * (1.0 / 9007199254740992.0); }

}  // namespace

LshProjections LshProjections::seeded(uint64_t seed) {
    LshProjections p;
    p.seed_ = seed;
    return p;
}

void LshProjections::inject(int layer, int round, Tensor r) {
    check(r.defined() && r.dtype() == DType::F32,
          "LshProjections::inject: layer " + std::to_string(layer) + " round " + std::to_string(round) +
              " needs an F32 tensor");
    const bool five = r.rank() == 5 && r.dim(0) == 1 && r.dim(2) == 1;
    check(five || r.rank() == 3, "LshProjections::inject: expected shape [1, h, 1, hd, n] or [h, hd, n], got " +
                                     shape_str(r.shape()));
    Tensor r3 = five ? r.reshape({r.dim(1), r.dim(3), r.dim(4)}) : r;
    injected_[{layer, round}] = r3;
}

std::vector<float> LshProjections::get(int layer, int round, int heads, int head_dim, int n_hashes) const {
    const size_t n = size_t(heads) * size_t(head_dim) * size_t(n_hashes);
    auto it = injected_.find({layer, round});
    if (it != injected_.end()) {
        const Tensor& t = it->second;
        const Shape want{heads, head_dim, n_hashes};
        check(t.shape() == want, "LshProjections: injected R for layer " + std::to_string(layer) + " round " +
                                     std::to_string(round) + " has shape " + shape_str(t.shape()) +
                                     ", the layer needs " + shape_str(want));
        const float* p = t.data<float>();
        return std::vector<float>(p, p + n);
    }
    // Counter-based N(0,1) (Box-Muller over splitmix64): the same (seed, call, layer, round)
    // gives the same matrix on every platform and thread count.
    uint64_t key = splitmix64(seed_);
    key = splitmix64(key ^ call_);
    key = splitmix64(key ^ (uint64_t(uint32_t(layer)) << 32 | uint32_t(round)));
    std::vector<float> r(n);
    const double two_pi = 6.283185307179586476925286766559;
    for (size_t i = 0; i < n; i += 2) {
        const double u1 = uniform01(splitmix64(key + 2 * i));
        const double u2 = uniform01(splitmix64(key + 2 * i + 1));
        const double rad = std::sqrt(-2.0 * std::log(u1));
        r[i] = float(rad * std::cos(two_pi * u2));
        if (i + 1 < n) r[i + 1] = float(rad * std::sin(two_pi * u2));
    }
    return r;
}

}  // namespace precis
