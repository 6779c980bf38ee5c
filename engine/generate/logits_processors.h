#pragma once
// HuggingFace's logits processors, in the order generate() applies them:
// no-repeat n-gram, min length, forced BOS, forced EOS.
#include <cstdint>
#include <vector>

#include "engine/config/config.h"

namespace precis {

// Processes one row of scores in place. `sequence` is the row's tokens so far
// (start token included); cur_len = sequence.size(); max_length as effective.
void process_scores(float* scores, int64_t vocab, const std::vector<int64_t>& sequence,
                    const GenerationConfig& cfg, int max_length);

// Effective max_length (start token included): max_new_tokens + 1 when set, else max_length.
int effective_max_length(const GenerationConfig& cfg);

}  // namespace precis
