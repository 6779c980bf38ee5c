// The AVX-512 path of the decoder's float32 attention (attend_float_zmm.cpp) against the
// 256-bit blocks it replaces for four to sixteen queries: the same scores, weights and
// outputs up to summation order (~1e-6), over query counts on both sides of its groups of
// four, key counts on both sides of its tiles of sixteen, head widths of one to four
// 64-float slices, rows strided as heads sit side by side, key and causal masks and the
// weight sink. A query's bits must not depend on the queries beside it in the call (a
// document's beams batched or alone), and the kernel must decline what it does not serve.
// Keys stored as tiles of sixteen (the fp32 cross-attention memory) give any number of
// queries, one to many, what keys as rows give.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <tuple>
#include <utility>

#include "engine/backend/lowp_linear.h"
#include "engine/model/attend.h"
#include "tests/support/numeric.h"

namespace precis::test {
namespace {

struct Problem {
    int64_t nq, nk, hd, ld;
    std::vector<float> q, k, v, mask;

    Problem(int64_t nq_, int64_t nk_, int64_t hd_)
        : nq(nq_), nk(nk_), hd(hd_), ld(hd_ + 16),  // rows further apart than one head
          q(gaussian(size_t(nq_ * ld), 11)),
          k(gaussian(size_t(nk_ * ld), 12)),
          v(gaussian(size_t(nk_ * ld), 13)),
          mask(size_t(nk_), 0.f) {
        for (int64_t j = 1; j < nk; j += 5) mask[size_t(j)] = std::numeric_limits<float>::lowest();
    }

    // The keys as AttendArgs::k_tiles holds them, on a cache line, lanes past nk zero.
    const float* key_tiles() {
        const int64_t tiles = (nk + 15) / 16;
        tile_store.assign(size_t(tiles * 16 * hd + 16), std::numeric_limits<float>::quiet_NaN());
        float* t = tile_store.data() + (16 - reinterpret_cast<uintptr_t>(tile_store.data()) / 4 % 16) % 16;
        for (int64_t j = 0; j < tiles * 16; ++j)
            for (int64_t c = 0; c < hd; ++c) t[(j / 16) * 16 * hd + c * 16 + j % 16] = j < nk ? k[size_t(j * ld + c)] : 0.f;
        return t;
    }
    std::vector<float> tile_store;

