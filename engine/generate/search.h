#pragma once
// The two search strategies behind generate(), and the per-document steps they share with
// the continuous batch (document_batch.h); internal to engine/generate/.
#include <vector>

#include "engine/generate/beam_book.h"
#include "engine/generate/generation.h"
#include "engine/generate/logits_processors.h"

namespace precis {

GenerationResult greedy_search(const Model& model, Backend& backend, const EncoderOutput& encoded,
                               const GenerationConfig& cfg, const RunCallbacks& callbacks, bool keep_step_scores);
GenerationResult beam_search(const Model& model, Backend& backend, const EncoderOutput& encoded,
                             const GenerationConfig& cfg, const RunCallbacks& callbacks);

// log_softmax over one row, in place (float32, max-shifted as PyTorch does).
void log_softmax_row(float* x, int64_t n);

// One greedy step of one row: the logits are processed in place (logits processors) and
// the first best token returned; *logprob gets its log-probability before processing.
// `logprobs` is a V-float scratch row.
int64_t greedy_pick(float* logits, int64_t vocab, const std::vector<int64_t>& sequence, const StepRules& rules,
                    float* logprobs, float* logprob);

// One beam step's scoring for one item: its K rows of logits (rows of `book` from
// first_row) become log-probabilities, processed and added to the beams' running scores,
// in place; the best 2K of the K x V candidates go to top_scores / top_indices (flat index
// beam * V + token, best first, ties lower index first as torch.topk on the CPU).
void select_beam_candidates(float* logits, int64_t vocab, const BeamBook& book, int first_row,
                            const StepRules& rules, float* top_scores, int64_t* top_indices);

// The best `keep` (<= n) of x[0, n) into scores / indices, best first, the lower index first
// on ties (torch.topk on the CPU). One pass: only a score above the last kept one is looked
// at twice. A row of NaN keeps its first `keep` (and the search reports it as not finite).
void top_candidates(const float* x, int64_t n, int keep, float* scores, int64_t* indices);

}  // namespace precis
