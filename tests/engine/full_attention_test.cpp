// full_attention against a naive double-precision reference.
#include <gtest/gtest.h>

#include "engine/attention/attention.h"
#include "tests/engine/attention_test_util.h"

namespace precis::test {
namespace {

void expect_full_matches_naive(int rows, int heads, int hd, const std::vector<float>* mask, uint32_t seed) {
    RandomQkv x = random_qkv(rows, heads, hd, seed);
    std::vector<float> out(size_t(rows) * x.D(), -1.0f);
    full_attention(x.input(), mask ? mask->data() : nullptr, out.data());
    double worst = 0;
    for (int r = 0; r < rows; ++r)
        for (int h = 0; h < heads; ++h) {
            std::vector<RefKey> keys;
            for (int j = 0; j < rows; ++j) keys.push_back(ref_key_from_row(x, j, h, mask ? (*mask)[size_t(j)] : 0.0));
            worst = std::max(worst, row_diff(out, x.D(), r, h, hd, ref_attend(x.qrow(r, h), hd, keys)));
        }
    EXPECT_LT(worst, 2e-5) << "rows " << rows << " heads " << heads << " hd " << hd;
}

TEST(FullAttention, MatchesNaiveWithoutMask) {
    for (int rows : {1, 7, 64, 65, 130}) expect_full_matches_naive(rows, 3, 8, nullptr, 11 + rows);
}

TEST(FullAttention, MatchesNaiveWithPaddingMask) {
    for (int rows : {5, 33, 200}) {
        std::vector<float> mask = token_mask_with_padding(rows, rows / 4, {1});
        expect_full_matches_naive(rows, 4, 16, &mask, 7 + rows);
    }
}

TEST(FullAttention, OddHeadDimAndManyRowsTiles) {
    std::vector<float> mask = token_mask_with_padding(300, 17);
    expect_full_matches_naive(300, 2, 12, &mask, 99);
}

TEST(FullAttention, AllKeysMaskedAveragesUniformlyLikeFp32Reference) {
    // s + lowest == lowest for every key: softmax is uniform (what torch computes in fp32).
    std::vector<float> mask(10, kMin);
    expect_full_matches_naive(10, 2, 8, &mask, 5);
}

TEST(FullAttention, RecorderCapturesNormalizedWeightsOfOneHead) {
    RandomQkv x = random_qkv(70, 3, 8, 3);
    std::vector<float> mask = token_mask_with_padding(70, 5);
    std::vector<float> out(size_t(70) * x.D());
    AttentionRecorder rec;
    rec.head = 2;
    full_attention(x.input(), mask.data(), out.data(), &rec);
    int rows_seen = 0;
    for (const auto& blk : rec.blocks) {
        ASSERT_EQ(blk.keys.size(), 70u);
        for (int r = blk.query_begin; r < blk.query_end; ++r, ++rows_seen) {
            double sum = 0, o0 = 0;
            for (size_t j = 0; j < blk.keys.size(); ++j) {
                const float w = blk.weights[size_t(r - blk.query_begin) * blk.keys.size() + j];
                sum += w;
                o0 += w * x.vrow(blk.keys[j].row_begin, 2)[0];
                if (j >= 65) {
                    EXPECT_EQ(w, 0.0f);
                }
            }
            EXPECT_NEAR(sum, 1.0, 1e-5);
            EXPECT_NEAR(o0, out[size_t(r) * x.D() + 2 * 8], 1e-5);
        }
    }
    EXPECT_EQ(rows_seen, 70);
}

TEST(FullAttention, RejectsBadInput) {
    AttentionInput in;
    std::vector<float> out(8);
    EXPECT_THROW(full_attention(in, nullptr, out.data()), Error);
}

}  // namespace
}  // namespace precis::test
