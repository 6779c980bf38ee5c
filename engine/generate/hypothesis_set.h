#pragma once
// The finished hypotheses of one batch item in beam search, with HuggingFace 4.36's
// BeamHypotheses rules (length-penalised scores, is_done heuristics, tie order). Shared by
// the CPU search and the device runner's, so both finish beams the same way.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "engine/generate/generation.h"

namespace precis {

struct Hypothesis {
    float score;
    std::vector<int64_t> tokens;
};

// The best `beams` finished hypotheses of one batch item.
class HypothesisSet {
public:
    HypothesisSet(int beams, double length_penalty) : beams_(beams), penalty_(length_penalty) {}

    int size() const { return int(hyps_.size()); }

    void add(std::vector<int64_t> tokens, float sum_logprobs, int generated_len) {
        const float score = float(sum_logprobs / std::pow(double(generated_len), penalty_));
        if (size() < beams_ || score > worst_) {
            hyps_.push_back({score, std::move(tokens)});
            if (size() > beams_) {
                auto worst = std::min_element(hyps_.begin(), hyps_.end(),
                                              [](const Hypothesis& a, const Hypothesis& b) { return a.score < b.score; });
                hyps_.erase(worst);
                worst_ = std::min_element(hyps_.begin(), hyps_.end(), [](const Hypothesis& a, const Hypothesis& b) {
                             return a.score < b.score;
                         })->score;
            } else {
                worst_ = std::min(score, worst_);
            }
        }
    }

    // HF's is_done with early_stopping true / false ("heuristic").
    bool is_done(float best_sum_logprobs, int cur_len, bool early_stopping) const {
        if (size() < beams_) return false;
        if (early_stopping) return true;
        const float highest = float(best_sum_logprobs / std::pow(double(cur_len - 1), penalty_));
        return worst_ >= highest;
    }

    // The highest score; on ties the hypothesis added last (Python's stable sort + pop).
    const Hypothesis& best() const {
        size_t b = 0;
        for (size_t i = 1; i < hyps_.size(); ++i)
            if (hyps_[i].score >= hyps_[b].score) b = i;
        return hyps_[b];
    }

private:
    int beams_;
    double penalty_;
    float worst_ = 1e9f;
    std::vector<Hypothesis> hyps_;
};


// What one step of beam search decides for one batch item.
struct BeamStepChoice {
    std::vector<int> parents;         // [K] absolute decoder rows the next beams continue
    std::vector<int64_t> tokens;      // [K]
    std::vector<float> scores;        // [K] running sums of log-probabilities
};

// From one item's candidates (its top 2K flat indices over beams x vocab with their scores,
// best first, ties lower index first), HF's rule: an eos ranked within the first K finishes
// a hypothesis, every other candidate fills the next beams until K are filled. Returns
// whether the item is done after this step. first_row: the item's first decoder row.
inline bool choose_beams(const float* top_scores, const int64_t* top_indices, int keep, int K, int64_t vocab,
                         int64_t eos_token_id, int first_row, int cur_len, bool early_stopping,
                         const std::vector<std::vector<int64_t>>& seqs, HypothesisSet& hyps, BeamStepChoice& out) {
    out.parents.assign(size_t(K), first_row);
    out.tokens.assign(size_t(K), 0);
    out.scores.assign(size_t(K), 0.f);
    int filled = 0;
    for (int rank = 0; rank < keep && filled < K; ++rank) {
        const int64_t idx = top_indices[rank];
        const int src = first_row + int(idx / vocab);
        const int64_t token = idx % vocab;
        if (token == eos_token_id) {
            if (rank >= K) continue;
            hyps.add(seqs[size_t(src)], top_scores[rank], cur_len);
        } else {
            out.parents[size_t(filled)] = src;
            out.tokens[size_t(filled)] = token;
            out.scores[size_t(filled)] = top_scores[rank];
            ++filled;
        }
    }
    return hyps.is_done(top_scores[0], cur_len + 1, early_stopping);
}

// After the last step: the open beams of unfinished items become hypotheses too, and each
// item's best hypothesis (+ eos when it stopped short of max_length) is its result.
inline void finish_beam_search(const std::vector<std::vector<int64_t>>& seqs, const std::vector<float>& beam_scores,
                               const std::vector<char>& done, std::vector<HypothesisSet>& hyps, int K, int max_length,
                               int64_t eos_token_id, GenerationResult& res) {
    const int items = int(hyps.size());
    for (int i = 0; i < items; ++i) {
        if (done[size_t(i)]) continue;
        for (int b = 0; b < K; ++b) {
            const int r = i * K + b;
            hyps[size_t(i)].add(seqs[size_t(r)], beam_scores[size_t(r)], int(seqs[size_t(r)].size()) - 1);
        }
    }
    for (int i = 0; i < items; ++i) {
        const Hypothesis& h = hyps[size_t(i)].best();
        std::vector<int64_t> out = h.tokens;
        if (int(out.size()) < max_length) out.push_back(eos_token_id);
        res.sequences.push_back(std::move(out));
        res.sequence_scores.push_back(h.score);
    }
}

}  // namespace precis
