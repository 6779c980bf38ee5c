#pragma once
// The int8 GEMV of a decoding step (a few activation rows): the weights widened to int16
// and multiplied into the rows rounded to int16 (int8_gemv.cpp says why and how
// accurately). The rows are rounded once per product, then each thread runs its columns.
#include <cstdint>
#include <vector>

#include "engine/backend/backend.h"

namespace precis {

// Activation rows rounded to int16, one scale per row.
struct Int16Rows {
    std::vector<int16_t> values;  // [rows, in]
    std::vector<float> scales;    // [rows]
};

// q = round(x / scale) with scale = max|x| / largest (at most 32767); returns the scale,
// 1 for a row of zeros, 0 for a row that is not finite (the caller then takes its float path).
float round_row_to_int16(const float* x, int64_t n, int16_t* q, float largest);

// Rounds x[rows, in] into `out`; false when a row holds a NaN or an infinity (the float
// kernel then takes the product, passing them on).
bool round_rows_to_int16(const float* x, int64_t rows, int64_t in, Int16Rows& out);

// y[rows, c0:c1] = x * W[c0:c1]^T + b (b may be null), single-threaded, y with row stride `out`.
void int8_gemv_columns(const Int16Rows& x, int64_t rows, int64_t in, const WeightRef& w, const float* b, int64_t out,
                       int64_t c0, int64_t c1, float* y);

}  // namespace precis
