// One beam step's scoring of one item on the CPU: every beam over the vocabulary, and the
// item's top 2*beams candidates for BeamBook (HuggingFace 4.36's BeamSearchScorer).
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "engine/generate/beam_book.h"
#include "engine/generate/search.h"

namespace precis {

namespace {

// Whether score a at index ia ranks before b at ib: higher first, the lower index on ties.
bool ranks_before(float a, int64_t ia, float b, int64_t ib) { return a > b || (a == b && ia < ib); }

// Puts (v, i) into the sorted list of `have` best (at most keep), if it belongs there.
void keep_if_better(float v, int64_t i, int keep, int& have, float* scores, int64_t* indices) {
    if (have == keep && !ranks_before(v, i, scores[keep - 1], indices[keep - 1])) return;
    int p = have < keep ? have++ : keep - 1;
    for (; p > 0 && ranks_before(v, i, scores[p - 1], indices[p - 1]); --p) {
        scores[p] = scores[p - 1];
        indices[p] = indices[p - 1];
    }
    scores[p] = v;
    indices[p] = i;
}

}  // namespace

void top_candidates(const float* x, int64_t n, int keep, float* scores, int64_t* indices) {
    int have = 0;
    int64_t i = 0;
    for (; i < n && have < keep; ++i) keep_if_better(x[i], i, keep, have, scores, indices);
    // The indices only grow from here, so a score equal to the last kept one never enters:
    // eight at a time, only those strictly above it are looked at (a few in 200k).
    for (; i + 8 <= n; i += 8) {
        const __m256 last = _mm256_set1_ps(scores[keep - 1]);
        if (_mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(x + i), last, _CMP_GT_OQ)) == 0) continue;
        for (int64_t j = i; j < i + 8; ++j) keep_if_better(x[j], j, keep, have, scores, indices);
    }
    for (; i < n; ++i) keep_if_better(x[i], i, keep, have, scores, indices);
}

void select_beam_candidates(float* logits, int64_t V, const BeamBook& book, int first_row, const StepRules& rules,
                            float* top_scores, int64_t* top_indices) {
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
    top_candidates(logits, int64_t(K) * V, keep, top_scores, top_indices);
}

}  // namespace precis
