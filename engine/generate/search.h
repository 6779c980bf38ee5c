#pragma once
// The two search strategies behind generate(); internal to engine/generate/.
#include "engine/generate/generation.h"
#include "engine/generate/logits_processors.h"

namespace precis {

GenerationResult greedy_search(const Model& model, Backend& backend, const EncoderOutput& encoded,
                               const GenerationConfig& cfg, const RunCallbacks& callbacks, bool keep_step_scores);
GenerationResult beam_search(const Model& model, Backend& backend, const EncoderOutput& encoded,
                             const GenerationConfig& cfg, const RunCallbacks& callbacks);

// log_softmax over one row, in place (float32, max-shifted as PyTorch does).
void log_softmax_row(float* x, int64_t n);

}  // namespace precis
