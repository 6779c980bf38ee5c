#include "engine/attention/attention_pattern.h"

#include <algorithm>
#include <climits>
#include <string>

#include "engine/attention/attention.h"
#include "engine/core/error.h"

namespace precis {

const char* pattern_kind_name(PatternKind k) {
    switch (k) {
        case PatternKind::Dense: return "dense";
        case PatternKind::Global: return "global";
        case PatternKind::Local: return "local";
        case PatternKind::Sparse: return "sparse";
        case PatternKind::Candidates: return "candidates";
        case PatternKind::FoveaNode: return "fovea_node";
    }
    return "unknown";
}

namespace {


PatternSpan span(int q0, int q1, int k0, int k1, int count, PatternKind kind) {
    PatternSpan sp;
    sp.query_begin = q0;
    sp.query_end = q1;
    sp.key_begin = k0;
    sp.key_end = k1;
    sp.key_count = count;
    sp.kind = kind;
    return sp;
}

}  // namespace

AttentionPattern lsg_attention_pattern(const LsgSettings& s, int num_global, int T, int heads) {
    check(num_global >= 0 && T > 0 && heads > 0,
          "lsg_attention_pattern: need num_global >= 0, T > 0 and heads > 0 (got " + std::to_string(num_global) + ", " +
              std::to_string(T) + ", " + std::to_string(heads) + ")");
    check(s.block_size > 0, "lsg_attention_pattern: block_size must be positive");
    AttentionPattern pat;
    const int G = num_global, B = s.block_size, rows = G + T;
    pat.num_global = G;
    pat.tokens = T;
    pat.heads = heads;
    if (T <= 2 * B) {
        pat.sparse_path = false;
        pat.summary = "LSG short input (T=" + std::to_string(T) + " <= 2B=" + std::to_string(2 * B) +
                      "): full attention over " + std::to_string(rows) + " keys";
        pat.spans.push_back(span(0, rows, 0, rows, rows, PatternKind::Dense));
        return pat;
    }
    check_lsg_attention_settings(s, T);
    pat.sparse_path = true;
    const bool sparse = s.sparse_enabled();
    const int SB = sparse ? s.sparse_block_size : 0;
    const int f = sparse ? s.sparsity_factor : 1;
    const int p = B / f, len = T / f, bs = std::min(B, std::max(SB, 1));
    SparsityType type = s.sparsity_type;
    if (sparse && f > 1 && type == SparsityType::Lsh && f == SB) type = SparsityType::BosPooling;

    pat.spans.push_back(span(0, G, 0, rows, rows, PatternKind::Dense));
    const int nb = T / B;
    for (int i = 0; i < nb; ++i) {
        const int q0 = G + i * B, q1 = q0 + B;
        if (G > 0) pat.spans.push_back(span(q0, q1, 0, G, G, PatternKind::Global));
        if (sparse) {
            const int starts[2] = {(i - 1) * p - SB, p == 1 ? i : (i + 2) * p};
            for (int r = 0; r < 2; ++r) {
                const int lo = std::max(starts[r], 0), hi = std::min(starts[r] + SB, len);
                if (hi <= lo) continue;
                if (f == 1) {
                    pat.spans.push_back(span(q0, q1, G + lo, G + hi, hi - lo, PatternKind::Sparse));
                    continue;
                }
                switch (type) {
                    case SparsityType::Pooling:
                    case SparsityType::BosPooling: {
                        PatternSpan sp = span(q0, q1, G + lo * f, G + hi * f, hi - lo, PatternKind::Sparse);
                        sp.group = f;
                        pat.spans.push_back(sp);
                        break;
                    }
                    case SparsityType::Norm:
                    case SparsityType::Lsh: {
                        const int per = bs / f;
                        const int c0 = lo / per, c1 = (hi + per - 1) / per;
                        pat.spans.push_back(
                            span(q0, q1, G + c0 * bs, G + std::min(c1 * bs, T), hi - lo, PatternKind::Candidates));
                        break;
                    }
                    case SparsityType::Stride:
                        for (int h = 0; h < heads; ++h) {
                            const int off = h % f;
                            PatternSpan sp = span(q0, q1, G + lo * f + off, G + (hi - 1) * f + off + 1, hi - lo,
                                                  PatternKind::Sparse);
                            sp.step = f;
                            sp.head = int16_t(h);
                            pat.spans.push_back(sp);
                        }
                        break;
                    case SparsityType::BlockStride:
                        for (int h = 0; h < heads; ++h) {
                            const int off = (h % f) * p;
                            for (int j = lo; j < hi;) {
                                const int b = j / p, j1 = std::min(hi, (b + 1) * p);
                                const int t0 = b * B + (j % p) + off;
                                PatternSpan sp = span(q0, q1, G + t0, G + t0 + (j1 - j), j1 - j, PatternKind::Sparse);
                                sp.head = int16_t(h);
                                pat.spans.push_back(sp);
                                j = j1;
                            }
                        }
                        break;
                    case SparsityType::None: break;
                }
            }
        }
        const int l0 = std::max((i - 1) * B, 0), l1 = std::min((i + 2) * B, T);
        pat.spans.push_back(span(q0, q1, G + l0, G + l1, l1 - l0, PatternKind::Local));
    }
    const int per_query = G + (sparse ? 2 * SB : 0) + 3 * B;
    pat.summary = std::string("LSG ") + (sparse ? sparsity_type_name(s.sparsity_type) : "none") + ": B=" +
                  std::to_string(B) + (sparse ? " SB=" + std::to_string(SB) + " f=" + std::to_string(f) : "") +
                  " G=" + std::to_string(G) + ", up to " + std::to_string(per_query) + " keys per query" +
                  (sparse && (type == SparsityType::Norm || type == SparsityType::Lsh) && f > 1
                       ? " (sparse keys depend on the data)"
                       : "");
    return pat;
}

int fovea_top_level(int num_blocks, const FoveaSettings& s) {
    check(num_blocks >= 1, "fovea: need at least one block (got " + std::to_string(num_blocks) + ")");
    int top = 0;
    while ((int64_t(2) << top) <= num_blocks) ++top;  // largest level with 2^top <= NB
    if (s.stop_level >= 0) top = std::min(top, s.stop_level);
    return top;
}

std::vector<FoveaNode> fovea_select_nodes(int num_blocks, int query_block, const FoveaSettings& s) {
    check(s.wing >= 1, "fovea: wing must be >= 1 (got " + std::to_string(s.wing) + ")");
    check(query_block >= 0 && query_block < num_blocks,
          "fovea: query block " + std::to_string(query_block) + " outside [0, " + std::to_string(num_blocks) + ")");
    const int NB = num_blocks, top = fovea_top_level(NB, s);
    std::vector<FoveaNode> nodes{{0, query_block}};
    // Right side: a = first block not yet covered.
    int a = query_block + 1, stopped = top;
    for (int p = 0; p <= top; ++p) {
        const int count = p < top ? s.wing : INT_MAX;
        bool edge = false;
        for (int k = 0; k < count; ++k) {
            if (a + (1 << p) > NB) {
                edge = true;
                break;
            }
            nodes.push_back({p, a});
            a += 1 << p;
        }
        if (edge) {
            stopped = p;
            break;
        }
    }
    if (s.cover_edges)
        for (int l = stopped; l >= 0; --l)
            while (a + (1 << l) <= NB) {
                nodes.push_back({l, a});
                a += 1 << l;
            }
    // Left side: e = end (exclusive) of the uncovered part.
    int e = query_block;
    stopped = top;
    for (int p = 0; p <= top; ++p) {
        const int count = p < top ? s.wing : INT_MAX;
        bool edge = false;
        for (int k = 0; k < count; ++k) {
            if (e - (1 << p) < 0) {
                edge = true;
                break;
            }
            e -= 1 << p;
            nodes.push_back({p, e});
        }
        if (edge) {
            stopped = p;
            break;
        }
    }
    if (s.cover_edges)
        for (int l = stopped; l >= 0; --l)
            while (e - (1 << l) >= 0) {
                e -= 1 << l;
                nodes.push_back({l, e});
            }
    std::sort(nodes.begin(), nodes.end(), [](const FoveaNode& x, const FoveaNode& y) { return x.start < y.start; });
    return nodes;
}

AttentionPattern fovea_attention_pattern(const FoveaSettings& s, int num_global, int T) {
    check(num_global >= 0 && T > 0 && s.block_size > 0,
          "fovea_attention_pattern: need num_global >= 0, T > 0 and block_size > 0");
    AttentionPattern pat;
    const int G = num_global, BL = s.block_size, NB = (T + BL - 1) / BL;
    pat.num_global = G;
    pat.tokens = T;
    pat.heads = 0;
    pat.sparse_path = true;
    if (G > 0) pat.spans.push_back(span(0, G, 0, G + T, G + T, PatternKind::Dense));
    size_t max_nodes = 0;
    for (int b = 0; b < NB; ++b) {
        const int q0 = G + b * BL, q1 = G + std::min((b + 1) * BL, T);
        if (G > 0) pat.spans.push_back(span(q0, q1, 0, G, G, PatternKind::Global));
        const auto nodes = fovea_select_nodes(NB, b, s);
        max_nodes = std::max(max_nodes, nodes.size());
        for (const FoveaNode& n : nodes) {
            PatternSpan sp = span(q0, q1, G + n.start * BL, G + std::min((n.start + (1 << n.level)) * BL, T), BL,
                                  PatternKind::FoveaNode);
            sp.step = BL;
            sp.level = int16_t(n.level);
            pat.spans.push_back(sp);
        }
    }
    pat.summary = "Fovea: BL=" + std::to_string(BL) + " w=" + std::to_string(s.wing) +
                  (s.stop_level >= 0 ? " stop=" + std::to_string(s.stop_level) : "") + " G=" + std::to_string(G) +
                  ", up to " + std::to_string(G + int(max_nodes) * BL) + " keys per query";
    return pat;
}

}  // namespace precis
