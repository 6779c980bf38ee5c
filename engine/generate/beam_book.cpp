#include "engine/generate/beam_book.h"

#include <algorithm>

#include "engine/generate/logits_processors.h"

namespace precis {

BeamBook::BeamBook(int items, const GenerationConfig& cfg, int max_length)
    : items_(items),
      K_(cfg.num_beams),
      max_length_(max_length),
      eos_(cfg.eos_token_id),
      pad_(cfg.pad_token_id),
      early_stopping_(cfg.early_stopping),
      seqs_(size_t(items) * size_t(cfg.num_beams), {cfg.decoder_start_token_id}),
      next_seqs_(seqs_.size()),
      beam_scores_(seqs_.size(), 0.f),
      next_scores_(seqs_.size(), 0.f),
      last_(seqs_.size(), cfg.decoder_start_token_id),
      next_tokens_(seqs_.size(), 0),
      parents_(seqs_.size(), 0),
      hyps_(size_t(items), HypothesisSet(cfg.num_beams, cfg.length_penalty)),
      done_(size_t(items), 0) {
    // Only the first beam of each item is live at the start (HF: the others score -1e9).
    for (int i = 0; i < items; ++i)
        for (int b = 1; b < K_; ++b) beam_scores_[size_t(i * K_ + b)] = -1e9f;
}

bool BeamBook::finished() const {
    return std::all_of(done_.begin(), done_.end(), [](char d) { return d != 0; }) || cur_len_ >= max_length_;
}

void BeamBook::advance(const float* top_scores, const int64_t* top_indices, int64_t vocab) {
    const int keep = this->keep();
    for (int i = 0; i < items_; ++i) {
        const int first = i * K_;
        if (done_[size_t(i)]) {
            for (int b = 0; b < K_; ++b) {
                parents_[size_t(first + b)] = first;
                next_tokens_[size_t(first + b)] = pad_;
                next_scores_[size_t(first + b)] = 0.f;
            }
            continue;
        }
        const float* scores = top_scores + size_t(i) * size_t(keep);
        const int64_t* indices = top_indices + size_t(i) * size_t(keep);
        int filled = 0;
        for (int rank = 0; rank < keep && filled < K_; ++rank) {
            const int src = first + int(indices[rank] / vocab);
            const int64_t token = indices[rank] % vocab;
            if (token == eos_) {
                if (rank >= K_) continue;
                hyps_[size_t(i)].add(seqs_[size_t(src)], scores[rank], cur_len_);
            } else {
                parents_[size_t(first + filled)] = src;
                next_tokens_[size_t(first + filled)] = token;
                next_scores_[size_t(first + filled)] = scores[rank];
                ++filled;
            }
        }
        done_[size_t(i)] = hyps_[size_t(i)].is_done(scores[0], cur_len_ + 1, early_stopping_);
    }
    for (size_t r = 0; r < seqs_.size(); ++r) {
        next_seqs_[r] = seqs_[size_t(parents_[r])];
        next_seqs_[r].push_back(next_tokens_[r]);
        beam_scores_[r] = next_scores_[r];
        last_[r] = next_tokens_[r];
    }
    seqs_.swap(next_seqs_);
    ++cur_len_;
}

void BeamBook::finish(GenerationResult& res) {
    for (int i = 0; i < items_; ++i) {
        if (done_[size_t(i)]) continue;
        for (int b = 0; b < K_; ++b) {
            const size_t r = size_t(i * K_ + b);
            hyps_[size_t(i)].add(seqs_[r], beam_scores_[r], int(seqs_[r].size()) - 1);
        }
    }
    for (int i = 0; i < items_; ++i) {
        const Hypothesis& h = hyps_[size_t(i)].best();
        std::vector<int64_t> out = h.tokens;
        if (int(out.size()) < max_length_) out.push_back(eos_);
        res.sequences.push_back(std::move(out));
        res.sequence_scores.push_back(h.score);
    }
}

}  // namespace precis
