#pragma once
// y[rows, c0:c1] = x[rows, in] * W[c0:c1]^T + b for int8 weights and a few activation
// rows (a decoding step), single-threaded, y with row stride `out`: the weights widened
// to int16 and multiplied into the rows quantized to int16 (int8_gemv.cpp says why and
// how accurate). Returns false, computing nothing, when a row holds a NaN or an infinity.
#include <cstdint>

#include "engine/backend/backend.h"

namespace precis {

bool int8_gemv_block(const float* x, int64_t rows, int64_t in, const WeightRef& w, const float* b, int64_t out,
                     int64_t c0, int64_t c1, float* y);

}  // namespace precis
