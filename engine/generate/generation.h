#pragma once
// Greedy and beam-search generation with HuggingFace 4.36 semantics (fixtures
// README section 5.3), on top of the incremental decoder.
#include <cstdint>
#include <vector>

#include "engine/core/tensor.h"
#include "engine/config/config.h"
#include "engine/model/encoder.h"
#include "engine/model/run_options.h"

namespace precis {

class Backend;
class Model;

struct GenerationResult {
    // One sequence per batch item, start token included, as HF returns the row
    // (greedy: pads after eos up to the batch's length; beam: best hypothesis + eos).
    std::vector<std::vector<int64_t>> sequences;
    // Beam search: the best hypothesis' length-penalised score; greedy: the sum of the
    // chosen tokens' log-probabilities (for display).
    std::vector<float> sequence_scores;
    // Greedy only, on request: the processed scores of each step, [items, V] per step.
    std::vector<Tensor> step_scores;
    int steps = 0;
};

// num_beams == 1 runs greedy search, otherwise beam search.
GenerationResult generate(const Model& model, Backend& backend, const EncoderOutput& encoded,
                          const GenerationConfig& cfg, const RunCallbacks& callbacks, bool keep_step_scores = false);

// Pads sequences with `pad` into an [items, max_len] int64 tensor.
Tensor pad_sequences(const std::vector<std::vector<int64_t>>& seqs, int64_t pad);

}  // namespace precis
