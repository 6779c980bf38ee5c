#include "app/extractive/lexrank.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace precis::extractive {

std::vector<double> lexrank(const std::vector<SparseVector>& vectors, size_t begin, size_t end,
                            const LexRankOptions& options) {
    const size_t n = end - begin;
    if (n == 0) return {};
    // Similarities through an inverted index: only pairs sharing a term cost anything.
    std::unordered_map<int, std::vector<std::pair<size_t, float>>> postings;
    for (size_t i = 0; i < n; ++i)
        for (const auto& [term, w] : vectors[begin + i]) postings[term].emplace_back(i, w);
    std::vector<float> sim(n * n, 0.0f);
    for (const auto& [term, list] : postings)
        for (size_t a = 0; a < list.size(); ++a)
            for (size_t b = a + 1; b < list.size(); ++b) {
                const float w = list[a].second * list[b].second;
                sim[list[a].first * n + list[b].first] += w;
                sim[list[b].first * n + list[a].first] += w;
            }
    // Row-normalized transition weights; a sentence with no edges jumps uniformly.
    std::vector<double> row_sum(n, 0.0);
    for (size_t i = 0; i < n; ++i) {
        float* row = &sim[i * n];
        for (size_t j = 0; j < n; ++j) {
            if (row[j] < options.min_similarity) row[j] = 0;
            row_sum[i] += row[j];
        }
    }
    std::vector<double> p(n, 1.0 / double(n)), next(n);
    const double jump = (1.0 - options.damping) / double(n);
    for (int it = 0; it < options.max_iterations; ++it) {
        double dangling = 0;
        for (size_t i = 0; i < n; ++i)
            if (row_sum[i] <= 0) dangling += p[i];
        std::fill(next.begin(), next.end(), jump + options.damping * dangling / double(n));
        for (size_t i = 0; i < n; ++i) {
            if (row_sum[i] <= 0) continue;
            const double share = options.damping * p[i] / row_sum[i];
            const float* row = &sim[i * n];
            for (size_t j = 0; j < n; ++j) next[j] += share * row[j];
        }
        double moved = 0;
        for (size_t i = 0; i < n; ++i) moved += std::abs(next[i] - p[i]);
        p.swap(next);
        if (moved < options.tolerance) break;
    }
    for (double& x : p) x *= double(n);
    return p;
}

}  // namespace precis::extractive
