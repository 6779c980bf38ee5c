#include "kernels/runner/device_candidates.h"

#include <algorithm>
#include <string>

#include "engine/core/error.h"
#include "engine/generate/beam_book.h"
#include "kernels/cuda_check.h"
#include "kernels/ops/search_step.h"

namespace precis::cuda {

DeviceCandidates::DeviceCandidates(int rows, int width, int64_t vocab, int max_length, cudaStream_t stream)
    : rows_(rows),
      width_(width),
      keep_(width == 1 ? 1 : BeamBook::keep_for(width)),  // greedy: the best token
      stride_(max_length),
      V_(vocab),
      max_top_(size_t(rows / std::max(width, 1)) * size_t(keep_)),
      stream_(stream) {
    check(rows >= 1 && width >= 1 && rows % width == 0 && max_length >= 1,
          "search: the rows are not groups of the beams");
    check(keep_ <= kMaxTopK, "beam search on the GPU takes at most " + std::to_string(kMaxTopK / 2) + " beams, not " +
                                 std::to_string(width));
    const size_t history = size_t(rows) * size_t(max_length);
    history_ = DeviceBuffer(history * sizeof(int32_t));
    history_host_ = PinnedBuffer(history * sizeof(int32_t));
    std::fill_n(history_host_.as<int32_t>(), history, 0);
    rules_ = DeviceBuffer(size_t(rows) * sizeof(RowRules));
    if (width > 1) beam_scores_ = DeviceBuffer(size_t(rows) * sizeof(float));
    else {
        forced_logprob_ = DeviceBuffer(size_t(rows) * sizeof(float));
        log_sum_exp_ = DeviceBuffer(size_t(rows) * sizeof(float));
    }
    values_ = DeviceBuffer(max_top_ * sizeof(float));
    indices_ = DeviceBuffer(max_top_ * sizeof(int64_t));
    const size_t scratch = topk_scratch_bytes(rows / width, int64_t(width) * vocab, keep_);
    if (scratch > 0) scratch_ = DeviceBuffer(scratch);
    up_ = PinnedBuffer(size_t(rows) * (sizeof(RowRules) + sizeof(float)));
    down_ = PinnedBuffer(max_top_ * (sizeof(int64_t) + sizeof(float)) + size_t(rows) * sizeof(float));
}

// Only the rows' tokens so far are sent (a few kilobytes a step), not the scores.
const int32_t* DeviceCandidates::upload_histories(const std::vector<const std::vector<int64_t>*>& histories) {
    int32_t* h = history_host_.as<int32_t>();
    size_t used = 0;  // through the last row's history: the rest of each row is not read
    for (size_t r = 0; r < histories.size(); ++r) {
        if (!histories[r]) continue;
        const std::vector<int64_t>& seq = *histories[r];
        const size_t len = std::min(seq.size(), size_t(stride_));
        for (size_t i = 0; i < len; ++i) h[r * size_t(stride_) + i] = int32_t(seq[i]);
        used = std::max(used, r * size_t(stride_) + len);
    }
    if (used > 0)
        PRECIS_CUDA_CHECK(cudaMemcpyAsync(history_.get(), h, used * sizeof(int32_t), cudaMemcpyHostToDevice, stream_));
    return history_.as<int32_t>();
}

void DeviceCandidates::queue(float* scores, int rows, const std::vector<StepRules>& rules,
                             const std::vector<const std::vector<int64_t>*>& histories,
                             const std::vector<float>& beam_scores) {
    check(rows >= width_ && rows <= rows_ && rows % width_ == 0, "search: the step's rows are not groups of the beams");
    check(int(rules.size()) >= rows && int(histories.size()) >= rows && (width_ == 1 || int(beam_scores.size()) >= rows),
          "search: each row needs its rules, its history and, in beam search, its score");
    RowRules* host_rules = up_.as<RowRules>();
    for (int r = 0; r < rows; ++r) host_rules[r] = row_rules(rules[size_t(r)], V_, stride_);
    PRECIS_CUDA_CHECK(cudaMemcpyAsync(rules_.get(), host_rules, size_t(rows) * sizeof(RowRules),
                                      cudaMemcpyHostToDevice, stream_));
    if (width_ > 1) {
        float* host_scores = reinterpret_cast<float*>(host_rules + rows_);
        std::copy_n(beam_scores.begin(), rows, host_scores);
        PRECIS_CUDA_CHECK(cudaMemcpyAsync(beam_scores_.get(), host_scores, size_t(rows) * sizeof(float),
                                          cudaMemcpyHostToDevice, stream_));
    }
    const bool greedy = width_ == 1;
    log_softmax_process(scores, rows, V_, upload_histories(histories), stride_,
                        greedy ? nullptr : beam_scores_.as<float>(), rules_.as<RowRules>(), stream_,
                        greedy ? forced_logprob_.as<float>() : nullptr, greedy ? log_sum_exp_.as<float>() : nullptr);
    // Greedy: every row's first best processed logit, as the CPU's greedy_pick takes it, then
    // its log-probability. Beam search: every group's best candidates, finished or free ones
    // too, which nothing reads.
    const int groups = rows / width_;
    top_k(scores, groups, int64_t(width_) * V_, keep_, values_.as<float>(), indices_.as<int64_t>(), scratch_.get(),
          stream_);
    if (greedy) to_log_probabilities(values_.as<float>(), log_sum_exp_.as<float>(), rows, stream_);
    const size_t n = size_t(groups) * size_t(keep_);
    PRECIS_CUDA_CHECK(cudaMemcpyAsync(down_.as<int64_t>(), indices_.get(), n * sizeof(int64_t),
                                      cudaMemcpyDeviceToHost, stream_));
    PRECIS_CUDA_CHECK(cudaMemcpyAsync(const_cast<float*>(values()), values_.get(), n * sizeof(float),
                                      cudaMemcpyDeviceToHost, stream_));
    if (width_ == 1)
        PRECIS_CUDA_CHECK(cudaMemcpyAsync(const_cast<float*>(forced_logprobs()), forced_logprob_.get(),
                                          size_t(rows) * sizeof(float), cudaMemcpyDeviceToHost, stream_));
}

}  // namespace precis::cuda
