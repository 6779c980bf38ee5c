// The fused float32 block attention (AVX-512) against a double reference and against the
// two-sgemm path it replaces, over head widths, row and key tails, several segments, masks
// and the all-masked row, with and without a capture of its weights; and a row's bits
// whichever rows share its block.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "engine/attention/attention_kernels.h"
#include "engine/attention/fp32_block_attention.h"
#include "tests/engine/attention_test_util.h"

namespace precis::test {
namespace {

using attn_detail::BlockScratch;
using attn_detail::KeySegment;

bool served(int hd) { return attn_detail::fp32_block_attention_serves(hd); }

// Segments over rows of x for head h: [begin, begin + count) each, with masks from `mask`
// (indexed by row; empty = none).
struct Segments {
    std::vector<KeySegment> segs;
    std::vector<RefKey> keys;
};

Segments segments_of(const RandomQkv& x, int h, const std::vector<std::pair<int, int>>& runs,
                     const std::vector<float>& mask) {
    Segments s;
    for (auto [begin, count] : runs) {
        s.segs.push_back({x.krow(begin, h), x.vrow(begin, h), x.D(), count, mask.empty() ? nullptr : mask.data() + begin});
        for (int j = begin; j < begin + count; ++j)
            s.keys.push_back(ref_key_from_row(x, j, h, mask.empty() ? 0.0 : double(mask[size_t(j)])));
    }
    return s;
}

// Largest difference of the fused kernel to the double reference and to the sgemm path, in
// the outputs and in the weights a capture gets. On these inputs (scores of a few units) both
// paths lie up to ~2e-6 from the reference: the bounds are twice that.
struct Diffs {
    double to_reference = 0, to_sgemm = 0, weights_to_sgemm = 0;
};

Diffs run_block(const RandomQkv& x, int h, int q0, int nq, const Segments& s) {
    const int D = x.D(), hd = x.hd;
    const float scale = 1.0f / std::sqrt(float(hd));
    std::vector<float> fused(size_t(x.rows) * D, -7.f), plain(size_t(x.rows) * D, -7.f), weights;
    BlockScratch scratch;
    attn_detail::fp32_block_attention(x.qrow(q0, h), D, nq, s.segs.data(), int(s.segs.size()), hd, scale,
                                      fused.data() + size_t(q0) * D + size_t(h) * hd, D, scratch);
    std::vector<float> captured(fused.size()), fused_weights, plain_weights;
    attn_detail::fp32_block_attention(x.qrow(q0, h), D, nq, s.segs.data(), int(s.segs.size()), hd, scale,
                                      captured.data() + size_t(q0) * D + size_t(h) * hd, D, scratch, &fused_weights);
    attn_detail::sgemm_block_attention(x.qrow(q0, h), D, nq, s.segs.data(), int(s.segs.size()), hd, scale,
                                       plain.data() + size_t(q0) * D + size_t(h) * hd, D, scratch, &plain_weights);
    Diffs d;
    // A capture changes no output bit, and its weights are those of the sgemm path.
    for (int r = q0; r < q0 + nq; ++r)
        EXPECT_EQ(0, std::memcmp(fused.data() + size_t(r) * D + size_t(h) * hd,
                                 captured.data() + size_t(r) * D + size_t(h) * hd, sizeof(float) * size_t(hd)))
            << "row " << r;
    EXPECT_EQ(fused_weights.size(), plain_weights.size());
    for (size_t i = 0; i < std::min(fused_weights.size(), plain_weights.size()); ++i)
        d.weights_to_sgemm = std::max(d.weights_to_sgemm, double(std::abs(fused_weights[i] - plain_weights[i])));
    for (int r = q0; r < q0 + nq; ++r) {
        d.to_reference = std::max(d.to_reference, row_diff(fused, D, r, h, hd, ref_attend(x.qrow(r, h), hd, s.keys)));
        for (int c = 0; c < hd; ++c) {
            const size_t i = size_t(r) * D + size_t(h) * hd + size_t(c);
            d.to_sgemm = std::max(d.to_sgemm, double(std::abs(fused[i] - plain[i])));
        }
    }
    // Nothing outside the block's rows and head is written.
    for (int r = 0; r < x.rows; ++r)
        for (int c = 0; c < D; ++c) {
            const bool inside = r >= q0 && r < q0 + nq && c >= h * hd && c < (h + 1) * hd;
            if (!inside) EXPECT_EQ(fused[size_t(r) * D + size_t(c)], -7.f) << "row " << r << " column " << c;
        }
    return d;
}

TEST(Fp32BlockAttention, MatchesADoubleReferenceAndTheSgemmPathOverWidthsAndTails) {
    for (int hd : {16, 32, 48, 64}) {
        if (!served(hd)) GTEST_SKIP() << "no AVX-512 here (or PRECIS_NO_ZMM): the kernel is not used";
        for (int nq : {1, 3, 8, 9, 13, 64, 71})
            for (int keys : {1, 15, 16, 17, 31, 32, 33, 100, 300}) {
                const int rows = std::max(nq, keys);
                RandomQkv x = random_qkv(rows, 2, hd, uint32_t(hd * 1000 + nq * 31 + keys));
                const Segments s = segments_of(x, 1, {{0, keys}}, {});
                const Diffs d = run_block(x, 1, 0, nq, s);
                EXPECT_LT(d.to_reference, 4e-6) << "hd " << hd << " nq " << nq << " keys " << keys;
                EXPECT_LT(d.to_sgemm, 4e-6) << "hd " << hd << " nq " << nq << " keys " << keys;
                EXPECT_LT(d.weights_to_sgemm, 1e-6) << "hd " << hd << " nq " << nq << " keys " << keys;
            }
    }
}

TEST(Fp32BlockAttention, ConcatenatesSegmentsWithTheirMasksAsLsgBlocksDo) {
    if (!served(64)) GTEST_SKIP() << "no AVX-512 here";
    RandomQkv x = random_qkv(700, 3, 64, 5);
    std::vector<float> mask = token_mask_with_padding(700, 40, {0, 3, 129, 300});
    // globals, two sparse runs, an empty segment and a local window of three blocks
    const Segments s = segments_of(x, 2, {{0, 2}, {150, 16}, {400, 0}, {610, 16}, {256, 384}}, mask);
    const Diffs d = run_block(x, 2, 384, 128, s);
    EXPECT_LT(d.to_reference, 4e-6);
    EXPECT_LT(d.to_sgemm, 4e-6);
    EXPECT_LT(d.weights_to_sgemm, 1e-6);
}

TEST(Fp32BlockAttention, AGlobalRowOverSixteenThousandKeysKeepsItsPrecision) {
    if (!served(64)) GTEST_SKIP() << "no AVX-512 here";
    RandomQkv x = random_qkv(16384, 1, 64, 9, 0.3f);
    const Segments s = segments_of(x, 0, {{0, 16384}}, {});
    const Diffs d = run_block(x, 0, 0, 2, s);
    EXPECT_LT(d.to_reference, 4e-6);
}

TEST(Fp32BlockAttention, AllKeysMaskedAveragesUniformlyOverTheRealKeysOnly) {
    if (!served(32)) GTEST_SKIP() << "no AVX-512 here";
    // 19 keys: the panel is padded to 32 columns, which must not join the average.
    RandomQkv x = random_qkv(19, 1, 32, 4);
    std::vector<float> mask(19, kMin);
    const Segments s = segments_of(x, 0, {{0, 19}}, mask);
    const Diffs d = run_block(x, 0, 0, 5, s);
    EXPECT_LT(d.to_reference, 1e-6);
    EXPECT_LT(d.to_sgemm, 1e-6);
}

TEST(Fp32BlockAttention, ARowGetsTheSameBitsWhicheverRowsShareItsBlock) {
    if (!served(64)) GTEST_SKIP() << "no AVX-512 here";
    RandomQkv x = random_qkv(90, 1, 64, 21);
    const Segments s = segments_of(x, 0, {{0, 90}}, {});
    const float scale = 0.125f;
    BlockScratch scratch;
    std::vector<float> all(size_t(90) * 64), alone(64);
    attn_detail::fp32_block_attention(x.qrow(0, 0), 64, 90, s.segs.data(), 1, 64, scale, all.data(), 64, scratch);
    for (int r : {0, 7, 8, 45, 89}) {
        attn_detail::fp32_block_attention(x.qrow(r, 0), 64, 1, s.segs.data(), 1, 64, scale, alone.data(), 64, scratch);
        EXPECT_EQ(0, std::memcmp(alone.data(), all.data() + size_t(r) * 64, 64 * sizeof(float))) << "row " << r;
    }
}

TEST(BlockAttention, NoKeysGiveZerosAndEmptyWeightsWhicheverKernelServes) {
    // Shared by both kernels: a block whose segments are all empty (an LSG block cannot be,
    // it always sees its global tokens) is defined as zeros.
    for (int hd : {12, 64}) {  // the sgemm path, and the fused one where the CPU has it
        RandomQkv x = random_qkv(4, 1, hd, 2);
        const Segments s = segments_of(x, 0, {{0, 0}, {2, 0}}, {});
        std::vector<float> out(size_t(4) * size_t(hd), -7.f), weights(3, 1.f);
        BlockScratch scratch;
        attn_detail::block_attention(x.qrow(0, 0), hd, 4, s.segs.data(), 2, hd, 0.1f, out.data(), hd, scratch, &weights);
        for (float v : out) EXPECT_EQ(v, 0.f) << "hd " << hd;
        EXPECT_TRUE(weights.empty()) << "hd " << hd;
    }
}

TEST(Fp32BlockAttention, ServesOnlyWidthsItHasKernelsFor) {
    for (int hd : {8, 12, 80, 128}) EXPECT_FALSE(attn_detail::fp32_block_attention_serves(hd)) << hd;
}

}  // namespace
}  // namespace precis::test
