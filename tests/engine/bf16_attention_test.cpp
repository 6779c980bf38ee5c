// full_attention with bfloat16 products (int8 runs, bf16_attention.h) against the double
// reference: within bfloat16's rounding, masked keys weigh exactly nothing, and where the
// bf16 path does not apply (short inputs, a capture, a CPU without AVX512-BF16) the float32
// path runs, bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "engine/attention/attention.h"
#include "engine/attention/bf16_attention.h"
#include "engine/attention/bf16_tile.h"
#include "engine/core/error.h"
#include "tests/engine/attention_test_util.h"
#include "tests/support/numeric.h"

namespace precis::test {
namespace {

std::vector<float> attend(const RandomQkv& x, const std::vector<float>* mask, AttentionProducts products,
                          AttentionRecorder* recorder = nullptr) {
    AttentionInput in = x.input();
    in.products = products;
    std::vector<float> out(size_t(x.rows) * x.D(), -1.0f);
    full_attention(in, mask ? mask->data() : nullptr, out.data(), recorder);
    return out;
}

// Every row and head through ref_attend, as one vector in out's layout.
std::vector<float> reference(const RandomQkv& x, const std::vector<float>* mask) {
    std::vector<float> ref(size_t(x.rows) * x.D());
    for (int h = 0; h < x.heads; ++h) {
        std::vector<RefKey> keys;
        for (int j = 0; j < x.rows; ++j) keys.push_back(ref_key_from_row(x, j, h, mask ? (*mask)[size_t(j)] : 0.0));
        for (int r = 0; r < x.rows; ++r) {
            const std::vector<double> o = ref_attend(x.qrow(r, h), x.hd, keys);
            for (int d = 0; d < x.hd; ++d) ref[size_t(r) * x.D() + size_t(h) * x.hd + d] = float(o[size_t(d)]);
        }
    }
    return ref;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(Bf16Attention, MatchesTheDoubleReferenceWithinBfloat16Rounding) {
    if (!bf16_products_supported()) GTEST_SKIP() << "this CPU has no AVX512-BF16";
    // Whole tiles and a short last tile; head widths of bart (64), a small and an odd one.
    struct Case {
        int rows, heads, hd, pad;
    };
    for (const Case c : {Case{384, 2, 64, 0}, Case{450, 3, 64, 37}, Case{520, 2, 16, 5}, Case{400, 2, 12, 0}}) {
        const RandomQkv x = random_qkv(c.rows, c.heads, c.hd, 17 + uint32_t(c.rows));
        const std::vector<float> mask = token_mask_with_padding(c.rows, c.pad, {3});
        const std::vector<float> bf16 = attend(x, &mask, AttentionProducts::Bfloat16);
        const std::vector<float> fp32 = attend(x, &mask, AttentionProducts::Float32);
        const std::vector<float> ref = reference(x, &mask);
        const double e_bf16 = normalized_error(bf16, ref), e_fp32 = normalized_error(fp32, ref);
        // bfloat16 rounds q, k, v and the weights by up to 2^-9 of themselves: about 4e-3 of
        // the output (measured 3.2e-3 to 3.5e-3 at bart-base's shape); float32 is ~1e-7.
        EXPECT_LT(e_bf16, 1e-2) << c.rows << " rows, head width " << c.hd;
        EXPECT_GT(e_bf16, 10 * e_fp32) << "the bfloat16 products did not run";
    }
}

// LSG's blocks in bf16 against the same call in float32 (which lsg_attention_test checks
// against the reference), for every sparsity type, a padded tail and two global tokens.
TEST(Bf16Attention, LsgBlocksMatchTheirFloat32ResultWithinBfloat16Rounding) {
    if (!bf16_products_supported()) GTEST_SKIP() << "this CPU has no AVX512-BF16";
    const int G = 2, T = 8 * 32, hd = 32, heads = 2;
    for (SparsityType type : {SparsityType::None, SparsityType::Norm, SparsityType::Pooling, SparsityType::Stride,
                              SparsityType::BlockStride, SparsityType::BosPooling, SparsityType::Lsh}) {
        LsgSettings s;
        s.block_size = 32;
        s.sparse_block_size = 32;
        s.sparsity_factor = 4;
        s.sparsity_type = type;
        const RandomQkv x = random_qkv(G + T, heads, hd, 23);
        const std::vector<float> token_mask = token_mask_with_padding(T, 40, {5});
        LshProjections lsh = LshProjections::seeded(3);
        auto run = [&](AttentionProducts products) {
            AttentionInput in = x.input();
            in.products = products;
            std::vector<float> out(size_t(x.rows) * x.D());
            lsg_attention(in, token_mask.data(), G, s, 0, &lsh, out.data());
            return out;
        };
        const std::vector<float> fp32 = run(AttentionProducts::Float32), bf16 = run(AttentionProducts::Bfloat16);
        const double e = normalized_error(bf16, fp32);
        EXPECT_LT(e, 1e-2) << sparsity_type_name(type);
        EXPECT_GT(e, 1e-5) << sparsity_type_name(type) << ": the bfloat16 products did not run";
    }
}

TEST(Bf16Attention, MaskedKeysWeighExactlyNothing) {
    if (!bf16_products_supported()) GTEST_SKIP() << "this CPU has no AVX512-BF16";
    RandomQkv x = random_qkv(420, 2, 64, 5);
    std::vector<float> mask = token_mask_with_padding(420, 30, {0, 100});
    // Masked keys' values so large that any weight above 0 would show in every output.
    for (int r = 0; r < x.rows; ++r)
        if (mask[size_t(r)] != 0.f)
            for (int i = 0; i < x.D(); ++i) x.v[size_t(r) * x.D() + i] = 1e30f;
    const std::vector<float> out = attend(x, &mask, AttentionProducts::Bfloat16);
    for (float o : out) ASSERT_LT(std::abs(o), 10.f);
}

TEST(Bf16Attention, AllKeysMaskedAveragesUniformlyAsFloat32Does) {
    if (!bf16_products_supported()) GTEST_SKIP() << "this CPU has no AVX512-BF16";
    const RandomQkv x = random_qkv(kBf16MinRows, 1, 64, 8);
    const std::vector<float> mask(size_t(kBf16MinRows), kMin);
    const std::vector<float> bf16 = attend(x, &mask, AttentionProducts::Bfloat16);
    EXPECT_LT(normalized_error(bf16, reference(x, &mask)), 1e-2);
}

TEST(Bf16Attention, ShortInputsTakeTheFloat32ProductsBitForBit) {
    const RandomQkv x = random_qkv(kBf16MinRows - 1, 2, 64, 9);
    EXPECT_TRUE(same_bits(attend(x, nullptr, AttentionProducts::Bfloat16), attend(x, nullptr, AttentionProducts::Float32)));
}

TEST(Bf16Attention, ACaptureTakesTheFloat32ProductsBitForBit) {
    // The attention panel shows float32 weights, and the output must be the one they explain.
    const RandomQkv x = random_qkv(kBf16MinRows + 10, 2, 64, 10);
    AttentionRecorder rec;
    rec.head = 1;
    const std::vector<float> captured = attend(x, nullptr, AttentionProducts::Bfloat16, &rec);
    EXPECT_FALSE(rec.blocks.empty());
    EXPECT_TRUE(same_bits(captured, attend(x, nullptr, AttentionProducts::Float32)));
}

TEST(Bf16Attention, AFailureInsideTheThreadsIsThrownOnceWithTheFirstMessage) {
    attn_detail::RegionFailure failure;
    EXPECT_NO_THROW(failure.rethrow_if_failed());
    failure.record(dnnl::error(dnnl_out_of_memory, "could not allocate"));
    failure.record(Error("a later failure"));
    EXPECT_TRUE(failure.failed());
    try {
        failure.rethrow_if_failed();
        ADD_FAILURE() << "nothing thrown";
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()), "the bfloat16 attention product (oneDNN) failed: could not allocate");
    }
}

TEST(Bf16Attention, Int8RunsTakeBfloat16ExactlyWhereTheCpuHasIt) {
    // PRECIS_INT8_ATTENTION is not set in the test environment.
    EXPECT_EQ(int8_attention_products(),
              bf16_products_supported() ? AttentionProducts::Bfloat16 : AttentionProducts::Float32);
    if (!bf16_products_supported()) {
        // A request for bf16 products on such a CPU runs the float32 ones.
        const RandomQkv x = random_qkv(kBf16MinRows + 20, 2, 64, 11);
        EXPECT_TRUE(
            same_bits(attend(x, nullptr, AttentionProducts::Bfloat16), attend(x, nullptr, AttentionProducts::Float32)));
    }
}

}  // namespace
}  // namespace precis::test
