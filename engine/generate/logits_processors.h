#pragma once
// HuggingFace's logits processors, in the order generate() applies them:
// no-repeat n-gram, min length, forced BOS, forced EOS.
#include <cstdint>
#include <vector>

#include "engine/config/config.h"

namespace precis {

// What the processors read at one step besides the row's tokens: the search's settings and
// the step's length. The CPU and the device search step (kernels/ops/search_step.h) take
// the same struct, made by the same step_rules, so the two cannot read a step differently.
struct StepRules {
    int cur_len = 1;          // tokens in each row so far, start token included
    int max_length = 0;       // effective max length (start token included)
    int min_length = 0;
    int no_repeat_ngram = 0;  // 0: off
    int64_t eos_token_id = -1;
    int64_t forced_bos_token_id = -1;  // -1: none
    int64_t forced_eos_token_id = -1;  // -1: none
};
StepRules step_rules(const GenerationConfig& cfg, int cur_len, int max_length);

// Processes one row of scores in place. `sequence` is the row's tokens so far (start token
// included), rules.cur_len of them.
void process_scores(float* scores, int64_t vocab, const std::vector<int64_t>& sequence, const StepRules& rules);
// The same with the rules of cfg at cur_len = sequence.size(); max_length as effective.
void process_scores(float* scores, int64_t vocab, const std::vector<int64_t>& sequence,
                    const GenerationConfig& cfg, int max_length);

// The token a forcing rule sets at this step, or -1: forced BOS at the first step (cur_len 1),
// forced EOS at the last (cur_len max_length - 1), EOS when both apply (HuggingFace applies it
// second, over the whole row). The CPU's process_scores and the device search step
// (kernels/ops/search_step.cu) both ask this, so the two cannot disagree on it.
int64_t forced_token_at(int64_t forced_bos_token_id, int64_t forced_eos_token_id, int cur_len, int max_length);

// Effective max_length (start token included): max_new_tokens + 1 when set, else max_length.
int effective_max_length(const GenerationConfig& cfg);

}  // namespace precis
