// The beam step's top 2K: the one-pass selection against a full sort with torch.topk's order
// (higher first, the lower index on ties), over ties, banned (-inf) tokens and tails.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "engine/generate/search.h"

namespace precis {
namespace {

void expect_same_as_sorting(const std::vector<float>& x, int keep) {
    std::vector<int64_t> order(x.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return x[size_t(a)] > x[size_t(b)]; });
    std::vector<float> scores(static_cast<size_t>(keep));
    std::vector<int64_t> indices(static_cast<size_t>(keep));
    top_candidates(x.data(), int64_t(x.size()), keep, scores.data(), indices.data());
    for (int r = 0; r < keep; ++r) {
        EXPECT_EQ(indices[size_t(r)], order[size_t(r)]) << "rank " << r << " of " << keep << ", n " << x.size();
        EXPECT_EQ(scores[size_t(r)], x[size_t(order[size_t(r)])]) << "rank " << r;
    }
}

TEST(TopCandidates, PicksWhatAFullSortWouldInTorchTopkOrder) {
    std::mt19937 gen(3);
    for (int64_t n : {1, 7, 8, 9, 31, 1000, 4 * 50265})
        for (int keep : {1, 2, 8, 10}) {
            if (keep > n) continue;
            std::vector<float> x(static_cast<size_t>(n));
            // Few distinct values: ties everywhere, also across the eight-wide blocks.
            std::uniform_int_distribution<int> level(0, 40);
            for (float& v : x) v = float(level(gen)) * 0.25f - 5.f;
            expect_same_as_sorting(x, keep);
            std::normal_distribution<float> nd(0.f, 3.f);
            for (float& v : x) v = nd(gen);
            expect_same_as_sorting(x, keep);
        }
}

TEST(TopCandidates, BannedTokensComeLastAndAnAllBannedRowKeepsIndexOrder) {
    const float ban = -std::numeric_limits<float>::infinity();
    std::vector<float> x(100, ban);
    x[97] = -3.f;
    x[42] = -1.f;
    expect_same_as_sorting(x, 8);  // 42, 97, then the banned 0, 1, 2, ... in order
    std::fill(x.begin(), x.end(), ban);
    expect_same_as_sorting(x, 8);
}

TEST(TopCandidates, ARowOfNanKeepsItsFirstEntriesSoTheSearchReportsThem) {
    std::vector<float> x(50, std::numeric_limits<float>::quiet_NaN());
    std::vector<float> scores(4);
    std::vector<int64_t> indices(4);
    top_candidates(x.data(), 50, 4, scores.data(), indices.data());
    for (int r = 0; r < 4; ++r) {
        EXPECT_EQ(indices[size_t(r)], r);
        EXPECT_TRUE(std::isnan(scores[size_t(r)]));
    }
}

}  // namespace
}  // namespace precis
