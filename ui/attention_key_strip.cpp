#include "ui/attention_key_strip.h"

#include <algorithm>
#include <climits>
#include <set>

namespace precis::ui {

namespace {

StripKey single(KeyStyle style, int row, int index) {
    StripKey k;
    k.style = style;
    k.rows = {row};
    k.index = index;
    return k;
}

bool sees_row(const PatternSpan& s, int query_row, int head) {
    return s.query_begin <= query_row && query_row < s.query_end && (s.head < 0 || s.head == head);
}

// The keys one span contributes, as the pattern describes them.
void add_span_keys(const PatternSpan& s, bool weighted_pools, int& sparse_index, std::vector<StripKey>& out) {
    switch (s.kind) {
        case PatternKind::Global:
        case PatternKind::Local:
        case PatternKind::Dense: {
            const KeyStyle style = s.kind == PatternKind::Global  ? KeyStyle::Global
                                   : s.kind == PatternKind::Local ? KeyStyle::Local
                                                                  : KeyStyle::Dense;
            for (int r = s.key_begin; r < s.key_end; ++r) out.push_back(single(style, r, r));
            return;
        }
        case PatternKind::Sparse:
            if (s.group > 1) {  // pooling / bos_pooling: `group` neighbours make one key
                for (int r = s.key_begin; r < s.key_end; r += s.group) {
                    StripKey k;
                    k.style = weighted_pools ? KeyStyle::Weighted : KeyStyle::Averaged;
                    for (int m = r; m < std::min(r + s.group, s.key_end); ++m) k.rows.push_back(m);
                    if (!weighted_pools) k.shares.assign(k.rows.size(), 1.f / float(k.rows.size()));
                    k.index = sparse_index++;
                    out.push_back(std::move(k));
                }
            } else {  // stride (step f) and block_stride runs (step 1): one token per key
                for (int r = s.key_begin; r < s.key_end; r += std::max(1, int(s.step)))
                    out.push_back(single(KeyStyle::Single, r, sparse_index++));
            }
            return;
        case PatternKind::Candidates: {
            StripKey k;
            k.style = KeyStyle::Candidates;
            for (int r = s.key_begin; r < s.key_end; ++r) k.rows.push_back(r);
            k.index = sparse_index++;
            out.push_back(std::move(k));
            return;
        }
        case PatternKind::FoveaNode:
            // Key i of a node averages position i of every block the node covers.
            for (int i = 0; i < s.step; ++i) {
                StripKey k;
                k.style = KeyStyle::FoveaNode;
                k.level = s.level;
                for (int r = s.key_begin + i; r < s.key_end; r += s.step) k.rows.push_back(r);
                if (k.rows.empty()) continue;
                k.shares.assign(k.rows.size(), 1.f / float(k.rows.size()));
                k.index = sparse_index++;
                out.push_back(std::move(k));
            }
            return;
    }
}

}  // namespace

std::pair<int, int> KeyStrip::reach() const {
    int lo = INT_MAX, hi = INT_MIN;
    for (const StripKey& k : keys) {
        if (k.style == KeyStyle::Global || k.rows.empty()) continue;
        lo = std::min(lo, k.rows.front());
        hi = std::max(hi, k.rows.back() + 1);
    }
    return lo > hi ? std::pair{num_global, num_global} : std::pair{lo, hi};
}

const StripKey* KeyStrip::key_at(int row) const {
    const StripKey* candidates = nullptr;
    for (const StripKey& k : keys) {
        if (!std::binary_search(k.rows.begin(), k.rows.end(), row)) continue;
        if (k.style != KeyStyle::Candidates) return &k;
        candidates = &k;
    }
    return candidates;
}

std::vector<std::pair<int, int>> query_blocks(const AttentionPattern& p) {
    std::set<std::pair<int, int>> blocks;
    for (const PatternSpan& s : p.spans)
        if (s.query_begin >= p.num_global && s.query_end > s.query_begin) blocks.insert({s.query_begin, s.query_end});
    if (blocks.empty() && p.tokens > 0) blocks.insert({p.num_global, p.num_global + p.tokens});
    return {blocks.begin(), blocks.end()};
}

KeyStrip key_strip_from_pattern(const AttentionPattern& p, int block, int head, bool weighted_pools) {
    KeyStrip strip;
    strip.num_global = p.num_global;
    strip.rows = p.num_global + p.tokens;
    const auto blocks = query_blocks(p);
    if (blocks.empty()) return strip;
    const auto [q0, q1] = blocks[size_t(std::clamp(block, 0, int(blocks.size()) - 1))];
    strip.query_begin = q0;
    strip.query_end = q1;
    int sparse_index = 0;
    for (const PatternSpan& s : p.spans)
        if (sees_row(s, q0, head)) add_span_keys(s, weighted_pools, sparse_index, strip.keys);
    return strip;
}

KeyStrip key_strip_from_selection(const AttentionPattern& p, const SparseSelection& sel, int block, int head) {
    const bool weighted = sel.built_as == SparsityType::BosPooling;
    KeyStrip strip = key_strip_from_pattern(p, block, head, weighted);
    const auto seen = std::find_if(sel.blocks.begin(), sel.blocks.end(), [&](const SparseBlockKeys& b) {
        return b.query_begin == strip.query_begin && b.query_end == strip.query_end;
    });
    if (seen == sel.blocks.end()) return strip;
    // Keep the global and local keys; the far keys are what the engine built.
    std::erase_if(strip.keys, [](const StripKey& k) {
        return k.style != KeyStyle::Global && k.style != KeyStyle::Local && k.style != KeyStyle::Dense;
    });
    for (int32_t j : seen->keys) {
        if (j < 0 || size_t(j) >= sel.keys.size()) continue;
        const SparseKeySource& src = sel.keys[size_t(j)];
        if (src.rows.empty()) continue;  // only padding: masked, never read
        StripKey k;
        k.rows.assign(src.rows.begin(), src.rows.end());
        k.shares = src.shares;
        k.index = j;
        switch (sel.built_as) {
            case SparsityType::Pooling: k.style = KeyStyle::Averaged; break;
            case SparsityType::BosPooling: k.style = KeyStyle::Weighted; break;
            case SparsityType::Lsh: k.style = KeyStyle::Cluster; break;
            default: k.style = k.rows.size() == 1 ? KeyStyle::Single : KeyStyle::Averaged; break;
        }
        strip.keys.push_back(std::move(k));
    }
    strip.from_document = true;
    return strip;
}

}  // namespace precis::ui
