// Beam search exactly as HuggingFace 4.36's BeamSearchScorer: the top 2*beams of the
// flattened [beams x vocab] scores are scanned in order; an eos candidate ranked
// within the first `beams` finishes a hypothesis (scored sum_logprobs / len^penalty),
// the others fill the next beams.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "engine/generate/hypothesis_set.h"
#include "engine/generate/search.h"
#include "engine/model/decoder.h"
#include "engine/model/model.h"

namespace precis {


GenerationResult beam_search(const Model& model, Backend& backend, const EncoderOutput& encoded,
                             const GenerationConfig& cfg, const RunCallbacks& cb) {
    const int items = int(encoded.rows.size());
    const int K = cfg.num_beams;
    const int64_t V = model.config().vocab_size;
    const int max_length = effective_max_length(cfg);
    const int rows = items * K;
    DecoderState dec(model, backend, encoded, K, max_length);

    std::vector<std::vector<int64_t>> seqs(size_t(rows), {cfg.decoder_start_token_id});
    std::vector<float> beam_scores(size_t(rows), 0.f);
    for (int i = 0; i < items; ++i)
        for (int b = 1; b < K; ++b) beam_scores[size_t(i * K + b)] = -1e9f;
    std::vector<HypothesisSet> hyps(size_t(items), HypothesisSet(K, cfg.length_penalty));
    std::vector<char> done(size_t(items), 0);

    std::vector<float> scores(size_t(rows) * V);
    std::vector<int64_t> last(size_t(rows), cfg.decoder_start_token_id);
    std::vector<int64_t> order(size_t(K) * V);
    std::vector<int> parents(static_cast<size_t>(rows));
    std::vector<int64_t> next_tokens(static_cast<size_t>(rows));
    std::vector<float> next_scores(static_cast<size_t>(rows));
    std::vector<std::vector<int64_t>> next_seqs(static_cast<size_t>(rows));
    const int keep = 2 * K;
    std::vector<float> top_scores(static_cast<size_t>(keep));
    BeamStepChoice choice;
    GenerationResult res;
    int cur_len = 1;
    while (true) {
        cb.check_abort();
        dec.forward(last.data(), 1);
        dec.logits(scores.data());
        for (int r = 0; r < rows; ++r) {
            float* row = scores.data() + int64_t(r) * V;
            log_softmax_row(row, V);
            process_scores(row, V, seqs[size_t(r)], cfg, max_length);
            for (int64_t t = 0; t < V; ++t) row[t] += beam_scores[size_t(r)];
        }
        for (int i = 0; i < items; ++i) {
            const float* flat = scores.data() + int64_t(i) * K * V;
            if (done[size_t(i)]) {
                for (int b = 0; b < K; ++b) {
                    parents[size_t(i * K + b)] = i * K;
                    next_tokens[size_t(i * K + b)] = cfg.pad_token_id;
                    next_scores[size_t(i * K + b)] = 0.f;
                }
                continue;
            }
            // Top 2K of the flattened scores, sorted descending; ties keep the lower index
            // first as torch.topk does on CPU.
            std::iota(order.begin(), order.end(), 0);
            std::partial_sort(order.begin(), order.begin() + keep, order.end(), [&](int64_t a, int64_t b) {
                return flat[a] > flat[b] || (flat[a] == flat[b] && a < b);
            });
            for (int rank = 0; rank < keep; ++rank) top_scores[size_t(rank)] = flat[order[size_t(rank)]];
            done[size_t(i)] = choose_beams(top_scores.data(), order.data(), keep, K, V, cfg.eos_token_id, i * K, cur_len,
                                           cfg.early_stopping, seqs, hyps[size_t(i)], choice);
            for (int b = 0; b < K; ++b) {
                parents[size_t(i * K + b)] = choice.parents[size_t(b)];
                next_tokens[size_t(i * K + b)] = choice.tokens[size_t(b)];
                next_scores[size_t(i * K + b)] = choice.scores[size_t(b)];
            }
        }
        for (int r = 0; r < rows; ++r) {
            next_seqs[size_t(r)] = seqs[size_t(parents[size_t(r)])];
            next_seqs[size_t(r)].push_back(next_tokens[size_t(r)]);
            beam_scores[size_t(r)] = next_scores[size_t(r)];
            last[size_t(r)] = next_tokens[size_t(r)];
        }
        seqs.swap(next_seqs);
        dec.reorder(parents);
        ++cur_len;
        ++res.steps;
        if (cb.on_tokens)
            for (int i = 0; i < items; ++i) cb.on_tokens(i, seqs[size_t(i * K)]);
        cb.report(RunStage::Generating, cur_len - 1, max_length - 1);
        if (std::all_of(done.begin(), done.end(), [](char d) { return d != 0; }) || cur_len >= max_length) break;
    }
    finish_beam_search(seqs, beam_scores, done, hyps, K, max_length, cfg.eos_token_id, res);
    return res;
}

}  // namespace precis
