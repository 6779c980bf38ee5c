#pragma once
// The encoder's output as the device runner keeps it for its decoder: the memory rows in the
// run's precision and their cross-attention mask, so generation reads them in place instead
// of uploading the host copy again. Held by EncodedRow::device_memory (opaque there).
#include <cstdint>
#include <memory>

#include "kernels/device_buffer.h"
#include "kernels/ops/precision.h"

namespace precis::cuda {

struct DeviceMemory {
    uint64_t runner_id = 0;  // which runner made it (another runner's cannot be read)
    Precision precision = Precision::F32;
    int rows = 0;
    int64_t dim = 0;
    DeviceBuffer memory;  // [rows, dim]
    DeviceBuffer mask;    // float32 [rows], additive
};

}  // namespace precis::cuda
