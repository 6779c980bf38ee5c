#include "engine/generate/logits_processors.h"

#include <algorithm>
#include <limits>

namespace precis {

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// Bans every token that would complete an n-gram already present in the sequence.
void ban_repeated_ngrams(float* scores, const std::vector<int64_t>& seq, int n) {
    const int64_t len = int64_t(seq.size());
    if (n <= 0 || len + 1 < n) return;
    // The n-1 most recent tokens form the prefix a new token would extend.
    const int64_t prefix_start = len - (n - 1);
    for (int64_t start = 0; start + n <= len; ++start) {
        bool match = true;
        for (int i = 0; i < n - 1 && match; ++i) match = seq[size_t(start + i)] == seq[size_t(prefix_start + i)];
        if (match) scores[seq[size_t(start + n - 1)]] = kNegInf;
    }
}

void force_token(float* scores, int64_t vocab, int64_t token) {
    std::fill(scores, scores + vocab, kNegInf);
    scores[token] = 0.f;
}

}  // namespace

int64_t forced_token_at(int64_t forced_bos_token_id, int64_t forced_eos_token_id, int cur_len, int max_length) {
    if (forced_eos_token_id >= 0 && cur_len == max_length - 1) return forced_eos_token_id;
    if (forced_bos_token_id >= 0 && cur_len == 1) return forced_bos_token_id;
    return -1;
}

int effective_max_length(const GenerationConfig& cfg) {
    return cfg.max_new_tokens ? *cfg.max_new_tokens + 1 : cfg.max_length;
}

void process_scores(float* scores, int64_t vocab, const std::vector<int64_t>& sequence, const GenerationConfig& cfg,
                    int max_length) {
    const int64_t cur_len = int64_t(sequence.size());
    if (cfg.no_repeat_ngram_size > 0) ban_repeated_ngrams(scores, sequence, cfg.no_repeat_ngram_size);
    if (cfg.min_length > 0 && cur_len < cfg.min_length && cfg.eos_token_id >= 0 && cfg.eos_token_id < vocab)
        scores[cfg.eos_token_id] = kNegInf;
    const int64_t forced = forced_token_at(cfg.forced_bos_token_id, cfg.forced_eos_token_id, int(cur_len), max_length);
    if (forced >= 0) force_token(scores, vocab, forced);  // over the whole row, bans included
}

}  // namespace precis
