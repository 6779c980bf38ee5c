#include "kernels/runner/device_search.h"

#include <algorithm>
#include <string>

#include "engine/core/error.h"
#include "kernels/cuda_check.h"
#include "kernels/runner/device_decoder.h"

namespace precis::cuda {

DeviceSearchSteps::DeviceSearchSteps(DeviceDecoder& decoder, int items, int beams, int64_t vocab, int max_length,
                                     cudaStream_t stream, SearchTimers timers)
    : dec_(decoder),
      items_(items),
      beams_(beams),
      rows_(items * beams),
      stream_(stream),
      timers_(timers),
      candidates_(items * beams, beams, vocab, max_length, stream) {
    check(items >= 1 && beams >= 1 && decoder.rows() == rows_, "search: the decoder's rows are not items x beams");
}

DeviceSearchSteps::~DeviceSearchSteps() = default;

void DeviceSearchSteps::forward(const std::vector<int64_t>& tokens) {
    check(int(tokens.size()) == rows_, "search: one token per row is required");
    step_.emplace(timers_.step_time, stream_);
    TimedSpan layers(timers_.layers_time, stream_);
    dec_.forward(tokens.data(), 1);
}

void DeviceSearchSteps::score(const StepRules& rules, const std::vector<std::vector<int64_t>>& sequences,
                              const std::vector<float>& beam_scores) {
    check(int(sequences.size()) == rows_, "search: one token history per row is required");
    rules_.assign(size_t(rows_), rules);
    histories_.clear();
    for (const std::vector<int64_t>& s : sequences) histories_.push_back(&s);
    candidates_.queue(const_cast<float*>(dec_.logits()), rows_, rules_, histories_, beam_scores);
    step_.reset();
    PRECIS_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

void DeviceSearchSteps::pick(const std::vector<std::vector<int64_t>>& sequences, const StepRules& rules,
                             int64_t* tokens, float* logprobs) {
    check(beams_ == 1, "search: a greedy step on a beam decoder");
    score(rules, sequences, {});
    // The score adds the chosen token's log-probability, as the CPU's: the processed value is
    // that, except on a forced step, whose row holds 0 for the forced token.
    const bool forced =
        forced_token_at(rules.forced_bos_token_id, rules.forced_eos_token_id, rules.cur_len, rules.max_length) >= 0;
    std::copy_n(forced ? candidates_.forced_logprobs() : candidates_.values(), rows_, logprobs);
    std::copy_n(candidates_.indices(), rows_, tokens);
}

void DeviceSearchSteps::select(const BeamBook& book, const StepRules& rules, float* top_scores,
                               int64_t* top_indices) {
    check(beams_ > 1 && book.beams() == beams_ && book.items() == items_ && book.keep() == candidates_.keep(),
          "search: the beam book does not fit the decoder");
    // Every item's candidates, finished or not: the book does not read a finished item's.
    score(rules, book.sequences(), book.beam_scores());
    const size_t n_top = size_t(items_) * size_t(candidates_.keep());
    std::copy_n(candidates_.values(), n_top, top_scores);
    std::copy_n(candidates_.indices(), n_top, top_indices);
}

void DeviceSearchSteps::reorder(const std::vector<int>& parents) { dec_.reorder(parents); }

}  // namespace precis::cuda
