// Fovea attention: the tree, the node selection and the attention itself, each against a
// brute-force version.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "engine/attention/attention.h"
#include "engine/attention/attention_pattern.h"
#include "engine/attention/fovea_tree.h"
#include "tests/engine/attention_test_util.h"

namespace precis::test {
namespace {

FoveaSettings fovea(int BL, int w = 1, int stop = -1, bool cover = true) {
    FoveaSettings s;
    s.block_size = BL;
    s.wing = w;
    s.stop_level = stop;
    s.cover_edges = cover;
    return s;
}

// Brute force: key i of node (level, start) = mean over its 2^level blocks at position i
// (zero beyond the tokens); valid when any member token there is valid.
RefKey brute_node_key(const RandomQkv& x, const std::vector<float>* mask, int G, int T, int BL, int h, int level,
                      int start, int i) {
    RefKey key = zero_key(x.hd);
    bool any_valid = false;
    const int n = 1 << level;
    for (int b = start; b < start + n; ++b) {
        const int t = b * BL + i;
        if (t >= T) continue;
        for (int d = 0; d < x.hd; ++d) {
            key.k[size_t(d)] += x.krow(G + t, h)[d] / double(n);
            key.v[size_t(d)] += x.vrow(G + t, h)[d] / double(n);
        }
        any_valid = any_valid || !mask || (*mask)[size_t(G + t)] == 0.0f;
    }
    key.mask = any_valid ? 0.0 : double(kMin);
    return key;
}

TEST(FoveaTree, NodesEqualBruteForceMeansAndMasksPoolWithOr) {
    const int T = 300, BL = 8, G = 0;
    RandomQkv x = random_qkv(T, 2, 6, 17);
    std::vector<float> mask = token_mask_with_padding(T, 21, {3, 11, 19, 27});
    FoveaTree tree;
    const int NB = (T + BL - 1) / BL;
    const int top = fovea_top_level(NB, fovea(BL));
    tree.build(x.krow(0, 1), x.vrow(0, 1), x.D(), T, mask.data(), BL, x.hd, top);
    ASSERT_EQ(tree.levels(), top + 1);
    ASSERT_EQ(top, 5);  // 38 blocks
    double worst = 0;
    int masked_nodes = 0;
    for (int q = 0; q <= top; ++q) {
        ASSERT_EQ(tree.nodes(q), NB - (1 << q) + 1);
        for (int j = 0; j < tree.nodes(q); ++j)
            for (int i = 0; i < BL; ++i) {
                const RefKey ref = brute_node_key(x, &mask, G, T, BL, 1, q, j, i);
                for (int d = 0; d < x.hd; ++d) {
                    worst = std::max(worst, std::abs(tree.key(q, j)[i * x.hd + d] - ref.k[size_t(d)]));
                    worst = std::max(worst, std::abs(tree.value(q, j)[i * x.hd + d] - ref.v[size_t(d)]));
                }
                EXPECT_EQ(double(tree.mask(q, j)[i]), ref.mask) << "level " << q << " node " << j << " pos " << i;
                masked_nodes += ref.mask != 0.0;
            }
    }
    EXPECT_LT(worst, 1e-5);
    EXPECT_GT(masked_nodes, 0);
}

// The paper's formula (nodes inside the tree only), for comparison.
std::set<std::pair<int, int>> formula_nodes(int NB, int s, int w, int top) {
    std::set<std::pair<int, int>> out{{0, s}};
    for (int p = 0; p <= top; ++p)
        for (int k = 0; k < w; ++k) {
            const int right = s + w * ((1 << p) - 1) + 1 + k * (1 << p);
            const int left_end = s - w * ((1 << p) - 1) - k * (1 << p);  // exclusive
            const int left = left_end - (1 << p);
            if (right >= 0 && right + (1 << p) <= NB) out.insert({p, right});
            if (left >= 0) out.insert({p, left});
        }
    return out;
}

TEST(FoveaSelection, SelectedNodesTileTheWholeSequenceWithoutOverlap) {
    for (int NB = 1; NB <= 70; ++NB)
        for (int w : {1, 2, 3})
            for (int stop : {-1, 0, 1, 2, 5}) {
                const FoveaSettings s = fovea(16, w, stop, true);
                const int top = fovea_top_level(NB, s);
                for (int q = 0; q < NB; ++q) {
                    const auto nodes = fovea_select_nodes(NB, q, s);
                    std::vector<int> cover(size_t(NB), 0);
                    bool own = false;
                    for (const FoveaNode& n : nodes) {
                        ASSERT_GE(n.start, 0);
                        ASSERT_LE(n.start + (1 << n.level), NB);
                        ASSERT_LE(n.level, top);
                        for (int b = n.start; b < n.start + (1 << n.level); ++b) ++cover[size_t(b)];
                        own = own || (n.level == 0 && n.start == q);
                    }
                    EXPECT_TRUE(own);
                    for (int b = 0; b < NB; ++b)
                        ASSERT_EQ(cover[size_t(b)], 1) << "NB " << NB << " w " << w << " stop " << stop << " query "
                                                       << q << " block " << b;
                }
            }
}

TEST(FoveaSelection, WithoutEdgeCoverItIsThePapersFormula) {
    for (int NB = 1; NB <= 80; ++NB)
        for (int w : {1, 2}) {
            const FoveaSettings s = fovea(16, w, -1, false);
            const int top = fovea_top_level(NB, s);
            for (int q = 0; q < NB; ++q) {
                std::set<std::pair<int, int>> got;
                std::vector<int> cover(size_t(NB), 0);
                for (const FoveaNode& n : fovea_select_nodes(NB, q, s)) {
                    got.insert({n.level, n.start});
                    for (int b = n.start; b < n.start + (1 << n.level); ++b) ++cover[size_t(b)];
                }
                EXPECT_EQ(got, formula_nodes(NB, q, w, top)) << "NB " << NB << " query " << q;
                for (int c : cover) EXPECT_LE(c, 1);
            }
        }
}

TEST(FoveaSelection, StopLevelCoversTheRestWithNodesOfThatLevel) {
    const int NB = 64;
    const auto nodes = fovea_select_nodes(NB, 10, fovea(16, 1, 2, true));
    int level2 = 0;
    for (const FoveaNode& n : nodes) {
        EXPECT_LE(n.level, 2);
        level2 += n.level == 2;
    }
    // right of block 10: levels 0,1 cover 11..13, then level-2 nodes from 14: 14..61 (12 nodes),
    // 62..63 left over -> one level-1 node. Left: 9, 7..8, then level 2: 3..6, rest 0..2.
    EXPECT_EQ(level2, 13);
}

TEST(FoveaSelection, KeyCountPerQueryGrowsLikeLogN) {
    for (int w : {1, 2}) {
        size_t prev = 0;
        for (int k = 2; k <= 14; ++k) {
            const int NB = 1 << k;
            size_t most = 0;
            for (int q = 0; q < NB; q += std::max(1, NB / 64))
                most = std::max(most, fovea_select_nodes(NB, q, fovea(8, w)).size());
            // at most the own block, w nodes per level and side, and one edge-fill node per level and side
            EXPECT_LE(most, size_t(1 + 2 * (w + 1) * (k + 1))) << "NB " << NB;
            EXPECT_GE(most, size_t(2 * k - 1)) << "NB " << NB;
            if (prev) {
                EXPECT_LE(most, prev + size_t(2 * w + 2)) << "doubling NB adds O(1) nodes";
            }
            prev = most;
        }
    }
}

void expect_fovea_matches_naive(int G, int T, int heads, int hd, const FoveaSettings& s, int pad, uint32_t seed) {
    SCOPED_TRACE("G " + std::to_string(G) + " T " + std::to_string(T) + " BL " + std::to_string(s.block_size) +
                 " w " + std::to_string(s.wing) + " stop " + std::to_string(s.stop_level));
    RandomQkv x = random_qkv(G + T, heads, hd, seed);
    std::vector<float> mask(size_t(G), 0.0f);
    const auto tm = token_mask_with_padding(T, pad, {T / 3});
    mask.insert(mask.end(), tm.begin(), tm.end());
    std::vector<float> out(size_t(G + T) * x.D(), -5.0f);
    fovea_attention(x.input(), mask.data(), G, s, out.data());
    const int BL = s.block_size, NB = (T + BL - 1) / BL;
    double worst = 0;
    for (int h = 0; h < heads; ++h) {
        for (int q = 0; q < G; ++q) {
            std::vector<RefKey> keys;
            for (int j = 0; j < G + T; ++j) keys.push_back(ref_key_from_row(x, j, h, mask[size_t(j)]));
            worst = std::max(worst, row_diff(out, x.D(), q, h, hd, ref_attend(x.qrow(q, h), hd, keys)));
        }
        for (int b = 0; b < NB; ++b) {
            std::vector<RefKey> keys;
            for (int g = 0; g < G; ++g) keys.push_back(ref_key_from_row(x, g, h, 0.0));
            for (const FoveaNode& n : fovea_select_nodes(NB, b, s))
                for (int i = 0; i < BL; ++i) keys.push_back(brute_node_key(x, &mask, G, T, BL, h, n.level, n.start, i));
            for (int t = b * BL; t < std::min(T, (b + 1) * BL); ++t)
                worst = std::max(worst, row_diff(out, x.D(), G + t, h, hd, ref_attend(x.qrow(G + t, h), hd, keys)));
        }
    }
    EXPECT_LT(worst, 3e-5);
}

TEST(FoveaAttention, EqualsNaiveDenseAttentionOverTheSelectedNodes) {
    expect_fovea_matches_naive(0, 200, 3, 8, fovea(8), 13, 1);
    expect_fovea_matches_naive(1, 203, 2, 8, fovea(8), 5, 2);      // T not a multiple of BL
    expect_fovea_matches_naive(2, 256, 2, 16, fovea(16, 2), 30, 3);
    expect_fovea_matches_naive(1, 333, 2, 8, fovea(4, 1, 2), 0, 4);  // stop level
    expect_fovea_matches_naive(1, 150, 2, 8, fovea(8, 1, -1, false), 9, 5);
    expect_fovea_matches_naive(0, 7, 2, 8, fovea(16), 0, 6);        // one partial block
}

TEST(FoveaAttention, RecorderListsGlobalAndNodeKeys) {
    const int G = 1, T = 100, BL = 8;
    RandomQkv x = random_qkv(G + T, 2, 8, 9);
    std::vector<float> out(size_t(G + T) * x.D());
    AttentionRecorder rec;
    rec.head = 0;
    fovea_attention(x.input(), nullptr, G, fovea(BL), out.data(), &rec);
    const int NB = (T + BL - 1) / BL;
    ASSERT_EQ(int(rec.blocks.size()), 1 + NB);  // global rows, then one per query block
    for (int b = 0; b < NB; ++b) {
        const auto& blk = rec.blocks[size_t(1 + b)];
        EXPECT_EQ(blk.keys.size(), size_t(G) + fovea_select_nodes(NB, b, fovea(BL)).size() * BL);
        EXPECT_EQ(blk.keys[0].kind, AttentionKeyKind::Global);
        for (int r = 0; r < blk.query_end - blk.query_begin; ++r) {
            double sum = 0;
            for (size_t j = 0; j < blk.keys.size(); ++j) sum += blk.weights[size_t(r) * blk.keys.size() + j];
            EXPECT_NEAR(sum, 1.0, 1e-5);
        }
    }
}

TEST(FoveaAttention, RejectsBadSettings) {
    RandomQkv x = random_qkv(20, 1, 4, 1);
    std::vector<float> out(20 * 4);
    EXPECT_THROW(fovea_attention(x.input(), nullptr, 0, fovea(0), out.data()), Error);
    EXPECT_THROW(fovea_attention(x.input(), nullptr, 0, fovea(4, 0), out.data()), Error);
    EXPECT_THROW(fovea_attention(x.input(), nullptr, 20, fovea(4), out.data()), Error);
}

}  // namespace
}  // namespace precis::test
