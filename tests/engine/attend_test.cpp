// The decoder's attention primitive on both paths it takes (a block of keys at a time for
// a step's few queries, vectorized or, at head widths that are not a multiple of 8, one
// element at a time; two matrix products for many queries), against a direct double
// computation.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "engine/model/attend.h"

namespace precis {
namespace {

void check_against_naive(int64_t nq, int64_t nk, int64_t causal_offset, bool masked, int64_t hd = 16) {
    const int64_t ld = 3 * hd;  // strided like one head inside a [rows, D] matrix
    std::mt19937 rng(unsigned(nq * 1000 + nk));
    std::normal_distribution<float> n(0.f, 1.f);
    std::vector<float> q(size_t(nq * ld)), k(size_t(nk * ld)), v(size_t(nk * ld)), mask(size_t(nk), 0.f);
    for (auto* vec : {&q, &k, &v})
        for (float& x : *vec) x = n(rng);
    if (masked)
        for (int64_t j = 0; j < nk; j += 3) mask[size_t(j)] = std::numeric_limits<float>::lowest();
    std::vector<float> out(size_t(nq * ld), 0.f), sink(size_t(nk), 0.f), scratch;
    AttendArgs a;
    a.q = q.data(); a.ldq = ld; a.k = k.data(); a.ldk = ld; a.v = v.data(); a.ldv = ld;
    a.nq = nq; a.nk = nk; a.hd = hd; a.scale = 0.25f;
    a.key_mask = masked ? mask.data() : nullptr;
    a.causal_offset = causal_offset;
    a.out = out.data(); a.ldo = ld;
    a.weight_sink = sink.data();
    attend(a, scratch);
    std::vector<double> sink_ref(static_cast<size_t>(nk), 0.0);
    for (int64_t i = 0; i < nq; ++i) {
        std::vector<double> w(static_cast<size_t>(nk));
        double mx = -1e300;
        for (int64_t j = 0; j < nk; ++j) {
            double d = 0;
            for (int64_t c = 0; c < hd; ++c) d += double(q[size_t(i * ld + c)]) * k[size_t(j * ld + c)];
            const bool hidden = (masked && j % 3 == 0) || (causal_offset >= 0 && j > causal_offset + i);
            w[size_t(j)] = hidden ? -1e300 : d * 0.25;
            mx = std::max(mx, w[size_t(j)]);
        }
        double sum = 0;
        for (auto& x : w) sum += x = (x <= -1e299 ? 0.0 : std::exp(x - mx));
        for (int64_t c = 0; c < hd; ++c) {
            double o = 0;
            for (int64_t j = 0; j < nk; ++j) o += w[size_t(j)] / sum * v[size_t(j * ld + c)];
            EXPECT_NEAR(out[size_t(i * ld + c)], o, 1e-5) << "query " << i << " dim " << c;
        }
        for (int64_t j = 0; j < nk; ++j) sink_ref[size_t(j)] += w[size_t(j)] / sum;
    }
    for (int64_t j = 0; j < nk; ++j) EXPECT_NEAR(sink[size_t(j)], sink_ref[size_t(j)], 1e-5);
}

TEST(Attend, OneQueryOverFewKeysMatchesTheDirectComputation) { check_against_naive(1, 40, -1, true); }
TEST(Attend, OneQueryOverManyKeysGoesBlockByBlockAndMatches) { check_against_naive(1, 700, -1, true); }
TEST(Attend, OneQueryOverManyKeysAtAnOddHeadWidthMatches) {
    check_against_naive(1, 700, -1, true, 12);
}
TEST(Attend, ManyQueriesCausalTakesTheGemmPathAndMatches) { check_against_naive(90, 120, 30, false); }
TEST(Attend, FewQueriesWithCausalOffsetMatch) { check_against_naive(3, 12, 9, false); }
// A beam-4 step's cross-attention: several blocks of 64 keys and a partial one, at
// bart's head width (the values accumulated in eight registers).
TEST(Attend, BeamQueriesOverManyKeysGoBlockByBlockAndMatch) { check_against_naive(4, 300, -1, true, 64); }
TEST(Attend, FewQueriesAtAHeadWidthNotAMultipleOfEightMatch) { check_against_naive(3, 70, 60, true, 12); }

}  // namespace
}  // namespace precis
