#pragma once
// The greedy and beam search loops of generate(), written once for every device: the CPU's
// search and the CUDA runner's both run them (kernels/runner/device_search.h). The loop
// keeps the token histories, the running scores and the finished hypotheses (BeamBook),
// decides what each step feeds the decoder and with which rules its scores are processed;
// a SearchSteps does the step's arithmetic where its scores live. So the CPU's fixture
// parity, which CI runs without a GPU, proves the loop the GPU runs too.
#include <cstdint>
#include <vector>

#include "engine/generate/beam_book.h"
#include "engine/generate/generation.h"
#include "engine/generate/logits_processors.h"

namespace precis {

// One search step's work on a device. Rows are items x beams, item-major (row i * beams + b).
class SearchSteps {
public:
    virtual ~SearchSteps() = default;
    // Runs the decoder on one new token per row and makes the step's logits.
    virtual void forward(const std::vector<int64_t>& tokens) = 0;
    // Greedy (one row per item): each row's first best token after the logits processors
    // (`rules`, over the row's tokens so far in `sequences`), and that token's log-probability
    // before them (what the sequence's score adds; on a forced step, the forced token's).
    virtual void pick(const std::vector<std::vector<int64_t>>& sequences, const StepRules& rules, int64_t* tokens,
                      float* logprobs) = 0;
    // Beam: for every item the book has not finished, its best book.keep() candidates over
    // beams x vocab of log-softmax, then the processors, plus the beam's running score (flat
    // index beam * vocab + token; best first, the lower index first on ties) into
    // top_scores / top_indices [items][keep]. Rows of finished items are not read.
    virtual void select(const BeamBook& book, const StepRules& rules, float* top_scores, int64_t* top_indices) = 0;
    // Row r continues the decoder history of row parents[r] (rows of one item).
    virtual void reorder(const std::vector<int>& parents) = 0;
};

// HuggingFace 4.36's greedy search over `items` rows: pads after a row's eos, stops when
// every row has ended or at the effective max length.
//
// Both loops check what each step hands back: a token outside the vocabulary or a score that
// is NaN or infinite for a row still generating (scores of finite logits never are) throws
// NonFiniteScores naming the step, instead of feeding it to the next step.
GenerationResult stepped_greedy_search(SearchSteps& steps, const GenerationConfig& cfg, int items, int64_t vocab,
                                       const RunCallbacks& callbacks);
// HuggingFace 4.36's beam search (BeamSearchScorer's rules, in BeamBook) over `items` items
// of cfg.num_beams rows each.
GenerationResult stepped_beam_search(SearchSteps& steps, const GenerationConfig& cfg, int items, int64_t vocab,
                                     const RunCallbacks& callbacks);

}  // namespace precis
