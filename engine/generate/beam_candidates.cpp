// One beam step's scoring of one item on the CPU: every beam over the vocabulary, and the
// item's top 2*beams candidates for BeamBook (HuggingFace 4.36's BeamSearchScorer).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "engine/generate/beam_book.h"
#include "engine/generate/search.h"

namespace precis {

void select_beam_candidates(float* logits, int64_t V, const BeamBook& book, int first_row, const StepRules& rules,
                            float* top_scores, int64_t* top_indices, std::vector<int64_t>& order) {
    const int K = book.beams(), keep = book.keep();
    for (int b = 0; b < K; ++b) {
        float* row = logits + int64_t(b) * V;
        log_softmax_row(row, V);
        process_scores(row, V, book.sequences()[size_t(first_row + b)], rules);
        const float beam_score = book.beam_scores()[size_t(first_row + b)];
        for (int64_t t = 0; t < V; ++t) row[t] += beam_score;
    }
    // Top 2K of the flattened scores, sorted descending; ties keep the lower index first as
    // torch.topk does on CPU.
    order.resize(size_t(K) * size_t(V));
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + keep, order.end(), [&](int64_t a, int64_t b) {
        return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
    });
    for (int rank = 0; rank < keep; ++rank) {
        top_indices[rank] = order[size_t(rank)];
        top_scores[rank] = logits[order[size_t(rank)]];
    }
}

}  // namespace precis
