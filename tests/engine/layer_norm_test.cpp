// The CPU backend's layer norm (add_layer_norm) normalizes rows in groups of eight whose
// sums run side by side: a row gets the same bits in a group as alone, wherever it sits and
// whichever rows share its call (a batch of documents relies on it), and stays within
// float32 rounding of a double reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "engine/backend/backend.h"
#include "tests/support/numeric.h"

namespace precis::test {
namespace {

TEST(CpuLayerNorm, ARowGetsTheSameBitsInAnyGroupAsAlone) {
    auto be = make_cpu_backend();
    for (const int64_t dim : {37, 768})
        for (const bool with_delta : {false, true}) {
            // Up to 100 rows (a decoder step of 16 documents x 4 beams is 64): whole groups of
            // eight, a group and a tail, tails alone, and enough for the threaded loop.
            const int64_t most = 100;
            const std::vector<float> x = gaussian(size_t(most * dim), 7), delta = gaussian(size_t(most * dim), 8),
                                     gamma = gaussian(size_t(dim), 9, 0.5f), beta = gaussian(size_t(dim), 10, 0.5f);
            std::vector<float> alone(x.size());
            for (int64_t r = 0; r < most; ++r) {
                std::copy(x.begin() + r * dim, x.begin() + (r + 1) * dim, alone.begin() + r * dim);
                be->add_layer_norm(alone.data() + r * dim, with_delta ? delta.data() + r * dim : nullptr, 1, dim,
                                   gamma.data(), beta.data(), 1e-5f);
            }
            for (const int64_t rows : {2, 7, 8, 9, 16, 19, 64, 100})
                for (const int64_t first : {int64_t(0), std::min<int64_t>(3, most - rows), most - rows}) {
                    SCOPED_TRACE(::testing::Message() << "dim " << dim << " delta " << with_delta << ", " << rows
                                                      << " rows from row " << first);
                    std::vector<float> y(x.begin() + first * dim, x.begin() + (first + rows) * dim);
                    be->add_layer_norm(y.data(), with_delta ? delta.data() + first * dim : nullptr, rows, dim,
                                       gamma.data(), beta.data(), 1e-5f);
                    EXPECT_EQ(0, std::memcmp(y.data(), alone.data() + first * dim, y.size() * sizeof(float)));
                }
            std::vector<float> summed = x;
            if (with_delta)
                for (size_t i = 0; i < summed.size(); ++i) summed[i] += delta[i];
            EXPECT_LT(normalized_error(alone, layer_norm_f64(summed, most, dim, gamma, beta, 1e-5)), 1e-6)
                << "dim " << dim;
        }
}

}  // namespace
}  // namespace precis::test