    // Queries [first, first + count) of the problem, their outputs and summed weights.
    AttendArgs args(int64_t first, int64_t count, int64_t causal_offset, std::vector<float>& out,
                    std::vector<float>& sink) {
        out.assign(size_t(count * ld), -7.f);  // every output element must be written
        sink.assign(size_t(nk), 0.f);
        AttendArgs a;
        a.q = q.data() + first * ld; a.ldq = ld;
        a.k = k.data(); a.ldk = ld; a.v = v.data(); a.ldv = ld;
        a.nq = count; a.nk = nk; a.hd = hd; a.scale = 0.125f;
        a.key_mask = mask.data();
        a.causal_offset = causal_offset;
        a.out = out.data(); a.ldo = ld;
        a.weight_sink = sink.data();
        return a;
    }
};

// Outputs and summed weights as the blocks path's up to summation order, and nothing
// written past each query's head.
void expect_as_the_blocks(const Problem& p, const std::vector<float>& out, const std::vector<float>& sink,
                          const std::vector<float>& ref_out, const std::vector<float>& ref_sink) {
    for (int64_t i = 0; i < p.nq; ++i)
        for (int64_t c = 0; c < p.ld; ++c) {
            const size_t at = size_t(i * p.ld + c);
            if (c < p.hd)
                EXPECT_NEAR(out[at], ref_out[at], 2e-6f + 2e-6f * std::fabs(ref_out[at])) << "query " << i << " dim " << c;
            else
                EXPECT_EQ(out[at], -7.f) << "wrote past the head, query " << i << " column " << c;
        }
    for (int64_t j = 0; j < p.nk; ++j) EXPECT_NEAR(sink[size_t(j)], ref_sink[size_t(j)], 2e-6f) << "key " << j;
}

using Shape = std::tuple<int64_t, int64_t, int64_t, bool>;  // nq, nk, hd, causal

class AttendFloatZmm : public ::testing::TestWithParam<Shape> {
protected:
    void SetUp() override {
        if (!fp32_zmm_kernels()) GTEST_SKIP() << "this CPU has no AVX-512 (or PRECIS_NO_ZMM is set)";
    }
};

TEST_P(AttendFloatZmm, MatchesTheBlocksPathOnTheSameKeysAndValues) {
    const auto [nq, nk, hd, causal] = GetParam();
    Problem p(nq, nk, hd);
    // Causal: the queries are the last nq of nk positions, as a few new tokens' self-attention.
    const int64_t offset = causal ? nk - nq : -1;
    std::vector<float> out, sink, ref_out, ref_sink, scratch;
    ASSERT_TRUE(attend_float_zmm(p.args(0, nq, offset, out, sink), scratch));
    attend_float_blocks(p.args(0, nq, offset, ref_out, ref_sink), scratch);
    expect_as_the_blocks(p, out, sink, ref_out, ref_sink);
    for (int64_t j = 1; j < nk; j += 5) EXPECT_EQ(sink[size_t(j)], 0.f) << "masked key " << j;
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, AttendFloatZmm,
    ::testing::Values(Shape{4, 1, 64, false}, Shape{4, 15, 64, false}, Shape{4, 16, 64, false},
                      Shape{4, 17, 64, false}, Shape{4, 300, 64, false}, Shape{5, 300, 64, false},
                      Shape{5, 33, 16, false}, Shape{7, 129, 96, false}, Shape{8, 50, 128, false},
                      Shape{16, 200, 64, false}, Shape{6, 40, 256, false}, Shape{4, 64, 80, false},
                      Shape{4, 40, 64, true}, Shape{9, 70, 64, true}));

TEST(AttendFloatZmmBits, AQueryGetsTheSameBitsWhicheverQueriesShareTheCall) {
    if (!fp32_zmm_kernels()) GTEST_SKIP() << "this CPU has no AVX-512 (or PRECIS_NO_ZMM is set)";
    Problem p(9, 301, 64);
    std::vector<float> all, sink, part, part_sink, scratch;
    ASSERT_TRUE(attend_float_zmm(p.args(0, 9, -1, all, sink), scratch));
    // The call of nine groups its queries 0-3, 4-7 and 8 alone; here queries 1-4 and 5-8 are
    // grouped instead, so every query has other neighbours and query 8 leaves its group of one.
    for (const auto [first, count] : {std::pair<int64_t, int64_t>{1, 4}, {5, 4}}) {
        ASSERT_TRUE(attend_float_zmm(p.args(first, count, -1, part, part_sink), scratch));
        for (int64_t r = 0; r < count; ++r)
            for (int64_t c = 0; c < p.hd; ++c)
                ASSERT_EQ(part[size_t(r * p.ld + c)], all[size_t((first + r) * p.ld + c)]) << "query " << first + r;
    }
}

class AttendFloatKeyTiles : public AttendFloatZmm {};

TEST_P(AttendFloatKeyTiles, GiveAnyNumberOfQueriesWhatKeysAsRowsGive) {
    const auto [nq, nk, hd, causal] = GetParam();
    Problem p(nq, nk, hd);
    const int64_t offset = causal ? nk - nq : -1;
    std::vector<float> out, sink, ref_out, ref_sink, rows_out, rows_sink, scratch;
    AttendArgs tiled = p.args(0, nq, offset, out, sink);
    tiled.k = nullptr;
    tiled.k_tiles = p.key_tiles();
    ASSERT_TRUE(attend_float_zmm(tiled, scratch));
    attend_float_blocks(p.args(0, nq, offset, ref_out, ref_sink), scratch);
    expect_as_the_blocks(p, out, sink, ref_out, ref_sink);
    // From four queries on, keys as rows take the same arithmetic: the same bits.
    if (nq >= 4) {
        ASSERT_TRUE(attend_float_zmm(p.args(0, nq, offset, rows_out, rows_sink), scratch));
        EXPECT_EQ(out, rows_out);
        EXPECT_EQ(sink, rows_sink);
    }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, AttendFloatKeyTiles,
    ::testing::Values(Shape{1, 1, 64, false}, Shape{1, 15, 64, false}, Shape{1, 300, 64, false},
                      Shape{2, 17, 64, false}, Shape{3, 33, 16, false}, Shape{4, 16, 64, false},
                      Shape{5, 300, 64, false}, Shape{7, 129, 96, false}, Shape{8, 50, 128, false},
                      Shape{6, 40, 256, false}, Shape{1, 64, 80, false}, Shape{16, 200, 64, false},
                      Shape{2, 40, 64, true}));

TEST(AttendFloatKeyTilesMany, AWholeTargetAtOnceGetsWhatKeysAsRowsGive) {
    if (!float_key_tiles_apply(64)) GTEST_SKIP() << "this CPU has no AVX-512 (or PRECIS_NO_ZMM is set)";
    // 24 queries over 300 keys: attend() takes its two matrix products, from the keys
    // put back as rows.
    Problem p(24, 300, 64);
    std::vector<float> out, sink, ref_out, ref_sink, scratch;
    AttendArgs tiled = p.args(0, 24, -1, out, sink);
    tiled.k = nullptr;
    tiled.k_tiles = p.key_tiles();
    attend(tiled, scratch);
    attend(p.args(0, 24, -1, ref_out, ref_sink), scratch);
    // The same products over the same keys, only their rows' stride differs.
    EXPECT_LE(normalized_error(out, ref_out), 1e-6);
    EXPECT_LE(normalized_error(sink, ref_sink), 1e-6);
}

TEST(AttendFloatZmmBits, DeclinesWhatItDoesNotServe) {
    std::vector<float> out, sink, scratch;
    Problem three(3, 40, 64), odd(4, 40, 24), wide(4, 8, 272);
    EXPECT_FALSE(attend_float_zmm(three.args(0, 1, -1, out, sink), scratch));  // greedy: the blocks path
    EXPECT_FALSE(attend_float_zmm(three.args(0, 3, -1, out, sink), scratch));  // under four queries
    EXPECT_FALSE(attend_float_zmm(odd.args(0, 4, -1, out, sink), scratch));  // not a multiple of 16
    EXPECT_FALSE(attend_float_zmm(wide.args(0, 4, -1, out, sink), scratch));  // over 256
    EXPECT_EQ(out, std::vector<float>(size_t(4 * wide.ld), -7.f)) << "declined, yet wrote";
}

}  // namespace
}  // namespace precis::test
