#pragma once
// The search's steps on the device (engine/generate/stepped_search.h runs the loop, the same
// loop as the CPU's): the scores stay on the device (device_candidates.h, which the
// continuous batch's decoder uses too); only each step's chosen tokens or candidates come
// back to the host.
#include <cuda_runtime.h>

#include <memory>
#include <optional>
#include <vector>

#include "engine/generate/stepped_search.h"
#include "kernels/runner/device_candidates.h"
#include "kernels/span_timer.h"

namespace precis::cuda {

class DeviceDecoder;

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
    // The step's candidates with every row under the same rules; then ends the step's timed
    // span and waits for them to land on the host.
    void score(const StepRules& rules, const std::vector<std::vector<int64_t>>& sequences,
               const std::vector<float>& beam_scores);

    DeviceDecoder& dec_;
    int items_, beams_, rows_;
    cudaStream_t stream_;
    SearchTimers timers_;
    std::optional<TimedSpan> step_;  // from forward() until the step's results are queued
    DeviceCandidates candidates_;
    std::vector<StepRules> rules_;
    std::vector<const std::vector<int64_t>*> histories_;
};

}  // namespace precis::cuda
