// generate() on the CPU: the shared search loops (stepped_search.h) over the CPU decoder,
// each step's logits scored row by row on the host.
#include <cstdint>
#include <vector>

#include "engine/generate/search.h"
#include "engine/generate/stepped_search.h"
#include "engine/model/decoder.h"
#include "engine/model/model.h"

namespace precis {

namespace {

class CpuSearchSteps final : public SearchSteps {
public:
    CpuSearchSteps(const Model& model, Backend& backend, const EncoderOutput& encoded, int beams, int max_length,
                   bool keep_step_scores)
        : dec_(model, backend, encoded, beams, max_length),
          V_(model.config().vocab_size),
          keep_step_scores_(keep_step_scores),
          logits_(size_t(dec_.rows()) * size_t(V_)) {}

    void forward(const std::vector<int64_t>& tokens) override {
        dec_.forward(tokens.data(), 1);
        dec_.logits(logits_.data());
    }

    void pick(const std::vector<std::vector<int64_t>>& sequences, const StepRules& rules, int64_t* tokens,
              float* logprobs) override {
        scratch_.resize(size_t(V_));
        for (int i = 0; i < dec_.rows(); ++i)
            tokens[i] = greedy_pick(logits_.data() + int64_t(i) * V_, V_, sequences[size_t(i)], rules, scratch_.data(),
                                    &logprobs[i]);
        if (keep_step_scores_) step_scores.push_back(Tensor::from_floats({dec_.rows(), V_}, logits_));
    }

    void select(const BeamBook& book, const StepRules& rules, float* top_scores, int64_t* top_indices) override {
        const int K = book.beams(), keep = book.keep();
        for (int i = 0; i < book.items(); ++i) {
            if (book.item_done(i)) continue;
            select_beam_candidates(logits_.data() + int64_t(i) * K * V_, V_, book, i * K, rules,
                                   top_scores + size_t(i) * size_t(keep), top_indices + size_t(i) * size_t(keep));
        }
    }

    void reorder(const std::vector<int>& parents) override { dec_.reorder(parents); }

    std::vector<Tensor> step_scores;  // greedy, on request: each step's processed scores [items, V]

private:
    DecoderState dec_;
    int64_t V_;
    bool keep_step_scores_;
    std::vector<float> logits_, scratch_;
};

}  // namespace

GenerationResult greedy_search(const Model& model, Backend& backend, const EncoderOutput& encoded,
                               const GenerationConfig& cfg, const RunCallbacks& callbacks, bool keep_step_scores) {
    CpuSearchSteps steps(model, backend, encoded, 1, effective_max_length(cfg), keep_step_scores);
    GenerationResult res =
        stepped_greedy_search(steps, cfg, int(encoded.rows.size()), model.config().vocab_size, callbacks);
    res.step_scores = std::move(steps.step_scores);
    return res;
}

GenerationResult beam_search(const Model& model, Backend& backend, const EncoderOutput& encoded,
                             const GenerationConfig& cfg, const RunCallbacks& callbacks) {
    CpuSearchSteps steps(model, backend, encoded, cfg.num_beams, effective_max_length(cfg), false);
    return stepped_beam_search(steps, cfg, int(encoded.rows.size()), model.config().vocab_size, callbacks);
}

}  // namespace precis
