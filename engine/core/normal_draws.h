#pragma once
// Standard normal draws from a seed: Box-Muller over a 64-bit Mersenne twister, two draws per
// pair of uniforms. Used wherever Precis makes random numbers it must be able to make again:
// the LSG conversion's padding rows, random weights for tests and `precis bench`.
//
// Why not std::normal_distribution: its sequence differs between standard libraries, and
// libstdc++'s draws each uniform through generate_canonical, which takes a long double
// logarithm per call. Drawing the numbers was most of the time of the tests that build
// bart-base-shaped random weights: under the sanitizers the int8 encoder test took 66 s with
// it and 24 s with this.
#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>

namespace precis {

class NormalDraws {
public:
    explicit NormalDraws(uint64_t seed) : gen_(seed) {}

    // The next standard normal draw (mean 0, standard deviation 1).
    double next() {
        if (have_spare_) {
            have_spare_ = false;
            return spare_;
        }
        const double u1 = (double(gen_() >> 11) + 1.0) * 0x1.0p-53;  // (0, 1]: log(u1) is finite
        const double u2 = double(gen_() >> 11) * 0x1.0p-53;          // [0, 1)
        const double r = std::sqrt(-2.0 * std::log(u1));
        spare_ = r * std::sin(2.0 * std::numbers::pi * u2);
        have_spare_ = true;
        return r * std::cos(2.0 * std::numbers::pi * u2);
    }

    // n draws scaled by sigma, written to out as float32.
    void fill(float* out, int64_t n, float sigma) {
        for (int64_t i = 0; i < n; ++i) out[i] = float(next() * sigma);
    }

private:
    std::mt19937_64 gen_;
    bool have_spare_ = false;
    double spare_ = 0;
};

}  // namespace precis
