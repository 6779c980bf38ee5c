// The sparse selection lsg_attention records is the one it computed with: norm keeps the
// largest-norm keys of each chunk, lsh puts every real token in exactly one bucket of its
// chunk, the fixed types follow the paper's geometry, and for every type the output rows
// can be recomputed from nothing but the recorded selection.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "tests/engine/attention_test_util.h"

namespace precis::test {
namespace {

constexpr int G = 1, T = 128, heads = 3, hd = 8, B = 16, SB = 16, f = 4;

LsgSettings settings(SparsityType type) {
    LsgSettings s;
    s.sparsity_type = type;
    s.block_size = B;
    s.sparse_block_size = SB;
    s.sparsity_factor = f;
    s.num_global_tokens = G;
    return s;
}

struct Recorded {
    RandomQkv x;
    std::vector<float> mask, out;
    AttentionRecorder rec;
};

Recorded record(SparsityType type, int head, int pad = 0) {
    Recorded r;
    r.x = random_qkv(G + T, heads, hd, 7);
    r.mask = token_mask_with_padding(T, pad);
    r.out.assign(size_t(G + T) * heads * hd, 0.f);
    r.rec.head = head;
    LshProjections lsh = LshProjections::seeded(3);
    lsh.next_call();
    lsg_attention(r.x.input(), r.mask.data(), G, settings(type), 0, &lsh, r.out.data(), &r.rec);
    return r;
}

double key_norm(const RandomQkv& x, int row, int h) {
    double n = 0;
    for (int d = 0; d < hd; ++d) n += double(x.krow(row, h)[d]) * x.krow(row, h)[d];
    return std::sqrt(n);
}

TEST(SparseSelection, NormKeepsTheLargestKeysOfEachChunk) {
    const int head = 2;
    const Recorded r = record(SparsityType::Norm, head);
    const SparseSelection& sel = r.rec.sparse;
    EXPECT_EQ(sel.built_as, SparsityType::Norm);
    ASSERT_EQ(int(sel.keys.size()), T / f);
    const int chunk = std::min(B, SB), keep = chunk / f;
    for (int c = 0; c < T / chunk; ++c) {
        std::vector<int> rows(static_cast<size_t>(chunk));
        std::iota(rows.begin(), rows.end(), G + c * chunk);
        std::sort(rows.begin(), rows.end(), [&](int a, int b) { return key_norm(r.x, a, head) > key_norm(r.x, b, head); });
        std::set<int> expected(rows.begin(), rows.begin() + keep), got;
        for (int j = c * keep; j < (c + 1) * keep; ++j) {
            ASSERT_EQ(sel.keys[size_t(j)].rows.size(), 1u);
            EXPECT_FLOAT_EQ(sel.keys[size_t(j)].shares[0], 1.f);
            got.insert(sel.keys[size_t(j)].rows[0]);
        }
        EXPECT_EQ(got, expected) << "chunk " << c;
    }
}

TEST(SparseSelection, LshPutsEveryRealTokenInOneBucketOfItsChunk) {
    const int pad = 5;
    const Recorded r = record(SparsityType::Lsh, 1, pad);
    const SparseSelection& sel = r.rec.sparse;
    EXPECT_EQ(sel.built_as, SparsityType::Lsh);
    const int chunk = std::min(B, SB), buckets = chunk / f;
    std::vector<int> seen(size_t(G + T), 0);
    size_t largest = 0;
    for (size_t j = 0; j < sel.keys.size(); ++j) {
        const SparseKeySource& key = sel.keys[j];
        const int c = int(j) / buckets;
        for (int row : key.rows) {
            EXPECT_GE(row, G + c * chunk);
            EXPECT_LT(row, G + (c + 1) * chunk);
            ++seen[size_t(row)];
        }
        if (!key.rows.empty()) EXPECT_NEAR(std::accumulate(key.shares.begin(), key.shares.end(), 0.0), 1.0, 1e-6);
        largest = std::max(largest, key.rows.size());
    }
    for (int t = 0; t < T; ++t) EXPECT_EQ(seen[size_t(G + t)], t < T - pad ? 1 : 0) << "token " << t;
    EXPECT_GT(largest, 1u);  // buckets gather several tokens: a clustering, not a selection
}

TEST(SparseSelection, FixedTypesFollowThePapersGeometry) {
    const int head = 1;
    const Recorded pooling = record(SparsityType::Pooling, head);
    const Recorded stride = record(SparsityType::Stride, head);
    const Recorded block_stride = record(SparsityType::BlockStride, head);
    const Recorded bos = record(SparsityType::BosPooling, head);
    const int p = B / f;
    for (int j = 0; j < T / f; ++j) {
        std::vector<int32_t> group(static_cast<size_t>(f));
        std::iota(group.begin(), group.end(), G + j * f);
        EXPECT_EQ(pooling.rec.sparse.keys[size_t(j)].rows, group);  // f neighbours averaged
        EXPECT_EQ(bos.rec.sparse.keys[size_t(j)].rows, group);
        EXPECT_EQ(stride.rec.sparse.keys[size_t(j)].rows, std::vector<int32_t>{G + j * f + head % f});
        const int block_row = (j / p) * B + ((j % p) + (head % f) * p) % B;
        EXPECT_EQ(block_stride.rec.sparse.keys[size_t(j)].rows, std::vector<int32_t>{G + block_row});
    }
    // bos_pooling weighs the group by the first token's query; pooling averages it evenly.
    bool uneven = false;
    for (const SparseKeySource& k : bos.rec.sparse.keys)
        for (float s : k.shares) uneven |= std::abs(s - 1.f / f) > 1e-3f;
    EXPECT_TRUE(uneven);
    for (const SparseKeySource& k : pooling.rec.sparse.keys)
        for (float s : k.shares) EXPECT_NEAR(s, 1.f / f, 1e-5f);
}

TEST(SparseSelection, OutputsCanBeRebuiltFromTheRecordedSelection) {
    const int head = 2;
    for (SparsityType type : {SparsityType::Norm, SparsityType::Lsh, SparsityType::Pooling, SparsityType::Stride,
                              SparsityType::BlockStride, SparsityType::BosPooling}) {
        SCOPED_TRACE(sparsity_type_name(type));
        const Recorded r = record(type, head);
        const SparseSelection& sel = r.rec.sparse;
        ASSERT_EQ(int(sel.blocks.size()), T / B);
        for (const SparseBlockKeys& block : sel.blocks) {
            std::vector<RefKey> keys;
            for (int g = 0; g < G; ++g) keys.push_back(ref_key_from_row(r.x, g, head, 0.0));
            for (int32_t j : block.keys) {
                const SparseKeySource& src = sel.keys[size_t(j)];
                if (src.rows.empty()) continue;  // masked: weight 0
                RefKey k;
                k.k.assign(size_t(hd), 0.0);
                k.v.assign(size_t(hd), 0.0);
                for (size_t m = 0; m < src.rows.size(); ++m)
                    for (int d = 0; d < hd; ++d) {
                        k.k[size_t(d)] += src.shares[m] * r.x.krow(src.rows[m], head)[d];
                        k.v[size_t(d)] += src.shares[m] * r.x.vrow(src.rows[m], head)[d];
                    }
                keys.push_back(k);
            }
            const int i = (block.query_begin - G) / B;
            for (int t = std::max(0, (i - 1) * B); t < std::min(T, (i + 2) * B); ++t)
                keys.push_back(ref_key_from_row(r.x, G + t, head, 0.0));
            for (int q = block.query_begin; q < block.query_end; q += 5) {
                const std::vector<double> ref = ref_attend(r.x.qrow(q, head), hd, keys);
                EXPECT_LT(row_diff(r.out, r.x.D(), q, head, hd, ref), 1e-4) << "query row " << q;
            }
        }
    }
}

TEST(SparseSelection, StaysEmptyOnTheShortFullAttentionPath) {
    RandomQkv x = random_qkv(G + 2 * B, heads, hd, 1);
    std::vector<float> mask(size_t(2 * B), 0.f), out(size_t(G + 2 * B) * heads * hd);
    AttentionRecorder rec;
    rec.sparse.keys.resize(3);  // left over from an earlier call: cleared
    lsg_attention(x.input(), mask.data(), G, settings(SparsityType::Norm), 0, nullptr, out.data(), &rec);
    EXPECT_TRUE(rec.sparse.empty());
    EXPECT_TRUE(rec.sparse.blocks.empty());
}

}  // namespace
}  // namespace precis::test
