// LSG encoder self-attention (lsg-spec.md section 3, fixtures README 5.2).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <optional>
#include <string>

#include "engine/attention/attention.h"
#include "engine/attention/attention_kernels.h"
#include "engine/attention/bf16_attention.h"
#include "engine/attention/bf16_tile.h"

namespace precis {

namespace {

using attn_detail::BlockScratch;
using attn_detail::KeySegment;
using attn_detail::kMaskMin;

// What actually builds the sparse keys: f == 1 is the identity for every type, and lsh
// with f == SB falls back to bos_pooling (as the reference does).
enum class SparseBuild { Identity, Norm, Pooling, Stride, BlockStride, BosPooling, Lsh };

SparseBuild sparse_build_of(const LsgSettings& s) {
    if (s.sparsity_factor == 1) return SparseBuild::Identity;
    switch (s.sparsity_type) {
        case SparsityType::Norm: return SparseBuild::Norm;
        case SparsityType::Pooling: return SparseBuild::Pooling;
        case SparsityType::Stride: return SparseBuild::Stride;
        case SparsityType::BlockStride: return SparseBuild::BlockStride;
        case SparsityType::BosPooling: return SparseBuild::BosPooling;
        case SparsityType::Lsh:
            return s.sparsity_factor == s.sparse_block_size ? SparseBuild::BosPooling : SparseBuild::Lsh;
        case SparsityType::None: break;
    }
    return SparseBuild::Identity;  // unreachable after validation
}


// "valid" in the reference is ~mask.bool(): an additive mask entry of exactly 0.
inline bool is_valid(float m) { return m == 0.0f; }

// The compressed sequence of one call: per head, len keys/values and an additive mask.
struct SparseKV {
    int len = 0, hd = 0;
    std::vector<float> k, v, mask;  // [h][len][hd], [h][len][hd], [h][len]
    std::vector<int32_t> src;       // norm: source token of each kept key, [h][len]
    float* kh(int h) { return k.data() + size_t(h) * len * hd; }
    float* vh(int h) { return v.data() + size_t(h) * len * hd; }
    float* mh(int h) { return mask.data() + size_t(h) * len; }
};

struct LsgGeometry {
    int G, T, D, hd, heads, B, SB, f, p, bs;
};

SparsityType sparsity_built_as(SparseBuild type) {
    switch (type) {
        case SparseBuild::Identity: return SparsityType::None;
        case SparseBuild::Norm: return SparsityType::Norm;
        case SparseBuild::Pooling: return SparsityType::Pooling;
        case SparseBuild::Stride: return SparsityType::Stride;
        case SparseBuild::BlockStride: return SparsityType::BlockStride;
        case SparseBuild::BosPooling: return SparsityType::BosPooling;
        case SparseBuild::Lsh: return SparsityType::Lsh;
    }
    return SparsityType::None;
}

// Records, for the one head a recorder asked for, which token rows each sparse key was built
// from and with what share. Only that head's task writes to it, so no locking is needed.
struct SelectionRecord {
    int head = -1;
    SparseSelection* out = nullptr;
    bool wants(int h) const { return out != nullptr && h == head; }
    // key j stands for token t alone (stride, block_stride, norm, factor 1)
    void single(int G, int j, int t, bool valid) const {
        if (!valid) return;
        out->keys[size_t(j)].rows = {G + t};
        out->keys[size_t(j)].shares = {1.0f};
    }
};

void build_sparse(const AttentionInput& in, const float* token_mask, const LsgGeometry& g, const LsgSettings& s,
                  SparseBuild type, int layer, LshProjections* lsh, SparseKV& sp, const SelectionRecord& record) {
    const int hd = g.hd, D = g.D, T = g.T, f = g.f;
    sp.hd = hd;
    sp.len = T / f;
    const int len = sp.len;
    sp.k.assign(size_t(g.heads) * len * hd, 0.0f);
    sp.v.assign(size_t(g.heads) * len * hd, 0.0f);
    sp.mask.assign(size_t(g.heads) * len, 0.0f);
    if (type == SparseBuild::Norm) sp.src.assign(size_t(g.heads) * len, 0);
    if (record.out) {
        record.out->built_as = sparsity_built_as(type);
        record.out->factor = f;
        record.out->keys.assign(size_t(len), {});
    }
    const float* K = in.k + size_t(g.G) * D;  // token rows
    const float* V = in.v + size_t(g.G) * D;
    const float* Q = in.q + size_t(g.G) * D;
    auto krow = [&](int t, int h) { return K + size_t(t) * D + size_t(h) * hd; };
    auto vrow = [&](int t, int h) { return V + size_t(t) * D + size_t(h) * hd; };

    // LSH projections are fetched up front (not thread safe to draw lazily per head).
    std::vector<std::vector<float>> lsh_r;
    const int bs = g.bs;
    if (type == SparseBuild::Lsh) {
        for (int r = 0; r < s.lsh_num_pre_rounds; ++r) lsh_r.push_back(lsh->get(layer, r, g.heads, hd, bs / 2));
        lsh_r.push_back(lsh->get(layer, s.lsh_num_pre_rounds, g.heads, hd, (bs / f) / 2));
    }

#pragma omp parallel for schedule(dynamic, 1)
    for (int h = 0; h < g.heads; ++h) {
        float* ks = sp.kh(h);
        float* vs = sp.vh(h);
        float* ms = sp.mh(h);
        switch (type) {
            case SparseBuild::Identity:
                for (int t = 0; t < T; ++t) {
                    std::memcpy(ks + size_t(t) * hd, krow(t, h), sizeof(float) * hd);
                    std::memcpy(vs + size_t(t) * hd, vrow(t, h), sizeof(float) * hd);
                    ms[t] = token_mask[t];
                    if (record.wants(h)) record.single(g.G, t, t, is_valid(token_mask[t]));
                }
                break;
            case SparseBuild::Stride:
            case SparseBuild::BlockStride:
                for (int j = 0; j < len; ++j) {
                    int t;
                    if (type == SparseBuild::Stride) {
                        t = j * f + h % f;
                    } else {
                        const int b = j / g.p;
                        t = b * g.B + ((j % g.p) + (h % f) * g.p) % g.B;
                    }
                    std::memcpy(ks + size_t(j) * hd, krow(t, h), sizeof(float) * hd);
                    std::memcpy(vs + size_t(j) * hd, vrow(t, h), sizeof(float) * hd);
                    ms[j] = token_mask[t];
                    if (record.wants(h)) record.single(g.G, j, t, is_valid(token_mask[t]));
                }
                break;
            case SparseBuild::Norm: {
                const int keep = bs / f;
                std::vector<float> norm(static_cast<size_t>(bs));
                std::vector<int> idx(static_cast<size_t>(bs));
                int32_t* src = sp.src.data() + size_t(h) * len;
                for (int c = 0; c < T / bs; ++c) {
                    for (int u = 0; u < bs; ++u) {
                        const int t = c * bs + u;
                        const float* kk = krow(t, h);
                        double acc = 0.0;
                        for (int d = 0; d < hd; ++d) acc += double(kk[d]) * kk[d];
                        norm[size_t(u)] = is_valid(token_mask[t]) ? float(std::sqrt(acc)) : 0.0f;
                    }
                    std::iota(idx.begin(), idx.end(), 0);
                    // Largest norms first; ties keep the lower index (torch's order on ties is
                    // unspecified; tied keys are masked ones, whose choice does not matter).
                    std::stable_sort(idx.begin(), idx.end(),
                                     [&](int a, int b) { return norm[size_t(a)] > norm[size_t(b)]; });
                    // The reference keeps the tail of an ascending argsort: ascending norm order.
                    for (int r = 0; r < keep; ++r) {
                        const int t = c * bs + idx[size_t(keep - 1 - r)];
                        const int j = c * keep + r;
                        std::memcpy(ks + size_t(j) * hd, krow(t, h), sizeof(float) * hd);
                        std::memcpy(vs + size_t(j) * hd, vrow(t, h), sizeof(float) * hd);
                        ms[j] = token_mask[t];
                        src[j] = t;
                        if (record.wants(h)) record.single(g.G, j, t, is_valid(token_mask[t]));
                    }
                }
                break;
            }
            case SparseBuild::Pooling:
                for (int j = 0; j < len; ++j) {
                    float* kd = ks + size_t(j) * hd;
                    float* vd = vs + size_t(j) * hd;
                    int count = 0;
                    for (int u = 0; u < f; ++u) {
                        const int t = j * f + u;
                        if (!is_valid(token_mask[t])) continue;
                        ++count;
                        const float* kk = krow(t, h);
                        const float* vv = vrow(t, h);
                        for (int d = 0; d < hd; ++d) {
                            kd[d] += kk[d];
                            vd[d] += vv[d];
                        }
                    }
                    const float div = float(count) + 1e-6f;
                    for (int d = 0; d < hd; ++d) {
                        kd[d] /= div;
                        vd[d] /= div;
                    }
                    ms[j] = count > 0 ? 0.0f : kMaskMin;
                    if (record.wants(h) && count > 0) {
                        SparseKeySource& key = record.out->keys[size_t(j)];
                        for (int u = 0; u < f; ++u)
                            if (is_valid(token_mask[j * f + u])) key.rows.push_back(g.G + j * f + u);
                        key.shares.assign(key.rows.size(), 1.0f / float(count));
                    }
                }
                break;
            case SparseBuild::BosPooling: {
                const float* q0 = Q + size_t(h) * hd;  // query of the first non-global token
                const float sq = std::sqrt(float(hd));
                std::vector<float> w(static_cast<size_t>(f));
                for (int j = 0; j < len; ++j) {
                    float mx = -INFINITY;
                    for (int u = 0; u < f; ++u) {
                        const int t = j * f + u;
                        const float* kk = krow(t, h);
                        float dot = 0.0f;
                        for (int d = 0; d < hd; ++d) dot += q0[d] * kk[d];
                        w[size_t(u)] = dot / sq + token_mask[t];
                        mx = std::max(mx, w[size_t(u)]);
                    }
                    float sum = 0.0f;
                    for (int u = 0; u < f; ++u) {
                        w[size_t(u)] = std::exp(w[size_t(u)] - mx);
                        sum += w[size_t(u)];
                    }
                    float* kd = ks + size_t(j) * hd;
                    float* vd = vs + size_t(j) * hd;
                    for (int u = 0; u < f; ++u) {
                        const float wu = w[size_t(u)] / sum;
                        if (record.wants(h) && wu > 0) {  // padding gets exactly 0: not a member
                            record.out->keys[size_t(j)].rows.push_back(g.G + j * f + u);
                            record.out->keys[size_t(j)].shares.push_back(wu);
                        }
                        const float* kk = krow(j * f + u, h);
                        const float* vv = vrow(j * f + u, h);
                        for (int d = 0; d < hd; ++d) {
                            kd[d] += wu * kk[d];
                            vd[d] += wu * vv[d];
                        }
                    }
                    ms[j] = 0.0f;  // quirk: the float32 mean of f lowest values is -inf, never == lowest
                }
                break;
            }
            case SparseBuild::Lsh: {
                // Items: the bs tokens of a chunk (masked ones zeroed, count 0), then the buckets
                // of each round. Keys/values are sums until the final division.
                const int nrounds = int(lsh_r.size());
                std::vector<float> ik(size_t(bs) * hd), iv(size_t(bs) * hd), ic(static_cast<size_t>(bs));
                std::vector<float> ok(size_t(bs) * hd), ov(size_t(bs) * hd), oc(static_cast<size_t>(bs));
                std::vector<float> x(static_cast<size_t>(hd)), proj(static_cast<size_t>(bs));
                const int out_final = bs / f;
                // Recording only: the item each token of the chunk sits in after each round, and
                // the bucket each item went to in the current round.
                std::vector<int> item_of(static_cast<size_t>(bs)), bucket_of(static_cast<size_t>(bs));
                for (int c = 0; c < T / bs; ++c) {
                    int items = bs;
                    if (record.wants(h)) std::iota(item_of.begin(), item_of.end(), 0);
                    for (int u = 0; u < bs; ++u) {
                        const int t = c * bs + u;
                        const bool valid = is_valid(token_mask[t]);
                        for (int d = 0; d < hd; ++d) {
                            ik[size_t(u) * hd + d] = valid ? krow(t, h)[d] : 0.0f;
                            iv[size_t(u) * hd + d] = valid ? vrow(t, h)[d] : 0.0f;
                        }
                        ic[size_t(u)] = valid ? 1.0f : 0.0f;
                    }
                    for (int r = 0; r < nrounds; ++r) {
                        const int out = r + 1 < nrounds ? bs : out_final;
                        const int nh = out / 2;
                        const float* R = lsh_r[size_t(r)].data() + size_t(h) * hd * nh;  // [hd][nh]
                        std::fill(ok.begin(), ok.begin() + size_t(out) * hd, 0.0f);
                        std::fill(ov.begin(), ov.begin() + size_t(out) * hd, 0.0f);
                        std::fill(oc.begin(), oc.begin() + out, 0.0f);
                        for (int u = 0; u < items; ++u) {
                            const float* kk = ik.data() + size_t(u) * hd;
                            float nrm = 0.0f;
                            for (int d = 0; d < hd; ++d) nrm += kk[d] * kk[d];
                            nrm = std::max(std::sqrt(nrm), 1e-12f);
                            const float bin = std::clamp(ic[size_t(u)], 0.0f, 1.0f);
                            for (int d = 0; d < hd; ++d) x[size_t(d)] = kk[d] / nrm * bin;
                            std::fill(proj.begin(), proj.begin() + nh, 0.0f);
                            for (int d = 0; d < hd; ++d) {
                                const float xd = x[size_t(d)];
                                const float* Rd = R + size_t(d) * nh;
                                for (int e = 0; e < nh; ++e) proj[size_t(e)] += xd * Rd[e];
                            }
                            // argmax over [proj, -proj], first maximum wins
                            int best = 0;
                            float bv = proj[0];
                            for (int e = 1; e < nh; ++e)
                                if (proj[size_t(e)] > bv) bv = proj[size_t(e)], best = e;
                            for (int e = 0; e < nh; ++e)
                                if (-proj[size_t(e)] > bv) bv = -proj[size_t(e)], best = nh + e;
                            float* dk = ok.data() + size_t(best) * hd;
                            float* dv = ov.data() + size_t(best) * hd;
                            const float* vv = iv.data() + size_t(u) * hd;
                            for (int d = 0; d < hd; ++d) {
                                dk[d] += kk[d];
                                dv[d] += vv[d];
                            }
                            oc[size_t(best)] += ic[size_t(u)];
                            bucket_of[size_t(u)] = best;
                        }
                        if (record.wants(h))
                            for (int& item : item_of) item = bucket_of[size_t(item)];
                        std::swap(ik, ok);
                        std::swap(iv, ov);
                        std::swap(ic, oc);
                        items = out;
                    }
                    for (int b = 0; b < out_final; ++b) {
                        const int j = c * out_final + b;
                        const float div = ic[size_t(b)] + 1e-8f;
                        for (int d = 0; d < hd; ++d) {
                            ks[size_t(j) * hd + d] = ik[size_t(b) * hd + d] / div;
                            vs[size_t(j) * hd + d] = iv[size_t(b) * hd + d] / div;
                        }
                        ms[j] = (1.0f - std::clamp(ic[size_t(b)], 0.0f, 1.0f)) * kMaskMin;
                    }
                    if (record.wants(h))
                        for (int u = 0; u < bs; ++u) {  // padding is zeroed with a count of 0: not a member
                            if (!is_valid(token_mask[c * bs + u])) continue;
                            SparseKeySource& key = record.out->keys[size_t(c * out_final + item_of[size_t(u)])];
                            key.rows.push_back(g.G + c * bs + u);
                        }
                    if (record.wants(h))
                        for (int b = 0; b < out_final; ++b) {
                            SparseKeySource& key = record.out->keys[size_t(c * out_final + b)];
                            key.shares.assign(key.rows.size(), key.rows.empty() ? 0.0f : 1.0f / float(key.rows.size()));
                        }
                }
                break;
            }
        }
    }
}

// The input rows a sparse key j of head h stands for (G+T numbering), for the recorder.
AttentionRecorder::Key sparse_key_source(const SparseKV& sp, SparseBuild type, const LsgGeometry& g, int j, int h) {
    AttentionRecorder::Key key;
    key.kind = AttentionKeyKind::Sparse;
    int b0 = j, b1 = j + 1;
    switch (type) {
        case SparseBuild::Identity: break;
        case SparseBuild::Norm: b0 = sp.src[size_t(h) * sp.len + j], b1 = b0 + 1; break;
        case SparseBuild::Stride: b0 = j * g.f + h % g.f, b1 = b0 + 1; break;
        case SparseBuild::BlockStride:
            b0 = (j / g.p) * g.B + ((j % g.p) + (h % g.f) * g.p) % g.B, b1 = b0 + 1;
            break;
        case SparseBuild::Pooling:
        case SparseBuild::BosPooling: b0 = j * g.f, b1 = b0 + g.f; break;
        case SparseBuild::Lsh: {
            const int per = g.bs / g.f, c = j / per;
            b0 = c * g.bs, b1 = b0 + g.bs;
            break;
        }
    }
    key.row_begin = g.G + b0;
    key.row_end = g.G + b1;
    return key;
}

}  // namespace

void check_lsg_attention_settings(const LsgSettings& s, int T) {
    const int B = s.block_size, SB = s.sparse_block_size, f = s.sparsity_factor;
    check(B > 0, "LSG attention: block_size must be positive (got " + std::to_string(B) + ")");
    const int type = int(s.sparsity_type);
    check(type >= int(SparsityType::None) && type <= int(SparsityType::Lsh),
          "LSG attention: unknown sparsity type (enum value " + std::to_string(type) + ")");
    const bool sparse_path = T > 2 * B;  // the short fallback needs no particular length
    check(!sparse_path || T % B == 0, "LSG attention: the padded length " + std::to_string(T) +
                                          " must be a multiple of block_size " + std::to_string(B) +
                                          " on the sparse path (pad adaptively first)");
    if (!s.sparse_enabled()) return;
    check(B % f == 0, "LSG attention: block_size " + std::to_string(B) + " must be divisible by sparsity_factor " +
                          std::to_string(f));
    const int p = B / f;
    check(p == 1 || p % 2 == 0, "LSG attention: block_size / sparsity_factor = " + std::to_string(p) +
                                    " must be even or exactly 1 (block_size " + std::to_string(B) +
                                    ", sparsity_factor " + std::to_string(f) + ")");
    check(4 * SB > 3 * p, "LSG attention: 4 * sparse_block_size (" + std::to_string(4 * SB) +
                              ") must exceed 3 * block_size / sparsity_factor (" + std::to_string(3 * p) + ")");
    const bool chunked = s.sparsity_type == SparsityType::Norm ||
                         (s.sparsity_type == SparsityType::Lsh && f != SB);
    if (chunked && f > 1) {
        const int bs = std::min(B, SB);
        check(!sparse_path || T % bs == 0, "LSG attention: the padded length " + std::to_string(T) +
                               " must be a multiple of min(block_size, sparse_block_size) = " + std::to_string(bs) +
                               " for sparsity type " + sparsity_type_name(s.sparsity_type));
        check(bs % f == 0, "LSG attention: min(block_size, sparse_block_size) = " + std::to_string(bs) +
                               " must be divisible by sparsity_factor " + std::to_string(f));
        if (s.sparsity_type == SparsityType::Lsh) {
            check(bs / f >= 2, "LSG attention: lsh needs at least 2 buckets per chunk (min(B, SB) / f = " +
                                   std::to_string(bs / f) + ")");
            check(s.lsh_num_pre_rounds >= 0,
                  "LSG attention: lsh_num_pre_rounds must be >= 0 (got " + std::to_string(s.lsh_num_pre_rounds) + ")");
        }
    }
}

void lsg_attention(const AttentionInput& in, const float* token_mask, int num_global, const LsgSettings& s,
                   int layer, LshProjections* lsh, float* out, AttentionRecorder* recorder) {
    attn_detail::check_input(in, "lsg_attention");
    check(out != nullptr && token_mask != nullptr, "lsg_attention: token_mask and out must not be null");
    check(num_global >= 0 && num_global < in.rows,
          "lsg_attention: num_global " + std::to_string(num_global) + " must be in [0, rows) with rows " +
              std::to_string(in.rows));
    const int G = num_global, T = in.rows - G, D = in.heads * in.head_dim;
    const int B = s.block_size;
    check(B > 0, "lsg_attention: block_size must be positive (got " + std::to_string(B) + ")");
    if (recorder) {
        recorder->blocks.clear();
        recorder->sparse = {};
    }

    check_lsg_attention_settings(s, T);  // also on short inputs: bad settings fail early
    attn_detail::BlasSingleThreadScope blas_guard;
    std::vector<float> full_mask(size_t(in.rows), 0.0f);
    std::memcpy(full_mask.data() + G, token_mask, sizeof(float) * size_t(T));

    if (T <= 2 * B) {  // short input: full attention of all G+T queries over all G+T keys
        attn_detail::dense_attention_rows(in, 0, in.rows, full_mask.data(), out, recorder);
        return;
    }
    check(G >= 1, "lsg_attention: the sparse path needs at least one global token (got " + std::to_string(G) + ")");
    const bool sparse = s.sparse_enabled();
    LsgGeometry g{G, T, D, in.head_dim, in.heads, B, 0, 1, B, B};
    SparseKV sp;
    SparseBuild type = SparseBuild::Identity;
    if (sparse) {
        g.SB = s.sparse_block_size;
        g.f = s.sparsity_factor;
        g.p = B / g.f;
        g.bs = std::min(B, g.SB);
        type = sparse_build_of(s);
        check(type != SparseBuild::Lsh || lsh != nullptr,
              "lsg_attention: sparsity type lsh needs LSH projections (lsh is null)");
        SelectionRecord record;
        if (recorder) record = {recorder->head, &recorder->sparse};
        build_sparse(in, token_mask, g, s, type, layer, lsh, sp, record);
    }

    // 1. Global queries attend to every key.
    attn_detail::dense_attention_rows(in, 0, G, full_mask.data(), out, recorder);

    // 2. Token query blocks: [G globals, SB sparse before, SB sparse after, 3B local].
    const int nb = T / B;
    const float scale = 1.0f / std::sqrt(float(in.head_dim));
    const int hd = in.head_dim;
    size_t rec_base = 0;
    if (recorder) {
        rec_base = recorder->blocks.size();
        recorder->blocks.resize(rec_base + size_t(nb));
        if (sparse) recorder->sparse.blocks.resize(size_t(nb));
    }
    const int ntasks = nb * in.heads;
    // int8 runs: the blocks' products in bfloat16 (bf16_attention.h).
    std::optional<attn_detail::Bf16TileShape> bf16_shape;
    if (runs_bf16_products(in.products, recorder))
        bf16_shape.emplace(attn_detail::Bf16BlockAttention::shape_for(B, G + (sparse ? 2 * g.SB : 0) + 3 * B, hd));
    attn_detail::RegionFailure failure;
#pragma omp parallel
    {
        BlockScratch scratch;
        std::optional<attn_detail::Bf16BlockAttention> bf16;
#pragma omp for schedule(dynamic, 2)
        for (int task = 0; task < ntasks; ++task) {
            const int i = task / in.heads, h = task % in.heads;
            KeySegment segs[4];
            int nseg = 0;
            segs[nseg++] = {in.k + size_t(h) * hd, in.v + size_t(h) * hd, D, G, nullptr};
            int sp_lo[2] = {0, 0}, sp_hi[2] = {0, 0};
            if (sparse) {
                const int starts[2] = {(i - 1) * g.p - g.SB, g.p == 1 ? i : (i + 2) * g.p};
                for (int r = 0; r < 2; ++r) {
                    // out-of-range sparse indices are zero keys with mask lowest: weight 0, skipped
                    const int lo = std::max(starts[r], 0), hi = std::min(starts[r] + g.SB, sp.len);
                    sp_lo[r] = lo;
                    sp_hi[r] = std::max(hi, lo);
                    segs[nseg++] = {sp.kh(h) + size_t(lo) * hd, sp.vh(h) + size_t(lo) * hd, hd,
                                    std::max(hi - lo, 0), sp.mh(h) + lo};
                }
            }
            const int l0 = std::max((i - 1) * B, 0), l1 = std::min((i + 2) * B, T);
            segs[nseg++] = {in.k + size_t(G + l0) * D + size_t(h) * hd, in.v + size_t(G + l0) * D + size_t(h) * hd, D,
                            l1 - l0, token_mask + l0};
            const size_t qrow = size_t(G) + size_t(i) * B;
            AttentionRecorder::Block* blk =
                (recorder && recorder->head == h) ? &recorder->blocks[rec_base + size_t(i)] : nullptr;
            if (bf16_shape) {
                if (failure.failed()) continue;
                try {
                    if (!bf16) bf16.emplace(*bf16_shape);
                    bf16->attend(in.q + qrow * D + size_t(h) * hd, D, segs, nseg, scale, out + qrow * D + size_t(h) * hd,
                                 D);
                } catch (const std::exception& e) {
                    failure.record(e);
                }
                continue;
            }
            attn_detail::block_attention(in.q + qrow * D + size_t(h) * hd, D, B, segs, nseg, hd, scale,
                                         out + qrow * D + size_t(h) * hd, D, scratch, blk ? &blk->weights : nullptr);
            if (blk) {
                blk->query_begin = int32_t(qrow);
                blk->query_end = int32_t(qrow) + B;
                auto& keys = blk->keys;
                keys.clear();
                for (int j = 0; j < G; ++j) keys.push_back({j, j + 1, 1, AttentionKeyKind::Global});
                for (int r = 0; r < 2 && sparse; ++r)
                    for (int j = sp_lo[r]; j < sp_hi[r]; ++j) keys.push_back(sparse_key_source(sp, type, g, j, h));
                for (int t = l0; t < l1; ++t) keys.push_back({G + t, G + t + 1, 1, AttentionKeyKind::Local});
                if (sparse) {
                    SparseBlockKeys& seen = recorder->sparse.blocks[size_t(i)];
                    seen.query_begin = blk->query_begin;
                    seen.query_end = blk->query_end;
                    seen.keys.clear();
                    for (int r = 0; r < 2; ++r)
                        for (int j = sp_lo[r]; j < sp_hi[r]; ++j) seen.keys.push_back(j);
                }
            }
        }
    }
    failure.rethrow_if_failed();
}

}  // namespace precis
