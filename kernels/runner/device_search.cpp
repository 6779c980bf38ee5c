#include "kernels/runner/device_search.h"

#include <algorithm>
#include <string>

#include "engine/core/error.h"
#include "kernels/cuda_check.h"
#include "kernels/ops/search_step.h"
#include "kernels/runner/device_decoder.h"
#include "kernels/runner/device_history.h"

namespace precis::cuda {

DeviceSearchSteps::DeviceSearchSteps(DeviceDecoder& decoder, int items, int beams, int64_t vocab, int max_length,
                                     cudaStream_t stream, SearchTimers timers)
    : dec_(decoder),
      items_(items),
      beams_(beams),
      rows_(items * beams),
      keep_(beams == 1 ? 1 : BeamBook::keep_for(beams)),  // greedy: the best token
      V_(vocab),
      stream_(stream),
      timers_(timers) {
    check(items >= 1 && beams >= 1 && decoder.rows() == rows_, "search: the decoder's rows are not items x beams");
    check(keep_ <= 64, "beam search on the GPU takes at most 32 beams, not " + std::to_string(beams));
    history_ = std::make_unique<DeviceHistory>(rows_, max_length, stream);
    const size_t n_top = size_t(items) * size_t(keep_);
    values_ = DeviceBuffer(n_top * sizeof(float));
    indices_ = DeviceBuffer(n_top * sizeof(int64_t));
    if (beams == 1) forced_logprob_ = DeviceBuffer(size_t(rows_) * sizeof(float));
    else beam_scores_ = DeviceBuffer(size_t(rows_) * sizeof(float));
    const size_t scratch = topk_scratch_bytes(items, int64_t(beams) * vocab, keep_);
    if (scratch > 0) scratch_ = DeviceBuffer(scratch);
    pinned_ = PinnedBuffer(n_top * (sizeof(int64_t) + sizeof(float)) + size_t(rows_) * sizeof(float));
}

DeviceSearchSteps::~DeviceSearchSteps() = default;

void DeviceSearchSteps::forward(const std::vector<int64_t>& tokens) {
    check(int(tokens.size()) == rows_, "search: one token per row is required");
    step_.emplace(timers_.step_time, stream_);
    TimedSpan layers(timers_.layers_time, stream_);
    dec_.forward(tokens.data(), 1);
}

void DeviceSearchSteps::finish_step() {
    step_.reset();
    PRECIS_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

void DeviceSearchSteps::pick(const std::vector<std::vector<int64_t>>& sequences, const StepRules& rules,
                             int64_t* tokens, float* logprobs) {
    check(beams_ == 1, "search: a greedy step on a beam decoder");
    float* scores = const_cast<float*>(dec_.logits());
    const bool forced = log_softmax_process(scores, rows_, V_, history_->upload(sequences), history_->stride(),
                                            nullptr, rules, stream_, forced_logprob_.as<float>());
    // log-softmax shifts a row by a constant, so its first maximum is the processed logits'
    // first maximum, the token the CPU's greedy_pick takes.
    top_k(scores, rows_, V_, 1, values_.as<float>(), indices_.as<int64_t>(), scratch_.get(), stream_);
    // The score adds the chosen token's log-probability, as the CPU's: the processed value is
    // that, except on a forced step, whose row holds 0 for the forced token.
    int64_t* host_indices = pinned_.as<int64_t>();
    float* host_values = reinterpret_cast<float*>(host_indices + rows_);
    PRECIS_CUDA_CHECK(cudaMemcpyAsync(host_values, forced ? forced_logprob_.get() : values_.get(),
                                      size_t(rows_) * sizeof(float), cudaMemcpyDeviceToHost, stream_));
    PRECIS_CUDA_CHECK(cudaMemcpyAsync(host_indices, indices_.get(), size_t(rows_) * sizeof(int64_t),
                                      cudaMemcpyDeviceToHost, stream_));
    finish_step();
    std::copy_n(host_values, rows_, logprobs);
    std::copy_n(host_indices, rows_, tokens);
}

void DeviceSearchSteps::select(const BeamBook& book, const StepRules& rules, float* top_scores,
                               int64_t* top_indices) {
    check(beams_ > 1 && book.beams() == beams_ && book.items() == items_ && book.keep() == keep_,
          "search: the beam book does not fit the decoder");
    float* scores = const_cast<float*>(dec_.logits());
    const size_t n_top = size_t(items_) * size_t(keep_);
    int64_t* host_indices = pinned_.as<int64_t>();
    float* host_values = reinterpret_cast<float*>(host_indices + n_top);
    float* host_beam_scores = host_values + n_top;
    std::copy_n(book.beam_scores().data(), rows_, host_beam_scores);
    PRECIS_CUDA_CHECK(cudaMemcpyAsync(beam_scores_.get(), host_beam_scores, size_t(rows_) * sizeof(float),
                                      cudaMemcpyHostToDevice, stream_));
    log_softmax_process(scores, rows_, V_, history_->upload(book.sequences()), history_->stride(),
                        beam_scores_.as<float>(), rules, stream_);
    // Every item's candidates, finished or not: the book does not read a finished item's.
    top_k(scores, items_, int64_t(beams_) * V_, keep_, values_.as<float>(), indices_.as<int64_t>(), scratch_.get(),
          stream_);
    PRECIS_CUDA_CHECK(
        cudaMemcpyAsync(host_values, values_.get(), n_top * sizeof(float), cudaMemcpyDeviceToHost, stream_));
    PRECIS_CUDA_CHECK(
        cudaMemcpyAsync(host_indices, indices_.get(), n_top * sizeof(int64_t), cudaMemcpyDeviceToHost, stream_));
    finish_step();
    std::copy_n(host_values, n_top, top_scores);
    std::copy_n(host_indices, n_top, top_indices);
}

void DeviceSearchSteps::reorder(const std::vector<int>& parents) { dec_.reorder(parents); }

}  // namespace precis::cuda
