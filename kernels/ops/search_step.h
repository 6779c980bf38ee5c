#pragma once
// One search step on the device: log-softmax of the logits, HuggingFace's logits
// processors (no-repeat n-gram, min length, forced BOS, forced EOS; the order and rules of
// engine/generate/logits_processors.cpp), the beam's running score added, then the top
// candidates of each batch item over beams x vocab. Only those candidates go back to the
// host, never the [rows, vocab] scores.
#include <cuda_runtime.h>

#include <cstdint>

#include "engine/generate/logits_processors.h"

namespace precis::cuda {

// The step's rules, as the CPU's process_scores reads them (engine/generate/logits_processors.h).
using ::precis::StepRules;

// What one row's processors read, the forced token decided on the host (forced_token_at).
struct RowRules {
    int cur_len = 1, min_length = 0, no_repeat_ngram = 0;
    int64_t eos_token_id = -1;
    int64_t forced_token = -1;  // the token a forcing rule leaves alone at 0, or -1
};
// A row's rules of a step, checked (precis::Error): vocab > 0, cur_len >= 1,
// no_repeat_ngram >= 0 and within history_stride, forced tokens in the vocabulary.
RowRules row_rules(const StepRules& rules, int64_t vocab, int history_stride);

// scores[r, :] = process_r(log_softmax(logits[r, :])) + (beam_scores ? beam_scores[r] : 0), in
// place on float32 logits [rows, vocab], each row under its own rules (device [rows] of
// row_rules(): a continuous batch's documents are at different lengths under their own
// settings). history: [rows, history_stride] int32, each row's cur_len tokens so far
// (device). beam_scores: device [rows] or null. forced_logprob (device [rows], optional):
// each row whose rules force a token gets that token's log-probability before forcing, which
// the greedy search's score counts, as the CPU's does, where the forced row holds 0.
// greedy_lse (device [rows], optional; no beam_scores): greedy rows stay logits, the
// processors applied, and each row's log-sum-exp goes there (0 for a forced row), as the
// CPU's greedy_pick takes the first best processed logit: two logits a float step apart can
// round to one log-probability, and the larger logit is still the one chosen. The top
// values become log-probabilities with to_log_probabilities.
void log_softmax_process(float* scores, int rows, int64_t vocab, const int32_t* history, int history_stride,
                         const float* beam_scores, const RowRules* rules, cudaStream_t stream,
                         float* forced_logprob = nullptr, float* greedy_lse = nullptr);

// values[r] -= log_sum_exp[r] (device [rows] each): greedy rows' top logits as the CPU's
// log_softmax_row gives their log-probabilities.
void to_log_probabilities(float* values, const float* log_sum_exp, int rows, cudaStream_t stream);

// For each of `groups` groups of group_len consecutive scores: the k largest, sorted
// descending, ties broken by the lower index first (as torch.topk on the CPU and the CPU
// search's partial_sort). out_values [groups, k] float32, out_indices [groups, k] int64
// (index within the group). k <= kMaxTopK. A NaN score ranks first, as +infinity would: a
// row that overflowed is then its group's best candidate, which the search sees is not
// finite (were NaN skipped, one overflowed beam would go unseen beside the others).
// scratch: see topk_scratch_bytes.
constexpr int kMaxTopK = 64;
size_t topk_scratch_bytes(int groups, int64_t group_len, int k);
void top_k(const float* scores, int groups, int64_t group_len, int k, float* out_values, int64_t* out_indices,
           void* scratch, cudaStream_t stream);

}  // namespace precis::cuda
