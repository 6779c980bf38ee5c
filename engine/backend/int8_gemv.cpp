// The decoder's int8 GEMV with the activation rows held in int16.
//
// A decoding step multiplies one to four activation rows by every weight matrix. Widening
// each int8 weight to float (int8 -> int32 -> float, then an FMA) costs three vector
// operations per eight weights, and on a machine with a fast memory system that, not
// reading the weights, bounds the step. Here the weights are only widened to int16
// (one operation per sixteen) and multiplied into the activation row, quantized once
// per call to int16 with one scale for the row, by vpmaddwd: sixteen products and eight
// pairwise sums in one instruction, summed in int32 lanes.
//
// Accuracy: the row's scale is max|x| / 16383, so each activation moves by at most
// 1/32766 of the row's largest, some 250 times finer than the int8 weights' own step
// (1/254 of their row's largest); the output error it adds is ~1e-5 relative, under the
// weights' ~1e-2. The products are exact integers. One vpmaddwd adds at most
// 2 x 127 x 16383 (4.2e6) to an int32 lane; 4096 weights are 128 of them for each of the
// two accumulators, whose sum (under 1.1e9) is moved to float before 2^31 is near.
// Rows with a NaN or an infinity are left to the float kernel, which passes them on.
#include "engine/backend/int8_gemv.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/core/simd_reduce.h"

namespace precis {

namespace {

constexpr float kActivationMax = 16383.f;
constexpr int64_t kChunk = 4096;  // weights summed in int32 before moving to float

}  // namespace

float round_row_to_int16(const float* x, int64_t n, int16_t* q, float largest) {
    float m = 0.f, zero = 0.f;  // zero becomes NaN if any x is NaN or infinite (max would skip a NaN)
    for (int64_t i = 0; i < n; ++i) {
        m = std::max(m, std::fabs(x[i]));
        zero += x[i] * 0.f;
    }
    if (zero != 0.f) return 0.f;
    if (m == 0.f) {
        std::fill(q, q + n, int16_t(0));
        return 1.f;
    }
    const float scale = m / largest, inv = largest / m;
    const __m256 iv = _mm256_set1_ps(inv);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256i a = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(x + i), iv));
        const __m256i b = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(x + i + 8), iv));
        // packs works within 128-bit halves; the permute puts the sixteen back in order.
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + i),
                            _mm256_permute4x64_epi64(_mm256_packs_epi32(a, b), 0xD8));
    }
    for (; i < n; ++i) q[i] = int16_t(std::lrint(x[i] * inv));
    return scale;
}

namespace {

template <int R>
void rows_kernel(const int16_t* xq, const float* xscale, int64_t in, const WeightRef& w, const float* b, int64_t out,
                 int64_t c0, int64_t c1, float* y) {
    const int8_t* base = static_cast<const int8_t*>(w.data);
    const int64_t in32 = in / 32 * 32;
    for (int64_t o = c0; o < c1; ++o) {
        const int8_t* row = base + o * in;
        if (o + 1 < c1) _mm_prefetch(reinterpret_cast<const char*>(row + in), _MM_HINT_T0);
        __m256 total[R];
        for (int r = 0; r < R; ++r) total[r] = _mm256_setzero_ps();
        for (int64_t k0 = 0; k0 < in32; k0 += kChunk) {
            const int64_t k1 = std::min(in32, k0 + kChunk);
            __m256i acc0[R], acc1[R];
            for (int r = 0; r < R; ++r) acc0[r] = acc1[r] = _mm256_setzero_si256();
            for (int64_t i = k0; i < k1; i += 32) {
                const __m256i w0 = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + i)));
                const __m256i w1 = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + i + 16)));
                for (int r = 0; r < R; ++r) {
                    const int16_t* xr = xq + r * in + i;
                    acc0[r] = _mm256_add_epi32(
                        acc0[r], _mm256_madd_epi16(w0, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xr))));
                    acc1[r] = _mm256_add_epi32(
                        acc1[r], _mm256_madd_epi16(w1, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xr + 16))));
                }
            }
            for (int r = 0; r < R; ++r)
                total[r] = _mm256_add_ps(total[r], _mm256_cvtepi32_ps(_mm256_add_epi32(acc0[r], acc1[r])));
        }
        const float bias = b ? b[o] : 0.f;
        for (int r = 0; r < R; ++r) {
            float s = horizontal_sum(total[r]);
            int32_t tail = 0;
            for (int64_t i = in32; i < in; ++i) tail += int32_t(row[i]) * xq[r * in + i];
            s += float(tail);
            y[r * out + o] = s * (w.scales[o] * xscale[r]) + bias;
        }
    }
}

}  // namespace

bool round_rows_to_int16(const float* x, int64_t rows, int64_t in, Int16Rows& out) {
    if (out.values.size() < size_t(rows * in)) out.values.resize(size_t(rows * in));
    out.scales.resize(size_t(rows));
    for (int64_t r = 0; r < rows; ++r) {
        out.scales[size_t(r)] = round_row_to_int16(x + r * in, in, out.values.data() + r * in, kActivationMax);
        if (out.scales[size_t(r)] == 0.f) return false;
    }
    return true;
}

void int8_gemv_columns(const Int16Rows& x, int64_t rows, int64_t in, const WeightRef& w, const float* b, int64_t out,
                       int64_t c0, int64_t c1, float* y) {
    int64_t r = 0;
    for (; r + 4 <= rows; r += 4)
        rows_kernel<4>(x.values.data() + r * in, x.scales.data() + r, in, w, b, out, c0, c1, y + r * out);
    const int16_t* xr = x.values.data() + r * in;
    const float* sr = x.scales.data() + r;
    switch (rows - r) {
        case 3: rows_kernel<3>(xr, sr, in, w, b, out, c0, c1, y + r * out); break;
        case 2: rows_kernel<2>(xr, sr, in, w, b, out, c0, c1, y + r * out); break;
        case 1: rows_kernel<1>(xr, sr, in, w, b, out, c0, c1, y + r * out); break;
        default: break;
    }
}

}  // namespace precis
