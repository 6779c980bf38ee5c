#include "engine/generate/logits_processors.h"

#include <algorithm>
#include <limits>
#include <string>

#include "engine/core/error.h"

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

StepRules step_rules(const GenerationConfig& cfg, int cur_len, int max_length) {
    StepRules r;
    r.cur_len = cur_len;
    r.max_length = max_length;
    r.min_length = cfg.min_length;
    r.no_repeat_ngram = cfg.no_repeat_ngram_size;
    r.eos_token_id = cfg.eos_token_id;
    r.forced_bos_token_id = cfg.forced_bos_token_id;
    r.forced_eos_token_id = cfg.forced_eos_token_id;
    return r;
}

void process_scores(float* scores, int64_t vocab, const std::vector<int64_t>& sequence, const StepRules& rules) {
    // Once per row per step: the message is built only when it is thrown.
    if (int64_t(sequence.size()) != rules.cur_len)
        throw Error("process_scores: the row holds " + std::to_string(sequence.size()) +
                    " tokens where the step says " + std::to_string(rules.cur_len));
    const int cur_len = rules.cur_len;
    if (rules.no_repeat_ngram > 0) ban_repeated_ngrams(scores, sequence, rules.no_repeat_ngram);
    if (rules.min_length > 0 && cur_len < rules.min_length && rules.eos_token_id >= 0 && rules.eos_token_id < vocab)
        scores[rules.eos_token_id] = kNegInf;
    const int64_t forced =
        forced_token_at(rules.forced_bos_token_id, rules.forced_eos_token_id, cur_len, rules.max_length);
    if (forced >= 0) force_token(scores, vocab, forced);  // over the whole row, bans included
}

void process_scores(float* scores, int64_t vocab, const std::vector<int64_t>& sequence, const GenerationConfig& cfg,
                    int max_length) {
    process_scores(scores, vocab, sequence, step_rules(cfg, int(sequence.size()), max_length));
}

}  // namespace precis
