// attention_pattern: the static geometry agrees with the definitions and with the keys
// lsg_attention / fovea_attention actually use (seen through the recorder).
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "engine/attention/attention.h"
#include "engine/attention/attention_pattern.h"
#include "tests/engine/attention_test_util.h"

namespace precis::test {
namespace {

LsgSettings lsg(SparsityType type, int B, int SB, int f) {
    LsgSettings s;
    s.block_size = B;
    s.sparse_block_size = SB;
    s.sparsity_factor = f;
    s.sparsity_type = type;
    return s;
}

// Rows (with multiplicity) the pattern gives query block i of head h, for position-exact spans.
std::multiset<int> pattern_rows(const AttentionPattern& pat, int q0, int h) {
    std::multiset<int> rows;
    for (const PatternSpan& sp : pat.spans) {
        if (sp.query_begin != q0 || (sp.head != -1 && sp.head != h)) continue;
        EXPECT_EQ(sp.group, 1);
        EXPECT_NE(sp.kind, PatternKind::Candidates);
        int n = 0;
        for (int r = sp.key_begin; r < sp.key_end; r += sp.step, ++n) rows.insert(r);
        EXPECT_EQ(n, sp.key_count);
    }
    return rows;
}

// Definition (lsg-spec 3.B) of the key rows of token query block i, head h, in range only.
std::multiset<int> spec_rows(const LsgSettings& s, int G, int T, int i, int h) {
    std::multiset<int> rows;
    for (int g = 0; g < G; ++g) rows.insert(g);
    const int B = s.block_size, f = s.sparsity_factor, p = B / f, SB = s.sparse_block_size;
    if (s.sparsity_type != SparsityType::None) {
        const int starts[2] = {(i - 1) * p - SB, p == 1 ? i : (i + 2) * p};
        for (int st : starts)
            for (int j = st; j < st + SB; ++j) {
                if (j < 0 || j >= T / f) continue;
                int t = j;
                if (f > 1 && s.sparsity_type == SparsityType::Stride) t = j * f + h % f;
                if (f > 1 && s.sparsity_type == SparsityType::BlockStride) t = (j / p) * B + ((j % p) + h * p) % B;
                rows.insert(G + t);
            }
    }
    for (int t = (i - 1) * B; t < (i + 2) * B; ++t)
        if (t >= 0 && t < T) rows.insert(G + t);
    return rows;
}

// Rows lsg_attention attended to for head h, per query block (recorder), for plain keys.
std::map<int, std::multiset<int>> recorded_rows(const LsgSettings& s, int G, int T, int heads, int h) {
    RandomQkv x = random_qkv(G + T, heads, 4, 3);
    std::vector<float> mask(size_t(T), 0.0f), out(size_t(G + T) * x.D());
    AttentionRecorder rec;
    rec.head = h;
    lsg_attention(x.input(), mask.data(), G, s, 0, nullptr, out.data(), &rec);
    std::map<int, std::multiset<int>> rows;
    for (const auto& blk : rec.blocks) {
        if (blk.query_begin < G) continue;  // global rows
        for (const auto& key : blk.keys) {
            EXPECT_EQ(key.row_end - key.row_begin, 1);
            rows[blk.query_begin].insert(key.row_begin);
        }
    }
    return rows;
}

TEST(AttentionPattern, PositionExactTypesMatchDefinitionsAndLsgAttention) {
    struct C {
        SparsityType type;
        int B, SB, f, G, T, heads;
    };
    const std::vector<C> cases = {
        {SparsityType::Stride, 16, 16, 2, 1, 128, 3},      {SparsityType::Stride, 16, 16, 4, 2, 80, 5},
        {SparsityType::BlockStride, 16, 16, 2, 1, 128, 3}, {SparsityType::BlockStride, 16, 20, 4, 2, 96, 5},
        {SparsityType::None, 16, 16, 2, 1, 64, 2},         {SparsityType::Stride, 8, 8, 8, 1, 48, 2},  // p == 1
        {SparsityType::Norm, 16, 16, 1, 1, 64, 2},                                                    // f == 1
    };
    for (const C& c : cases) {
        SCOPED_TRACE("type " + std::to_string(int(c.type)) + " f " + std::to_string(c.f) + " T " + std::to_string(c.T));
        const LsgSettings s = lsg(c.type, c.B, c.SB, c.f);
        const AttentionPattern pat = lsg_attention_pattern(s, c.G, c.T, c.heads);
        EXPECT_TRUE(pat.sparse_path);
        for (int h = 0; h < c.heads; ++h) {
            const auto recorded = recorded_rows(s, c.G, c.T, c.heads, h);
            for (int i = 0; i < c.T / c.B; ++i) {
                const int q0 = c.G + i * c.B;
                const auto rows = pattern_rows(pat, q0, h);
                EXPECT_EQ(rows, spec_rows(s, c.G, c.T, i, h)) << "block " << i << " head " << h;
                ASSERT_TRUE(recorded.count(q0));
                EXPECT_EQ(rows, recorded.at(q0)) << "block " << i << " head " << h;
            }
        }
        // global queries see every row
        ASSERT_FALSE(pat.spans.empty());
        EXPECT_EQ(pat.spans[0].kind, PatternKind::Dense);
        EXPECT_EQ(pat.spans[0].query_end, c.G);
        EXPECT_EQ(pat.spans[0].key_end, c.G + c.T);
    }
}

TEST(AttentionPattern, PooledKeysCoverGroupsOfFactorRows) {
    for (SparsityType type : {SparsityType::Pooling, SparsityType::BosPooling}) {
        const LsgSettings s = lsg(type, 16, 16, 4);
        const int G = 1, T = 96, p = 4;
        const AttentionPattern pat = lsg_attention_pattern(s, G, T, 2);
        for (int i = 0; i < T / 16; ++i) {
            std::vector<std::pair<int, int>> ranges;
            for (const PatternSpan& sp : pat.spans)
                if (sp.query_begin == G + i * 16 && sp.kind == PatternKind::Sparse) {
                    EXPECT_EQ(sp.group, 4);
                    EXPECT_EQ(sp.key_count * 4, sp.key_end - sp.key_begin);
                    ranges.push_back({sp.key_begin, sp.key_end});
                }
            std::vector<std::pair<int, int>> expect;
            const int lo0 = std::max((i - 1) * p - 16, 0), hi0 = std::max((i - 1) * p, 0);
            const int lo1 = std::min((i + 2) * p, T / 4), hi1 = std::min((i + 2) * p + 16, T / 4);
            if (hi0 > lo0) expect.push_back({G + lo0 * 4, G + hi0 * 4});
            if (hi1 > lo1) expect.push_back({G + lo1 * 4, G + hi1 * 4});
            EXPECT_EQ(ranges, expect) << "block " << i;
        }
    }
}

TEST(AttentionPattern, DataDependentCandidatesContainTheKeysLsgAttentionPicked) {
    for (SparsityType type : {SparsityType::Norm, SparsityType::Lsh}) {
        const LsgSettings s = lsg(type, 16, 16, 4);
        const int G = 2, T = 112, heads = 3;
        const AttentionPattern pat = lsg_attention_pattern(s, G, T, heads);
        RandomQkv x = random_qkv(G + T, heads, 8, 5);
        std::vector<float> mask(size_t(T), 0.0f), out(size_t(G + T) * x.D());
        LshProjections lsh = LshProjections::seeded(3);
        AttentionRecorder rec;
        rec.head = 2;
        lsg_attention(x.input(), mask.data(), G, s, 0, &lsh, out.data(), &rec);
        for (const auto& blk : rec.blocks) {
            if (blk.query_begin < G) continue;
            int candidates = 0;
            std::vector<const PatternSpan*> spans;
            for (const PatternSpan& sp : pat.spans)
                if (sp.query_begin == blk.query_begin && sp.kind == PatternKind::Candidates) {
                    spans.push_back(&sp);
                    candidates += sp.key_count;
                }
            int sparse = 0;
            for (const auto& key : blk.keys) {
                if (key.kind != AttentionKeyKind::Sparse) continue;
                ++sparse;
                bool inside = false;
                for (const PatternSpan* sp : spans)
                    inside = inside || (key.row_begin >= sp->key_begin && key.row_end <= sp->key_end);
                EXPECT_TRUE(inside) << "sparse key rows " << key.row_begin << ".." << key.row_end;
            }
            EXPECT_EQ(sparse, candidates) << "query block at " << blk.query_begin;
        }
        EXPECT_NE(pat.summary.find("depend on the data"), std::string::npos) << pat.summary;
    }
}

TEST(AttentionPattern, ShortInputIsOneDenseSpan) {
    const AttentionPattern pat = lsg_attention_pattern(lsg(SparsityType::Norm, 16, 16, 2), 1, 32, 4);
    EXPECT_FALSE(pat.sparse_path);
    ASSERT_EQ(pat.spans.size(), 1u);
    EXPECT_EQ(pat.spans[0].kind, PatternKind::Dense);
    EXPECT_EQ(pat.spans[0].key_count, 33);
}

TEST(AttentionPattern, RejectsWhatLsgAttentionRejects) {
    EXPECT_THROW(lsg_attention_pattern(lsg(SparsityType::Norm, 16, 16, 3), 1, 96, 2), Error);
    EXPECT_THROW(lsg_attention_pattern(lsg(SparsityType::Norm, 16, 16, 2), 1, 90, 2), Error);
}

TEST(AttentionPattern, FoveaSpansAreTheSelectedNodes) {
    FoveaSettings s;
    s.block_size = 8;
    const int G = 1, T = 150, NB = (T + 7) / 8;
    const AttentionPattern pat = fovea_attention_pattern(s, G, T);
    for (int b = 0; b < NB; ++b) {
        std::vector<FoveaNode> nodes;
        int globals = 0;
        for (const PatternSpan& sp : pat.spans) {
            if (sp.query_begin != G + b * 8) continue;
            if (sp.kind == PatternKind::Global) ++globals;
            if (sp.kind != PatternKind::FoveaNode) continue;
            EXPECT_EQ(sp.key_count, 8);
            nodes.push_back({sp.level, (sp.key_begin - G) / 8});
        }
        EXPECT_EQ(globals, 1);
        EXPECT_EQ(nodes, fovea_select_nodes(NB, b, s)) << "block " << b;
    }
}

}  // namespace
}  // namespace precis::test
