#pragma once
// The finished hypotheses of one batch item in beam search, with HuggingFace 4.36's
// BeamHypotheses rules (length-penalised scores, is_done heuristics, tie order).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

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


}  // namespace precis
