// lsg_attention checked without fixtures:
//  * stride / block_stride / norm / none (and f == 1): equal to dense attention with the
//    equivalent key mask, built here from the definitions;
//  * pooling / bos_pooling / lsh and the p == 1 quirk: equal to a slow per-query
//    reimplementation written from lsg-spec.md section 3 (explicit zero keys included).
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <set>
#include <string>

#include "engine/attention/attention.h"
#include "tests/engine/attention_test_util.h"

namespace precis::test {
namespace {

struct Case {
    SparsityType type;
    int B, SB, f, G, T, heads, hd;
    int pad;                  // masked tokens at the end
    std::vector<int> holes;   // extra masked tokens
    int pre_rounds = 1;
};

std::string describe(const Case& c) {
    return std::string("type ") + std::to_string(int(c.type)) + " B " + std::to_string(c.B) + " SB " +
           std::to_string(c.SB) + " f " + std::to_string(c.f) + " G " + std::to_string(c.G) + " T " +
           std::to_string(c.T) + " pad " + std::to_string(c.pad);
}

LsgSettings settings_of(const Case& c) {
    LsgSettings s;
    s.block_size = c.B;
    s.sparse_block_size = c.SB;
    s.sparsity_factor = c.f;
    s.sparsity_type = c.type;
    s.num_global_tokens = c.G;
    s.lsh_num_pre_rounds = c.pre_rounds;
    return s;
}

struct LsgRun {
    RandomQkv x;
    std::vector<float> mask;  // token mask [T]
    std::vector<float> out;
};

LsgRun run_lsg(const Case& c, uint32_t seed, LshProjections* lsh = nullptr, AttentionRecorder* rec = nullptr) {
    LsgRun r{random_qkv(c.G + c.T, c.heads, c.hd, seed), token_mask_with_padding(c.T, c.pad, c.holes), {}};
    r.out.assign(size_t(c.G + c.T) * r.x.D(), -7.0f);
    lsg_attention(r.x.input(), r.mask.data(), c.G, settings_of(c), /*layer=*/0, lsh, r.out.data(), rec);
    return r;
}

bool valid(const LsgRun& r, int t) { return r.mask[size_t(t)] == 0.0f; }

// ---- dense-equivalent mask, from the definitions -------------------------------------

// Token index of sparse key j for head h (stride / block_stride / norm / f == 1).
std::vector<int> norm_selection(const LsgRun& r, const Case& c, int h) {
    // per chunk of bs tokens: the bs/f largest ||k|| * valid, listed in ascending norm order
    const int bs = std::min(c.B, c.SB), m = bs / c.f;
    std::vector<int> sel;
    for (int ch = 0; ch < c.T / bs; ++ch) {
        std::vector<std::pair<double, int>> v;
        for (int t = ch * bs; t < (ch + 1) * bs; ++t) {
            double n = 0;
            for (int d = 0; d < c.hd; ++d) n += double(r.x.krow(c.G + t, h)[d]) * r.x.krow(c.G + t, h)[d];
            v.push_back({valid(r, t) ? std::sqrt(n) : 0.0, t});
        }
        std::sort(v.begin(), v.end());
        for (int u = bs - m; u < bs; ++u) sel.push_back(v[size_t(u)].second);
    }
    return sel;
}

int sparse_token(const Case& c, const std::vector<int>& norm_sel, int j, int h) {
    const int p = c.B / c.f;
    if (c.f == 1) return j;
    switch (c.type) {
        case SparsityType::Stride: return j * c.f + h % c.f;
        case SparsityType::BlockStride: return (j / p) * c.B + ((j % p) + h * p) % c.B;
        case SparsityType::Norm: return norm_sel[size_t(j)];
        default: ADD_FAILURE() << "no token mapping"; return 0;
    }
}

// Key rows (G+T numbering) token query block i of head h may attend to, ignoring masks.
std::vector<int> allowed_rows(const Case& c, const std::vector<int>& norm_sel, int i, int h) {
    std::vector<int> rows;
    for (int g = 0; g < c.G; ++g) rows.push_back(g);
    const int p = c.B / c.f, len = c.T / c.f;
    if (c.type != SparsityType::None) {
        for (int j = (i - 1) * p - c.SB; j < (i - 1) * p; ++j)
            if (j >= 0 && j < len) rows.push_back(c.G + sparse_token(c, norm_sel, j, h));
        for (int j = (i + 2) * p; j < (i + 2) * p + c.SB; ++j)
            if (j >= 0 && j < len) rows.push_back(c.G + sparse_token(c, norm_sel, j, h));
    }
    for (int t = (i - 1) * c.B; t < (i + 2) * c.B; ++t)
        if (t >= 0 && t < c.T) rows.push_back(c.G + t);
    return rows;
}

void expect_dense_equivalent(const Case& c, uint32_t seed) {
    SCOPED_TRACE(describe(c));
    LsgRun r = run_lsg(c, seed);
    const int D = r.x.D(), rows = c.G + c.T;
    double worst = 0;
    for (int h = 0; h < c.heads; ++h) {
        std::vector<int> norm_sel;
        if (c.type == SparsityType::Norm && c.f > 1) norm_sel = norm_selection(r, c, h);
        // global queries: every row with its mask
        for (int q = 0; q < c.G; ++q) {
            std::vector<RefKey> keys;
            for (int j = 0; j < rows; ++j)
                keys.push_back(ref_key_from_row(r.x, j, h, j < c.G ? 0.0 : double(r.mask[size_t(j - c.G)])));
            worst = std::max(worst, row_diff(r.out, D, q, h, c.hd, ref_attend(r.x.qrow(q, h), c.hd, keys)));
        }
        for (int i = 0; i < c.T / c.B; ++i) {
            const std::vector<int> allowed = allowed_rows(c, norm_sel, i, h);
            const std::set<int> unique(allowed.begin(), allowed.end());
            ASSERT_EQ(unique.size(), allowed.size()) << "keys must not repeat in this equivalence";
            // dense mask: 0 for allowed, attendable rows; excluded otherwise
            std::vector<RefKey> keys;
            for (int j = 0; j < rows; ++j)
                if (unique.count(j) && (j < c.G || valid(r, j - c.G))) keys.push_back(ref_key_from_row(r.x, j, h, 0.0));
            for (int t = i * c.B; t < (i + 1) * c.B; ++t)
                worst = std::max(worst,
                                 row_diff(r.out, D, c.G + t, h, c.hd, ref_attend(r.x.qrow(c.G + t, h), c.hd, keys)));
        }
    }
    EXPECT_LT(worst, 3e-5);
}

std::vector<Case> equivalence_cases(SparsityType type) {
    std::vector<Case> cases;
    for (int G : {1, 2})
        for (int f : {2, 4})
            for (int nb : {3, 4, 5, 8}) {
                const int T = nb * 16;
                cases.push_back({type, 16, 16, f, G, T, 5, 8, 3 + nb, {nb * 5}});
            }
    cases.push_back({type, 16, 8, 2, 1, 96, 4, 8, 9, {}});    // SB < B
    cases.push_back({type, 16, 20, 2, 2, 128, 4, 8, 20, {}}); // SB not a multiple of B/f
    cases.push_back({type, 16, 16, 4, 1, 112, 4, 8, 0, {}});  // no padding
    return cases;
}

TEST(LsgAttention, StrideEqualsDenseAttentionWithEquivalentMask) {
    uint32_t seed = 1;
    for (const Case& c : equivalence_cases(SparsityType::Stride)) expect_dense_equivalent(c, seed++);
}

TEST(LsgAttention, BlockStrideEqualsDenseAttentionWithEquivalentMask) {
    uint32_t seed = 100;
    for (const Case& c : equivalence_cases(SparsityType::BlockStride)) expect_dense_equivalent(c, seed++);
}

TEST(LsgAttention, NormEqualsDenseAttentionWithEquivalentMask) {
    uint32_t seed = 200;
    for (const Case& c : equivalence_cases(SparsityType::Norm)) expect_dense_equivalent(c, seed++);
    // a chunk with fewer valid tokens than kept slots (masked tokens get selected, weight 0)
    expect_dense_equivalent({SparsityType::Norm, 16, 16, 2, 1, 64, 3, 8, 14, {}}, seed++);
}

TEST(LsgAttention, NoneIsGlobalPlusLocalOnly) {
    uint32_t seed = 300;
    for (const Case& c : equivalence_cases(SparsityType::None)) expect_dense_equivalent(c, seed++);
}

TEST(LsgAttention, SparsityFactorOneUsesAllTokensAsSparseKeys) {
    expect_dense_equivalent({SparsityType::Stride, 16, 16, 1, 1, 96, 3, 8, 7, {}}, 400);
    expect_dense_equivalent({SparsityType::Norm, 16, 16, 1, 2, 80, 3, 8, 3, {}}, 401);
}

// ---- slow per-query reimplementation ----------------------------------------------

using SparseKeyFn = std::function<RefKey(int j, int h)>;

// The key list of lsg-spec 3.B for token query block i, literally, in the reference order.
std::vector<RefKey> spec_keys(const LsgRun& r, const Case& c, int i, int h, const SparseKeyFn& sparse) {
    std::vector<RefKey> keys;
    for (int g = 0; g < c.G; ++g) keys.push_back(ref_key_from_row(r.x, g, h, 0.0));
    const int p = c.B / c.f, len = c.T / c.f;
    if (c.type != SparsityType::None) {
        const int starts[2] = {(i - 1) * p - c.SB, p == 1 ? i : (i + 2) * p};
        for (int s : starts)
            for (int j = s; j < s + c.SB; ++j) keys.push_back(j >= 0 && j < len ? sparse(j, h) : zero_key(c.hd));
    }
    for (int t = (i - 1) * c.B; t < (i + 2) * c.B; ++t)
        keys.push_back(t >= 0 && t < c.T ? ref_key_from_row(r.x, c.G + t, h, r.mask[size_t(t)]) : zero_key(c.hd));
    EXPECT_EQ(int(keys.size()), c.G + (c.type == SparsityType::None ? 0 : 2 * c.SB) + 3 * c.B);
    return keys;
}

void expect_matches_spec(const Case& c, const LsgRun& r, const SparseKeyFn& sparse) {
    SCOPED_TRACE(describe(c));
    double worst = 0;
    for (int h = 0; h < c.heads; ++h)
        for (int i = 0; i < c.T / c.B; ++i) {
            const auto keys = spec_keys(r, c, i, h, sparse);
            for (int t = i * c.B; t < (i + 1) * c.B; ++t)
                worst = std::max(worst, row_diff(r.out, r.x.D(), c.G + t, h, c.hd,
                                                 ref_attend(r.x.qrow(c.G + t, h), c.hd, keys)));
        }
    EXPECT_LT(worst, 3e-5);
}

SparseKeyFn pooling_keys(const LsgRun& r, const Case& c) {
    return [&r, &c](int j, int h) {
        RefKey key = zero_key(c.hd);
        std::vector<float> ks(size_t(c.hd), 0.0f), vs(size_t(c.hd), 0.0f);
        int count = 0;
        for (int t = j * c.f; t < (j + 1) * c.f; ++t) {
            if (!valid(r, t)) continue;
            ++count;
            for (int d = 0; d < c.hd; ++d) {
                ks[size_t(d)] += r.x.krow(c.G + t, h)[d];
                vs[size_t(d)] += r.x.vrow(c.G + t, h)[d];
            }
        }
        for (int d = 0; d < c.hd; ++d) {
            key.k[size_t(d)] = ks[size_t(d)] / (float(count) + 1e-6f);
            key.v[size_t(d)] = vs[size_t(d)] / (float(count) + 1e-6f);
        }
        key.mask = count > 0 ? 0.0 : double(kMin);
        return key;
    };
}

SparseKeyFn bos_pooling_keys(const LsgRun& r, const Case& c) {
    return [&r, &c](int j, int h) {
        const float* q0 = r.x.qrow(c.G, h);  // first non-global token
        std::vector<RefKey> group;
        for (int t = j * c.f; t < (j + 1) * c.f; ++t)
            group.push_back(ref_key_from_row(r.x, c.G + t, h, r.mask[size_t(t)]));
        std::vector<double> w(group.size());
        double mx = -INFINITY, sum = 0;
        for (size_t u = 0; u < group.size(); ++u) {
            double dot = 0;
            for (int d = 0; d < c.hd; ++d) dot += double(q0[d]) * group[u].k[size_t(d)];
            w[u] = group[u].mask <= double(kMin) ? double(kMin) : dot / std::sqrt(double(c.hd));
            mx = std::max(mx, w[u]);
        }
        for (auto& e : w) sum += (e = std::exp(e - mx));
        RefKey key = zero_key(c.hd);
        for (size_t u = 0; u < group.size(); ++u)
            for (int d = 0; d < c.hd; ++d) {
                key.k[size_t(d)] += w[u] / sum * group[u].k[size_t(d)];
                key.v[size_t(d)] += w[u] / sum * group[u].v[size_t(d)];
            }
        key.mask = 0.0;  // the float32 mean of f lowest values overflows to -inf, so never masked
        return key;
    };
}

// R[round] as [h][hd][n_hashes]
SparseKeyFn lsh_keys(const LsgRun& r, const Case& c, const std::vector<std::vector<float>>& R) {
    return [&r, &c, &R](int j, int h) {
        const int bs = std::min(c.B, c.SB), m = bs / c.f, ch = j / m;
        // items of the chunk: masked tokens zeroed, count 1 for valid tokens
        std::vector<std::vector<double>> k, v;
        std::vector<double> cnt;
        for (int t = ch * bs; t < (ch + 1) * bs; ++t) {
            const bool ok = valid(r, t);
            k.emplace_back(size_t(c.hd));
            v.emplace_back(size_t(c.hd));
            for (int d = 0; d < c.hd; ++d) {
                k.back()[size_t(d)] = ok ? r.x.krow(c.G + t, h)[d] : 0.0;
                v.back()[size_t(d)] = ok ? r.x.vrow(c.G + t, h)[d] : 0.0;
            }
            cnt.push_back(ok ? 1.0 : 0.0);
        }
        for (size_t round = 0; round < R.size(); ++round) {
            const int out = round + 1 < R.size() ? bs : m;
            const int nh = out / 2;
            std::vector<std::vector<double>> k2(size_t(out), std::vector<double>(size_t(c.hd), 0.0)), v2 = k2;
            std::vector<double> c2(size_t(out), 0.0);
            for (size_t u = 0; u < k.size(); ++u) {
                double n = 0;
                for (double e : k[u]) n += e * e;
                n = std::max(std::sqrt(n), 1e-12);
                std::vector<double> proj;
                for (int e = 0; e < nh; ++e) {
                    double s = 0;
                    for (int d = 0; d < c.hd; ++d)
                        s += k[u][size_t(d)] / n * std::clamp(cnt[u], 0.0, 1.0) *
                             R[round][(size_t(h) * c.hd + d) * nh + e];
                    proj.push_back(s);
                }
                for (int e = 0; e < nh; ++e) proj.push_back(-proj[size_t(e)]);
                const int bucket = int(std::max_element(proj.begin(), proj.end()) - proj.begin());  // first max
                for (int d = 0; d < c.hd; ++d) {
                    k2[size_t(bucket)][size_t(d)] += k[u][size_t(d)];
                    v2[size_t(bucket)][size_t(d)] += v[u][size_t(d)];
                }
                c2[size_t(bucket)] += cnt[u];
            }
            k = k2, v = v2, cnt = c2;
        }
        const int b = j % m;
        RefKey key = zero_key(c.hd);
        for (int d = 0; d < c.hd; ++d) {
            key.k[size_t(d)] = k[size_t(b)][size_t(d)] / (cnt[size_t(b)] + 1e-8);
            key.v[size_t(d)] = v[size_t(b)][size_t(d)] / (cnt[size_t(b)] + 1e-8);
        }
        key.mask = cnt[size_t(b)] == 0 ? double(kMin) : 0.0;
        return key;
    };
}

TEST(LsgAttention, PoolingMatchesSpecPerQuery) {
    uint32_t seed = 500;
    for (const Case& c : equivalence_cases(SparsityType::Pooling)) {
        LsgRun r = run_lsg(c, seed++);
        expect_matches_spec(c, r, pooling_keys(r, c));
    }
}

TEST(LsgAttention, BosPoolingMatchesSpecPerQuery) {
    uint32_t seed = 600;
    for (const Case& c : equivalence_cases(SparsityType::BosPooling)) {
        LsgRun r = run_lsg(c, seed++);
        expect_matches_spec(c, r, bos_pooling_keys(r, c));
    }
    // first token masked: q0 is still the first non-global query
    Case c{SparsityType::BosPooling, 16, 16, 4, 2, 80, 3, 8, 9, {0}};
    LsgRun r = run_lsg(c, seed++);
    expect_matches_spec(c, r, bos_pooling_keys(r, c));
}

TEST(LsgAttention, BosPoolingAllPadGroupIsNotMasked) {
    // 16 padded tokens = 4 whole groups of f = 4: their pooled keys must get weight > 0.
    Case c{SparsityType::BosPooling, 16, 16, 4, 1, 64, 2, 8, 16, {}};
    AttentionRecorder rec;
    rec.head = 1;
    LsgRun r = run_lsg(c, 650, nullptr, &rec);
    bool found = false;
    for (const auto& blk : rec.blocks)
        for (size_t j = 0; j < blk.keys.size(); ++j) {
            const auto& key = blk.keys[j];
            if (key.kind != AttentionKeyKind::Sparse || key.row_begin < c.G + c.T - c.pad) continue;
            found = true;
            EXPECT_GT(blk.weights[j], 0.0f) << "query block " << blk.query_begin;  // first query row
        }
    EXPECT_TRUE(found);
}

std::vector<std::vector<float>> random_projections(const Case& c, uint32_t seed, LshProjections& lsh) {
    std::mt19937 gen(seed);
    std::normal_distribution<float> nd;
    const int bs = std::min(c.B, c.SB);
    std::vector<std::vector<float>> R;
    for (int round = 0; round <= c.pre_rounds; ++round) {
        const int nh = (round < c.pre_rounds ? bs : bs / c.f) / 2;
        std::vector<float> r(size_t(c.heads) * c.hd * nh);
        for (auto& e : r) e = nd(gen);
        lsh.inject(0, round, Tensor::from_floats({1, c.heads, 1, c.hd, nh}, r));
        R.push_back(r);
    }
    return R;
}

TEST(LsgAttention, LshMatchesSpecPerQueryWithInjectedProjections) {
    uint32_t seed = 700;
    std::vector<Case> cases = equivalence_cases(SparsityType::Lsh);
    cases.push_back({SparsityType::Lsh, 16, 16, 2, 1, 96, 3, 8, 20, {}, 2});  // two pre-rounds
    cases.push_back({SparsityType::Lsh, 16, 16, 2, 1, 96, 3, 8, 5, {}, 0});   // no pre-round
    for (const Case& c : cases) {
        LshProjections lsh;
        const auto R = random_projections(c, seed, lsh);
        LsgRun r = run_lsg(c, seed++, &lsh);
        expect_matches_spec(c, r, lsh_keys(r, c, R));
    }
}

TEST(LsgAttention, LshWithFactorEqualToSparseBlockIsBosPooling) {
    Case lsh{SparsityType::Lsh, 16, 4, 4, 1, 64, 3, 8, 6, {}};
    Case bos = lsh;
    bos.type = SparsityType::BosPooling;
    LsgRun a = run_lsg(lsh, 800);  // no projections needed
    LsgRun b = run_lsg(bos, 800);
    EXPECT_EQ(a.out, b.out);
}

TEST(LsgAttention, SecondSparseRangeStartsAtBlockIndexWhenBlockEqualsFactor) {
    // p == 1: the reference's second sparse range starts at i and overlaps the local window.
    Case c{SparsityType::Stride, 8, 8, 8, 1, 64, 3, 8, 5, {}};
    LsgRun r = run_lsg(c, 900);
    expect_matches_spec(c, r, [&](int j, int h) {
        const int t = j * c.f + h % c.f;
        return ref_key_from_row(r.x, c.G + t, h, r.mask[size_t(t)]);
    });
    Case cp = c;
    cp.type = SparsityType::Pooling;
    LsgRun rp = run_lsg(cp, 901);
    expect_matches_spec(cp, rp, pooling_keys(rp, cp));
}

TEST(LsgAttention, ShortInputFallsBackToFullAttentionOverGlobalsAndTokens) {
    for (SparsityType type : {SparsityType::Norm, SparsityType::Lsh, SparsityType::Pooling}) {
        for (int T : {5, 16, 32}) {  // B = 16: T <= 2B
            Case c{type, 16, 16, 2, 2, T, 3, 8, 2, {}};
            LsgRun r = run_lsg(c, 1000 + T);  // lsh == null is fine on the short path
            std::vector<float> full_mask(size_t(c.G), 0.0f);
            full_mask.insert(full_mask.end(), r.mask.begin(), r.mask.end());
            std::vector<float> expect(r.out.size());
            full_attention(r.x.input(), full_mask.data(), expect.data());
            EXPECT_EQ(r.out, expect) << "T " << T;
        }
    }
}

TEST(LsgAttention, InvalidSettingsThrow) {
    RandomQkv x = random_qkv(1 + 96, 2, 8, 1);
    std::vector<float> mask(96, 0.0f), out(size_t(97) * 16);
    auto call = [&](LsgSettings s, LshProjections* lsh = nullptr, int T = 96) {
        AttentionInput in = x.input();
        in.rows = 1 + T;
        lsg_attention(in, mask.data(), 1, s, 0, lsh, out.data());
    };
    LsgSettings s;
    s.block_size = 16;
    s.sparse_block_size = 16;
    s.sparsity_factor = 2;
    EXPECT_NO_THROW(call(s));
    LsgSettings bad = s;
    bad.sparsity_factor = 3;  // B % f != 0
    EXPECT_THROW(call(bad), Error);
    EXPECT_THROW(call(bad, nullptr, 20), Error);  // also on the short path
    EXPECT_NO_THROW(call(s, nullptr, 20));        // short inputs need no multiple of B
    bad = s;
    bad.block_size = 24;
    bad.sparsity_factor = 4;  // p = 6 is fine (even); 4*SB = 64 > 18
    EXPECT_NO_THROW(call(bad));
    bad.sparsity_factor = 8;  // p = 3: odd and > 1
    EXPECT_THROW(call(bad), Error);
    bad = s;
    bad.sparse_block_size = 6;  // 4*SB = 24 <= 3p = 24
    EXPECT_THROW(call(bad), Error);
    bad = s;
    bad.sparsity_type = static_cast<SparsityType>(42);
    EXPECT_THROW(call(bad), Error);
    EXPECT_THROW(call(s, nullptr, 90), Error);  // T > 2B but not a multiple of B
    bad = s;
    bad.sparse_block_size = 12;  // norm: T = 96 ok, T = 112 not a multiple of min(B, SB) = 12
    EXPECT_NO_THROW(call(bad));
    EXPECT_THROW(call(bad, nullptr, 112), Error);
    bad = s;
    bad.sparsity_type = SparsityType::Lsh;
    EXPECT_THROW(call(bad), Error);  // lsh without projections
    LshProjections lsh;
    lsh.inject(0, 0, Tensor::zeros(DType::F32, {1, 2, 1, 8, 3}));  // n_hashes should be 8
    EXPECT_THROW(call(bad, &lsh), Error);
    try {
        bad = s;
        bad.sparsity_factor = 3;
        call(bad);
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("16"), std::string::npos) << e.what();
    }
}

TEST(LshProjections, SeededDrawsAreReproducibleAndFreshPerCallLayerAndRound) {
    LshProjections a = LshProjections::seeded(42), b = LshProjections::seeded(42), c = LshProjections::seeded(43);
    const auto ra = a.get(1, 0, 3, 8, 4);
    EXPECT_EQ(ra, b.get(1, 0, 3, 8, 4));
    EXPECT_NE(ra, c.get(1, 0, 3, 8, 4));
    EXPECT_NE(ra, a.get(2, 0, 3, 8, 4));
    EXPECT_NE(ra, a.get(1, 1, 3, 8, 4));
    a.next_call();
    EXPECT_NE(ra, a.get(1, 0, 3, 8, 4));
    double mean = 0, var = 0;
    const auto big = b.get(0, 0, 12, 64, 64);
    for (float e : big) mean += e;
    mean /= double(big.size());
    for (float e : big) var += (e - mean) * (e - mean);
    var /= double(big.size());
    EXPECT_NEAR(mean, 0.0, 0.02);
    EXPECT_NEAR(var, 1.0, 0.03);
}

TEST(LshProjections, InjectedMatricesWinOverDrawsAndAcceptBothShapes) {
    LshProjections p = LshProjections::seeded(1);
    std::vector<float> r(2 * 4 * 3);
    std::iota(r.begin(), r.end(), 0.0f);
    p.inject(0, 1, Tensor::from_floats({1, 2, 1, 4, 3}, r));
    p.inject(1, 0, Tensor::from_floats({2, 4, 3}, r));
    EXPECT_EQ(p.get(0, 1, 2, 4, 3), r);
    EXPECT_EQ(p.get(1, 0, 2, 4, 3), r);
    p.next_call();
    EXPECT_EQ(p.get(0, 1, 2, 4, 3), r);
    EXPECT_THROW(p.get(0, 1, 2, 4, 4), Error);
    EXPECT_THROW(p.inject(0, 0, Tensor::zeros(DType::F32, {2, 4})), Error);
}

TEST(LsgAttention, RecordedWeightsAndKeySourcesReproduceTheOutput) {
    for (SparsityType type : {SparsityType::Norm, SparsityType::Stride, SparsityType::BlockStride}) {
        Case c{type, 16, 16, 4, 2, 96, 3, 8, 7, {}};
        AttentionRecorder rec;
        rec.head = 1;
        LsgRun r = run_lsg(c, 1100, nullptr, &rec);
        int rows = 0;
        for (const auto& blk : rec.blocks) {
            const size_t nk = blk.keys.size();
            for (int q = blk.query_begin; q < blk.query_end; ++q, ++rows) {
                std::vector<double> o(size_t(c.hd), 0.0);
                double sum = 0;
                for (size_t j = 0; j < nk; ++j) {
                    const float w = blk.weights[size_t(q - blk.query_begin) * nk + j];
                    sum += w;
                    ASSERT_EQ(blk.keys[j].row_end - blk.keys[j].row_begin, 1);
                    for (int d = 0; d < c.hd; ++d) o[size_t(d)] += w * r.x.vrow(blk.keys[j].row_begin, 1)[d];
                }
                EXPECT_NEAR(sum, 1.0, 1e-5);
                EXPECT_LT(row_diff(r.out, r.x.D(), q, 1, c.hd, o), 1e-5);
            }
        }
        EXPECT_EQ(rows, c.G + c.T);
    }
}

}  // namespace
}  // namespace precis::test
