#pragma once
// The element type of a run's activations and weights on the device. Products accumulate
// in float32 whatever the storage; LayerNorm, softmax and the search always compute in
// float32. Biases, LayerNorm parameters and masks are float32 in every precision.
#include <cstddef>
#include <cstdint>
#include <string>

namespace precis::cuda {

enum class Precision : uint8_t { F32, F16, BF16 };

inline size_t bytes_of(Precision p) { return p == Precision::F32 ? 4 : 2; }
inline const char* precision_name(Precision p) {
    return p == Precision::F32 ? "fp32" : p == Precision::F16 ? "fp16" : "bf16";
}
// "fp32" | "fp16" | "bf16"; throws precis::Error naming the value otherwise.
Precision parse_precision(const std::string& name);

}  // namespace precis::cuda
