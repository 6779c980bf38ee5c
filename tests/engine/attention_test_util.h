#pragma once
// Helpers shared by the attention tests: random inputs and a slow, obviously-correct
// attention over an explicit key list, in double precision.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "engine/attention/attention.h"

namespace precis::test {

inline constexpr float kMin = std::numeric_limits<float>::lowest();

struct RandomQkv {
    int rows = 0, heads = 0, hd = 0;
    std::vector<float> q, k, v;
    AttentionInput input() const { return {q.data(), k.data(), v.data(), rows, heads, hd}; }
    int D() const { return heads * hd; }
    const float* qrow(int r, int h) const { return q.data() + size_t(r) * D() + size_t(h) * hd; }
    const float* krow(int r, int h) const { return k.data() + size_t(r) * D() + size_t(h) * hd; }
    const float* vrow(int r, int h) const { return v.data() + size_t(r) * D() + size_t(h) * hd; }
};

inline RandomQkv random_qkv(int rows, int heads, int hd, uint32_t seed, float scale = 1.0f) {
    RandomQkv x;
    x.rows = rows;
    x.heads = heads;
    x.hd = hd;
    std::mt19937 gen(seed);
    std::normal_distribution<float> nd(0.0f, scale);
    const size_t n = size_t(rows) * heads * hd;
    x.q.resize(n);
    x.k.resize(n);
    x.v.resize(n);
    for (auto* vec : {&x.q, &x.k, &x.v})
        for (auto& e : *vec) e = nd(gen);
    // vary key norms a lot so that norm selection has clear winners
    std::uniform_real_distribution<float> ud(0.3f, 2.0f);
    for (int r = 0; r < rows; ++r)
        for (int h = 0; h < heads; ++h) {
            const float s = ud(gen);
            for (int d = 0; d < hd; ++d) x.k[size_t(r) * heads * hd + size_t(h) * hd + d] *= s;
        }
    return x;
}

// Additive token mask: the last `pad` tokens and every token in `extra` are masked.
inline std::vector<float> token_mask_with_padding(int T, int pad, const std::vector<int>& extra = {}) {
    std::vector<float> m(size_t(T), 0.0f);
    for (int t = T - pad; t < T; ++t) m[size_t(t)] = kMin;
    for (int t : extra) m[size_t(t)] = kMin;
    return m;
}

// One key of an explicit key list.
struct RefKey {
    std::vector<double> k, v;
    double mask = 0.0;  // additive
};

// softmax(q.k / sqrt(hd) + mask) v over the list, literally (zero keys with lowest-float
// masks included), in double. A key with mask lowest gets weight 0 unless all keys are masked.
inline std::vector<double> ref_attend(const float* q, int hd, const std::vector<RefKey>& keys) {
    std::vector<double> s(keys.size());
    double mx = -INFINITY;
    for (size_t j = 0; j < keys.size(); ++j) {
        double dot = 0;
        for (int d = 0; d < hd; ++d) dot += double(q[d]) * keys[j].k[size_t(d)];
        // float32 semantics of the additive mask: s + lowest == lowest
        s[j] = keys[j].mask <= double(kMin) ? double(kMin) : dot / std::sqrt(double(hd)) + keys[j].mask;
        mx = std::max(mx, s[j]);
    }
    std::vector<double> out(size_t(hd), 0.0);
    double sum = 0;
    for (size_t j = 0; j < keys.size(); ++j) {
        s[j] = std::exp(s[j] - mx);
        sum += s[j];
    }
    for (size_t j = 0; j < keys.size(); ++j)
        for (int d = 0; d < hd; ++d) out[size_t(d)] += s[j] / sum * keys[j].v[size_t(d)];
    return out;
}

inline RefKey ref_key_from_row(const RandomQkv& x, int row, int h, double mask) {
    RefKey key;
    key.k.assign(x.krow(row, h), x.krow(row, h) + x.hd);
    key.v.assign(x.vrow(row, h), x.vrow(row, h) + x.hd);
    key.mask = mask;
    return key;
}

inline RefKey zero_key(int hd) {
    RefKey key;
    key.k.assign(size_t(hd), 0.0);
    key.v.assign(size_t(hd), 0.0);
    key.mask = double(kMin);
    return key;
}

// Largest |out - ref| over one row/head.
inline double row_diff(const std::vector<float>& out, int D, int row, int h, int hd, const std::vector<double>& ref) {
    double m = 0;
    for (int d = 0; d < hd; ++d)
        m = std::max(m, std::abs(double(out[size_t(row) * D + size_t(h) * hd + d]) - ref[size_t(d)]));
    return m;
}

}  // namespace precis::test
