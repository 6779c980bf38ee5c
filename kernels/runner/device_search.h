#pragma once
// The search's steps on the device (engine/generate/stepped_search.h runs the loop, the same
// loop as the CPU's): the scores stay on the device (log-softmax, logits processors, the
// beams' running scores and the top candidates run there, kernels/ops/search_step.h); only
// each step's chosen tokens or candidates come back to the host.
#include <cuda_runtime.h>

#include <memory>
#include <optional>
#include <vector>

#include "engine/generate/stepped_search.h"
#include "kernels/device_buffer.h"
#include "kernels/span_timer.h"

namespace precis::cuda {

class DeviceDecoder;
class DeviceHistory;

struct SearchTimers {
    SpanTimer* step_time = nullptr;    // optional: each step's device work (layers, logits, search)
    SpanTimer* layers_time = nullptr;  // optional: each step's layers alone
};

class DeviceSearchSteps final : public SearchSteps {
public:
    // decoder: items x beams rows; max_length: the generation's effective max length.
    DeviceSearchSteps(DeviceDecoder& decoder, int items, int beams, int64_t vocab, int max_length,
                      cudaStream_t stream, SearchTimers timers = {});
    ~DeviceSearchSteps() override;

    void forward(const std::vector<int64_t>& tokens) override;
    void pick(const std::vector<std::vector<int64_t>>& sequences, const StepRules& rules, int64_t* tokens,
              float* logprobs) override;
    void select(const BeamBook& book, const StepRules& rules, float* top_scores, int64_t* top_indices) override;
    void reorder(const std::vector<int>& parents) override;

private:
    // Ends the step's timed span, then waits for the step's copies to land in pinned_.
    void finish_step();

    DeviceDecoder& dec_;
    int items_, beams_, rows_, keep_;
    int64_t V_;
    cudaStream_t stream_;
    SearchTimers timers_;
    std::optional<TimedSpan> step_;  // from forward() until the step's results are queued
    std::unique_ptr<DeviceHistory> history_;
    DeviceBuffer values_, indices_, forced_logprob_, beam_scores_, scratch_;
    PinnedBuffer pinned_;  // the candidates' indices and values down, beam scores up (plain DMAs)
};

}  // namespace precis::cuda
