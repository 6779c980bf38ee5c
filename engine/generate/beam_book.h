#pragma once
// The host side of beam search, whichever device scores the beams (the CPU search and the
// CUDA runner's share it): every decoder row's tokens and running score, every item's
// finished hypotheses, and HuggingFace 4.36's BeamSearchScorer rule that advances them one
// step from the top 2K candidates of each item's beams x vocab.
#include <cstdint>
#include <vector>

#include "engine/generate/generation.h"
#include "engine/generate/hypothesis_set.h"

namespace precis {

class BeamBook {
public:
    BeamBook(int items, const GenerationConfig& cfg, int max_length);

    int items() const { return items_; }
    int beams() const { return K_; }
    int keep() const { return keep_for(K_); }
    static int keep_for(int beams) { return 2 * beams; }  // candidates per item each step
    int cur_len() const { return cur_len_; }
    bool item_done(int item) const { return done_[size_t(item)] != 0; }
    // Every item done, or the sequences reached max_length.
    bool finished() const;

    const std::vector<std::vector<int64_t>>& sequences() const { return seqs_; }  // [rows]
    const std::vector<float>& beam_scores() const { return beam_scores_; }       // [rows]
    const std::vector<int64_t>& last_tokens() const { return last_; }            // [rows]
    // Which row each row continues, after the last advance() (the decoder reorders by it).
    const std::vector<int>& parents() const { return parents_; }

    // One step. top_scores / top_indices: [items][keep], each item's best candidates over its
    // beams x vocab (flat index beam * vocab + token), best first, ties lower index first; rows of
    // finished items are not read. An eos ranked within the first K finishes a hypothesis; the
    // other candidates fill the next beams; finished items continue with padding.
    void advance(const float* top_scores, const int64_t* top_indices, int64_t vocab);

    // Open beams of unfinished items become hypotheses too; each item's best hypothesis (+ eos
    // when it stopped short of max_length) and its score.
    void finish(GenerationResult& result);

private:
    int items_, K_, max_length_, cur_len_ = 1;
    int64_t eos_, pad_;
    bool early_stopping_;
    std::vector<std::vector<int64_t>> seqs_, next_seqs_;
    std::vector<float> beam_scores_, next_scores_;
    std::vector<int64_t> last_, next_tokens_;
    std::vector<int> parents_;
    std::vector<HypothesisSet> hyps_;
    std::vector<char> done_;
};

}  // namespace precis
