#pragma once
// One search step's candidates on the device, for both device searches: generate()'s
// (device_search.h, the stepped loop of engine/generate/stepped_search.h) and the continuous
// batch's (device_batch_decoder.h). The step's float32 logits stay on the device: each row's
// log-softmax and logits processors under its own rules (log_softmax_process), the
// beams' running scores added, then the top candidates of each group of `width` rows (greedy:
// the best token of each row; beam search: the best 2 x width over the group's width x vocab,
// kernels/ops/search_step.h; greedy rows are chosen on their processed logits, as the
// CPU's are). Only those come back, with a forced row's log-probability before forcing,
// which the greedy score counts as the CPU's does.
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "engine/generate/logits_processors.h"
#include "kernels/device_buffer.h"

namespace precis::cuda {

class DeviceCandidates {
public:
    // rows: the most rows a step scores; max_length: the longest token history a row holds.
    DeviceCandidates(int rows, int width, int64_t vocab, int max_length, cudaStream_t stream);

    int keep() const { return keep_; }

    // Queues the step over the first `rows` rows (a multiple of width) of `scores`, in place:
    // row r under rules[r] over histories[r] (its tokens so far; null: a row whose rules read
    // none), plus beam_scores[r] when beam search (width > 1). Then the copies to the host of
    // what the accessors below read once the stream has been synchronized. The host buffers
    // the step reads are pinned and rewritten by the next queue(), after that synchronization.
    void queue(float* scores, int rows, const std::vector<StepRules>& rules,
               const std::vector<const std::vector<int64_t>*>& histories, const std::vector<float>& beam_scores);

    // [groups][keep] candidates, best first (flat index beam * vocab + token within a group).
    const int64_t* indices() const { return down_.as<int64_t>(); }
    const float* values() const { return reinterpret_cast<const float*>(indices() + max_top_); }
    // Greedy, [rows]: for a row whose rules forced a token, its log-probability before forcing.
    const float* forced_logprobs() const { return values() + max_top_; }

private:
    const int32_t* upload_histories(const std::vector<const std::vector<int64_t>*>& histories);

    int rows_, width_, keep_, stride_;
    int64_t V_;
    size_t max_top_;  // groups x keep at the most
    cudaStream_t stream_;
    DeviceBuffer history_, rules_, beam_scores_, values_, indices_, forced_logprob_, log_sum_exp_, scratch_;
    PinnedBuffer history_host_;  // int32 [rows, max_length]
    PinnedBuffer up_;            // each row's rules, then its beam score
    PinnedBuffer down_;          // the candidates' indices, values, then the forced log-probabilities
};

}  // namespace precis::cuda
