#pragma once
// Greedy and beam search over the device decoder, with the CPU search's rules
// (engine/generate/): the scores stay on the device (log-softmax, logits processors, the
// beams' running scores and the top candidates run there); the host keeps the token
// histories and the finished hypotheses (engine/generate/hypothesis_set.h, shared).
#include <cuda_runtime.h>

#include <vector>

#include "engine/generate/generation.h"

namespace precis::cuda {

class DeviceDecoder;
struct DeviceMemory;

class SpanTimer;

struct SearchContext {
    const Model& model;
    const GenerationConfig& cfg;
    const RunCallbacks& callbacks;
    cudaStream_t stream;  // the decoder's
    SpanTimer* step_time = nullptr;    // optional: each step's device work (layers, logits, search)
    SpanTimer* layers_time = nullptr;  // optional: each step's layers alone
};

GenerationResult device_greedy_search(const SearchContext& ctx, DeviceDecoder& decoder, int items);
GenerationResult device_beam_search(const SearchContext& ctx, DeviceDecoder& decoder, int items);

}  // namespace precis::cuda
