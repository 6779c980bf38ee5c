#include "app/long/source_tree.h"

#include <algorithm>
#include <cstring>

namespace precis::longdoc {

std::vector<float> item_shares(const std::vector<float>& weights, const ByteSpans& spans,
                               const std::vector<std::string>& items, int first, int last, const char* separator) {
    const size_t n = size_t(last - first);
    // Where each item starts in the joined input (an empty item was left out: it gets nothing).
    std::vector<size_t> starts(n, 0);
    std::vector<bool> present(n, false);
    size_t pos = 0;
    bool any = false;
    for (size_t k = 0; k < n; ++k) {
        const std::string& t = items[size_t(first) + k];
        if (t.empty()) continue;
        if (any) pos += std::strlen(separator);
        starts[k] = pos;
        present[k] = any = true;
        pos += t.size();
    }
    std::vector<float> share(n, 0.f);
    float total = 0;
    for (size_t t = 0; t < weights.size() && t < spans.size(); ++t) {
        if (spans[t].first == spans[t].second) continue;  // special tokens
        // The last present item starting at or before the token.
        size_t k = n;
        for (size_t j = 0; j < n; ++j)
            if (present[j] && starts[j] <= spans[t].first) k = j;
        if (k == n) continue;
        share[k] += weights[t];
        total += weights[t];
    }
    if (total > 0) {
        for (float& x : share) x /= total;
        return share;
    }
    const long count = std::count(present.begin(), present.end(), true);
    for (size_t k = 0; k < n; ++k) share[k] = present[k] ? 1.f / float(count) : 0.f;
    return share;
}

SourceTree::SourceTree(int windows) : windows_(size_t(windows)) {}

void SourceTree::set_window_sources(int window, std::vector<float> weights, ByteSpans spans, size_t byte_start) {
    Window& w = windows_[size_t(window)];
    w.weights = std::move(weights);
    w.spans = std::move(spans);
    w.byte_start = byte_start;
}

void SourceTree::begin_level(const std::vector<std::pair<int, int>>& groups) {
    Level l;
    l.groups = groups;
    l.shares.resize(groups.size());
    for (size_t k = 0; k < groups.size(); ++k)
        l.shares[k].assign(size_t(groups[k].second - groups[k].first), 1.f / float(groups[k].second - groups[k].first));
    levels_.push_back(std::move(l));
}

void SourceTree::set_group_sources(int group, const std::vector<float>& weights, const ByteSpans& spans,
                                   const std::vector<std::string>& items, const char* separator) {
    Level& l = levels_.back();
    const auto [first, last] = l.groups[size_t(group)];
    l.shares[size_t(group)] = item_shares(weights, spans, items, first, last, separator);
}

void SourceTree::finish(const std::vector<float>& weights, const ByteSpans& spans, const std::vector<std::string>& items,
                        const char* separator) {
    // The final pass's shares over the top level, then down level by level to the windows.
    std::vector<float> mass = item_shares(weights, spans, items, 0, int(items.size()), separator);
    for (auto level = levels_.rbegin(); level != levels_.rend(); ++level) {
        std::vector<float> below(size_t(level->groups.back().second), 0.f);
        for (size_t k = 0; k < level->groups.size(); ++k)
            for (int c = level->groups[k].first; c < level->groups[k].second; ++c)
                below[size_t(c)] = mass[k] * level->shares[k][size_t(c - level->groups[k].first)];
        mass = std::move(below);
    }
    weights_.clear();
    spans_.clear();
    float total = 0;
    for (size_t i = 0; i < windows_.size() && i < mass.size(); ++i) {
        const Window& w = windows_[i];
        for (size_t t = 0; t < w.weights.size() && t < w.spans.size(); ++t) {
            weights_.push_back(w.weights[t] * mass[i]);
            spans_.emplace_back(w.spans[t].first + w.byte_start, w.spans[t].second + w.byte_start);
            total += weights_.back();
        }
    }
    if (total > 0)
        for (float& x : weights_) x /= total;
}

}  // namespace precis::longdoc
