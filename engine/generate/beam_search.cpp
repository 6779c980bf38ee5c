// Beam search exactly as HuggingFace 4.36's BeamSearchScorer: the top 2*beams of the
// flattened [beams x vocab] scores are scanned in order; an eos candidate ranked
// within the first `beams` finishes a hypothesis (scored sum_logprobs / len^penalty),
// the others fill the next beams.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "engine/generate/search.h"
#include "engine/model/decoder.h"
#include "engine/model/model.h"

namespace precis {

namespace {

struct Hypothesis {
    float score;
    std::vector<int64_t> tokens;
};

// The best `beams` finished hypotheses of one batch item.
class HypothesisSet {
public:
    HypothesisSet(int beams, double length_penalty) : beams_(beams), penalty_(length_penalty) {}

    int size() const { return int(hyps_.size()); }

    void add(std::vector<int64_t> tokens, float sum_logprobs, int generated_len) {
        const float score = float(sum_logprobs / std::pow(double(generated_len), penalty_));
        if (size() < beams_ || score > worst_) {
            hyps_.push_back({score, std::move(tokens)});
            if (size() > beams_) {
                auto worst = std::min_element(hyps_.begin(), hyps_.end(),
                                              [](const Hypothesis& a, const Hypothesis& b) { return a.score < b.score; });
                hyps_.erase(worst);
                worst_ = std::min_element(hyps_.begin(), hyps_.end(), [](const Hypothesis& a, const Hypothesis& b) {
                             return a.score < b.score;
                         })->score;
            } else {
                worst_ = std::min(score, worst_);
            }
        }
    }

    // HF's is_done with early_stopping true / false ("heuristic").
    bool is_done(float best_sum_logprobs, int cur_len, bool early_stopping) const {
        if (size() < beams_) return false;
        if (early_stopping) return true;
        const float highest = float(best_sum_logprobs / std::pow(double(cur_len - 1), penalty_));
        return worst_ >= highest;
    }

    // The highest score; on ties the hypothesis added last (Python's stable sort + pop).
    const Hypothesis& best() const {
        size_t b = 0;
        for (size_t i = 1; i < hyps_.size(); ++i)
            if (hyps_[i].score >= hyps_[b].score) b = i;
        return hyps_[b];
    }

private:
    int beams_;
    double penalty_;
    float worst_ = 1e9f;
    std::vector<Hypothesis> hyps_;
};

}  // namespace

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
            int filled = 0;
            for (int rank = 0; rank < keep && filled < K; ++rank) {
                const int64_t idx = order[size_t(rank)];
                const int beam = int(idx / V);
                const int64_t token = idx % V;
                const int src = i * K + beam;
                if (token == cfg.eos_token_id) {
                    if (rank >= K) continue;
                    hyps[size_t(i)].add(seqs[size_t(src)], flat[idx], cur_len);
                } else {
                    parents[size_t(i * K + filled)] = src;
                    next_tokens[size_t(i * K + filled)] = token;
                    next_scores[size_t(i * K + filled)] = flat[idx];
                    ++filled;
                }
            }
            const float best = flat[order[0]];
            done[size_t(i)] = hyps[size_t(i)].is_done(best, cur_len + 1, cfg.early_stopping);
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
    // Finalize: open beams of unfinished items become hypotheses too.
    for (int i = 0; i < items; ++i) {
        if (done[size_t(i)]) continue;
        for (int b = 0; b < K; ++b) {
            const int r = i * K + b;
            hyps[size_t(i)].add(seqs[size_t(r)], beam_scores[size_t(r)], int(seqs[size_t(r)].size()) - 1);
        }
    }
    for (int i = 0; i < items; ++i) {
        const Hypothesis& h = hyps[size_t(i)].best();
        std::vector<int64_t> out = h.tokens;
        if (int(out.size()) < max_length) out.push_back(cfg.eos_token_id);
        res.sequences.push_back(std::move(out));
        res.sequence_scores.push_back(h.score);
    }
    return res;
}

}  // namespace precis
