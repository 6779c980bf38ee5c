#pragma once
// The compute type to use when the user has not chosen one: fp32 (exact parity with the
// reference) whenever the model fits in the memory available now, else int8, which holds
// the weights in about a quarter of the bytes, with a notice saying why.
#include <cstdint>
#include <string>

#include "engine/model/compute_type.h"
#include "engine/config/config.h"

namespace precis {

// Bytes of a model's weights held as float32, from its config alone (before loading):
// embeddings, position tables, every layer's matrices, biases and norms.
uint64_t fp32_weight_bytes(const ModelConfig& cfg);

struct ComputeTypeChoice {
    ComputeType type = ComputeType::Fp32;
    std::string notice;  // one sentence when int8 was chosen for lack of memory; else empty
};

// fp32 when its weights plus a quarter of them for the run's buffers fit in
// `available_bytes` (MemAvailable; 0 means unknown, and then fp32), else int8.
ComputeTypeChoice choose_compute_type(const ModelConfig& cfg, uint64_t available_bytes);

}  // namespace precis
