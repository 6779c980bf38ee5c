#include "engine/generate/stepped_search.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "engine/core/error.h"

namespace precis {

namespace {

[[noreturn]] void non_finite(int step, int item) {
    throw NonFiniteScores("generation: the scores of step " + std::to_string(step) + " are not finite for document " +
                          std::to_string(item + 1) +
                          " (NaN or infinity: the model's activations overflow the precision they run in)");
}

}  // namespace

GenerationResult stepped_greedy_search(SearchSteps& steps, const GenerationConfig& cfg, int items, int64_t vocab,
                                       const RunCallbacks& cb) {
    check(items >= 1, "generation: nothing to generate");
    const int max_length = effective_max_length(cfg);
    GenerationResult res;
    res.sequences.assign(size_t(items), {cfg.decoder_start_token_id});
    res.sequence_scores.assign(size_t(items), 0.f);
    std::vector<char> finished(size_t(items), 0);
    std::vector<int64_t> last(size_t(items), cfg.decoder_start_token_id), picked(static_cast<size_t>(items));
    std::vector<float> logprobs(static_cast<size_t>(items));
    const int total = max_length - 1;
    while (int(res.sequences[0].size()) < max_length) {
        cb.check_abort();
        steps.forward(last);
        // Every row holds the same number of tokens: a finished row goes on with padding.
        steps.pick(res.sequences, step_rules(cfg, int(res.sequences[0].size()), max_length), picked.data(),
                   logprobs.data());
        for (int i = 0; i < items; ++i) {
            const bool open = !finished[size_t(i)];
            if (open && (picked[size_t(i)] < 0 || picked[size_t(i)] >= vocab || !std::isfinite(logprobs[size_t(i)])))
                non_finite(res.steps + 1, i);
            const int64_t token = open ? picked[size_t(i)] : cfg.pad_token_id;
            if (open) res.sequence_scores[size_t(i)] += logprobs[size_t(i)];
            res.sequences[size_t(i)].push_back(token);
            last[size_t(i)] = token;
            if (token == cfg.eos_token_id) finished[size_t(i)] = 1;
        }
        ++res.steps;
        if (cb.on_tokens)
            for (int i = 0; i < items; ++i) cb.on_tokens(i, res.sequences[size_t(i)]);
        cb.report(RunStage::Generating, res.steps, total);
        if (std::all_of(finished.begin(), finished.end(), [](char f) { return f != 0; })) break;
    }
    return res;
}

GenerationResult stepped_beam_search(SearchSteps& steps, const GenerationConfig& cfg, int items, int64_t vocab,
                                     const RunCallbacks& cb) {
    check(items >= 1, "generation: nothing to generate");
    const int max_length = effective_max_length(cfg);
    BeamBook book(items, cfg, max_length);
    const int K = book.beams(), keep = book.keep();
    std::vector<float> top_scores(size_t(items) * size_t(keep));
    std::vector<int64_t> top_indices(top_scores.size());
    GenerationResult res;
    while (true) {
        cb.check_abort();
        steps.forward(book.last_tokens());
        steps.select(book, step_rules(cfg, book.cur_len(), max_length), top_scores.data(), top_indices.data());
        for (int i = 0; i < items; ++i) {  // the best candidate of every item still searching
            const size_t best = size_t(i) * size_t(keep);
            if (!book.item_done(i) && (top_indices[best] < 0 || top_indices[best] >= int64_t(K) * vocab ||
                                       !std::isfinite(top_scores[best])))
                non_finite(res.steps + 1, i);
        }
        book.advance(top_scores.data(), top_indices.data(), vocab);
        steps.reorder(book.parents());
        ++res.steps;
        if (cb.on_tokens)
            for (int i = 0; i < items; ++i) cb.on_tokens(i, book.sequences()[size_t(i * K)]);
        cb.report(RunStage::Generating, book.cur_len() - 1, max_length - 1);
        if (book.finished()) break;
    }
    book.finish(res);
    return res;
}

}  // namespace precis
