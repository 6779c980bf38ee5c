#pragma once
// How many values of a device buffer are NaN or infinite: the check that tells the runner
// an fp16 run overflowed (fp16 holds at most 65504; a larger activation becomes infinite and
// the next LayerNorm turns the row into NaN), so --dtype auto can run the model in bf16.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/ops/precision.h"

namespace precis::cuda {

// Adds to *count (a device int the caller zeroes) the number of NaN or infinite values among
// the n values at x, stored in precision p. Argument checks first (precis::Error), then one
// launch on `stream`.
void count_non_finite(Precision p, const void* x, int64_t n, int* count, cudaStream_t stream);

}  // namespace precis::cuda
