#include "engine/backend/lowp_linear.h"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "engine/backend/int8_gemv.h"
#include "engine/core/dtype.h"
#include "engine/core/simd_reduce.h"
#include "engine/core/error.h"
#include "engine/core/worker_team.h"

namespace precis {

namespace {

// Eight weights widened to float: int8 through int32, fp16 with F16C.
template <WeightFormat F> inline __m256 load8(const void* row, int64_t i);
template <> inline __m256 load8<WeightFormat::I8>(const void* row, int64_t i) {
    const __m128i b = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(static_cast<const int8_t*>(row) + i));
    return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(b));
}
template <> inline __m256 load8<WeightFormat::F16>(const void* row, int64_t i) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(static_cast<const uint16_t*>(row) + i)));
}
template <> inline __m256 load8<WeightFormat::F32>(const void* row, int64_t i) {
    return _mm256_loadu_ps(static_cast<const float*>(row) + i);
}
template <WeightFormat F> inline float load1(const void* row, int64_t i);
template <> inline float load1<WeightFormat::F32>(const void* row, int64_t i) {
    return static_cast<const float*>(row)[i];
}
template <> inline float load1<WeightFormat::I8>(const void* row, int64_t i) {
    return float(static_cast<const int8_t*>(row)[i]);
}
template <> inline float load1<WeightFormat::F16>(const void* row, int64_t i) {
    return half_to_float(static_cast<const uint16_t*>(row)[i]);
}

template <WeightFormat F> constexpr size_t kElemBytes = F == WeightFormat::I8 ? 1 : F == WeightFormat::F16 ? 2 : 4;

// R activation rows (1..4) against weight rows [c0, c1). Each weight row is read once
// and widened once; two accumulators per activation row hide the FMA latency.
template <WeightFormat F, int R>
void gemv_rows(const float* x, int64_t in, const WeightRef& w, const float* b, int64_t out, int64_t c0, int64_t c1,
               float* y) {
    const char* base = static_cast<const char*>(w.data);
    const int64_t in16 = in / 16 * 16, in8 = in / 8 * 8;
    for (int64_t o = c0; o < c1; ++o) {
        const void* row = base + size_t(o) * size_t(in) * kElemBytes<F>;
        if (o + 1 < c1) _mm_prefetch(base + size_t(o + 1) * size_t(in) * kElemBytes<F>, _MM_HINT_T0);
        __m256 acc0[R], acc1[R];
        for (int r = 0; r < R; ++r) acc0[r] = acc1[r] = _mm256_setzero_ps();
        int64_t i = 0;
        for (; i < in16; i += 16) {
            const __m256 w0 = load8<F>(row, i), w1 = load8<F>(row, i + 8);
            for (int r = 0; r < R; ++r) {
                acc0[r] = _mm256_fmadd_ps(w0, _mm256_loadu_ps(x + r * in + i), acc0[r]);
                acc1[r] = _mm256_fmadd_ps(w1, _mm256_loadu_ps(x + r * in + i + 8), acc1[r]);
            }
        }
        for (; i < in8; i += 8) {
            const __m256 w0 = load8<F>(row, i);
            for (int r = 0; r < R; ++r) acc0[r] = _mm256_fmadd_ps(w0, _mm256_loadu_ps(x + r * in + i), acc0[r]);
        }
        const float scale = F == WeightFormat::I8 ? w.scales[o] : 1.f;
        const float bias = b ? b[o] : 0.f;
        for (int r = 0; r < R; ++r) {
            float s = horizontal_sum(_mm256_add_ps(acc0[r], acc1[r]));
            for (int64_t j = i; j < in; ++j) s += load1<F>(row, j) * x[r * in + j];
            y[r * out + o] = s * scale + bias;
        }
    }
}

// Four float32 rows with 512-bit registers, where the CPU has them. Four rows at a time
// make the 256-bit kernel load-bound (ten loads per eight FMAs); in zmm the same weights
// take half the instructions, and fp32 beam-4 decoding at 512 tokens ran ~14 % faster
// (alternated runs; PRECIS_NO_ZMM=1 keeps the 256-bit kernel, to compare).
__attribute__((target("avx512f"))) void gemv4_f32_zmm(const float* x, int64_t in, const float* w, const float* b,
                                                      int64_t out, int64_t c0, int64_t c1, float* y) {
    constexpr int R = 4;
    const int64_t in32 = in / 32 * 32;
    for (int64_t o = c0; o < c1; ++o) {
        const float* row = w + o * in;
        if (o + 1 < c1) _mm_prefetch(reinterpret_cast<const char*>(row + in), _MM_HINT_T0);
        __m512 acc0[R], acc1[R];
        for (int r = 0; r < R; ++r) acc0[r] = acc1[r] = _mm512_setzero_ps();
        int64_t i = 0;
        for (; i < in32; i += 32) {
            const __m512 w0 = _mm512_loadu_ps(row + i), w1 = _mm512_loadu_ps(row + i + 16);
            for (int r = 0; r < R; ++r) {
                acc0[r] = _mm512_fmadd_ps(w0, _mm512_loadu_ps(x + r * in + i), acc0[r]);
                acc1[r] = _mm512_fmadd_ps(w1, _mm512_loadu_ps(x + r * in + i + 16), acc1[r]);
            }
        }
        const float bias = b ? b[o] : 0.f;
        for (int r = 0; r < R; ++r) {
            alignas(64) float lanes[16];  // (_mm512_reduce_add_ps trips GCC 12's uninitialized warning)
            _mm512_store_ps(lanes, _mm512_add_ps(acc0[r], acc1[r]));
            float s = horizontal_sum(_mm256_add_ps(_mm256_load_ps(lanes), _mm256_load_ps(lanes + 8)));
            for (int64_t j = i; j < in; ++j) s += row[j] * x[r * in + j];
            y[r * out + o] = s + bias;
        }
    }
}

// The same four rows against three weight rows at once, each output the same sum as
// gemv4_f32_zmm's (same lanes, same order): four rows read a weight vector for four FMAs,
// and the loads, not the FMAs, set the pace; against three weight rows the step's fourteen
// loads feed twenty-four FMAs. A batch of documents is many such groups of four rows.
__attribute__((target("avx512f"))) void gemv4x3_f32_zmm(const float* x, int64_t in, const float* w, const float* b,
                                                        int64_t out, int64_t c0, int64_t c1, float* y) {
    constexpr int R = 4, C = 3;
    const int64_t in32 = in / 32 * 32;
    int64_t o = c0;
    for (; o + C <= c1; o += C) {
        const float* row[C] = {w + o * in, w + (o + 1) * in, w + (o + 2) * in};
        __m512 acc0[R][C], acc1[R][C];
        for (int r = 0; r < R; ++r)
            for (int c = 0; c < C; ++c) acc0[r][c] = acc1[r][c] = _mm512_setzero_ps();
        for (int64_t i = 0; i < in32; i += 32) {
            __m512 xv[R];
            for (int r = 0; r < R; ++r) xv[r] = _mm512_loadu_ps(x + r * in + i);
            for (int c = 0; c < C; ++c) {
                const __m512 wv = _mm512_loadu_ps(row[c] + i);
                for (int r = 0; r < R; ++r) acc0[r][c] = _mm512_fmadd_ps(wv, xv[r], acc0[r][c]);
            }
            for (int r = 0; r < R; ++r) xv[r] = _mm512_loadu_ps(x + r * in + i + 16);
            for (int c = 0; c < C; ++c) {
                const __m512 wv = _mm512_loadu_ps(row[c] + i + 16);
                for (int r = 0; r < R; ++r) acc1[r][c] = _mm512_fmadd_ps(wv, xv[r], acc1[r][c]);
            }
        }
        for (int c = 0; c < C; ++c) {
            const float bias = b ? b[o + c] : 0.f;
            for (int r = 0; r < R; ++r) {
                alignas(64) float lanes[16];
                _mm512_store_ps(lanes, _mm512_add_ps(acc0[r][c], acc1[r][c]));
                float sum = horizontal_sum(_mm256_add_ps(_mm256_load_ps(lanes), _mm256_load_ps(lanes + 8)));
                for (int64_t j = in32; j < in; ++j) sum += row[c][j] * x[r * in + j];
                y[r * out + o + c] = sum + bias;
            }
        }
    }
    if (o < c1) gemv4_f32_zmm(x, in, w, b, out, o, c1, y);
}

template <WeightFormat F>
void gemv_rows_of(const float* x, int64_t rows, int64_t in, const WeightRef& w, const float* b, int64_t out, int64_t c0,
                  int64_t c1, float* y) {
    int64_t r = 0;
    if (F == WeightFormat::F32 && fp32_zmm_kernels())
        for (; r + 4 <= rows; r += 4)
            gemv4x3_f32_zmm(x + r * in, in, static_cast<const float*>(w.data), b, out, c0, c1, y + r * out);
    for (; r + 4 <= rows; r += 4) gemv_rows<F, 4>(x + r * in, in, w, b, out, c0, c1, y + r * out);
    switch (rows - r) {
        case 3: gemv_rows<F, 3>(x + r * in, in, w, b, out, c0, c1, y + r * out); break;
        case 2: gemv_rows<F, 2>(x + r * in, in, w, b, out, c0, c1, y + r * out); break;
        case 1: gemv_rows<F, 1>(x + r * in, in, w, b, out, c0, c1, y + r * out); break;
        default: break;
    }
}

// All rows against weight rows [c0, c1). Past four rows the rows take the weights in
// groups of four, so the weights go by in blocks that stay in the core's L2 cache while
// every group reads them: a step of a batch of documents reads each weight from memory
// once, as a single document's step does. (Each output is the same sum either way.)
template <WeightFormat F>
void gemv_block(const float* x, int64_t rows, int64_t in, const WeightRef& w, const float* b, int64_t out, int64_t c0,
                int64_t c1, float* y) {
    if (rows <= 4) return gemv_rows_of<F>(x, rows, in, w, b, out, c0, c1, y);
    const int64_t block = std::max<int64_t>(8, int64_t(256 * 1024) / std::max<int64_t>(1, in * int64_t(kElemBytes<F>)));
    for (int64_t o = c0; o < c1; o += block) gemv_rows_of<F>(x, rows, in, w, b, out, o, std::min(c1, o + block), y);
}

}  // namespace

bool fp32_zmm_kernels() {
    static const bool yes = __builtin_cpu_supports("avx512f") && !std::getenv("PRECIS_NO_ZMM");
    return yes;
}

void quantize_rows_int8(const float* w, int64_t out, int64_t in, int8_t* q, float* scales) {
#pragma omp parallel for schedule(static) if (out * in > (1 << 16))
    for (int64_t o = 0; o < out; ++o) {
        const float* src = w + o * in;
        float m = 0.f;
        for (int64_t i = 0; i < in; ++i) m = std::max(m, std::fabs(src[i]));
        const float scale = m > 0.f ? m / 127.f : 1.f, inv = 1.f / scale;
        scales[o] = scale;
        int8_t* dst = q + o * in;
        for (int64_t i = 0; i < in; ++i)
            dst[i] = int8_t(std::clamp(std::nearbyint(src[i] * inv), -127.f, 127.f));
    }
}

void widen_weight_rows(const WeightRef& w, int64_t in, int64_t c0, int64_t c1, float* dst) {
    const int64_t in8 = in / 8 * 8;
    for (int64_t o = c0; o < c1; ++o) {
        float* d = dst + (o - c0) * in;
        if (w.format == WeightFormat::I8) {
            const int8_t* src = static_cast<const int8_t*>(w.data) + o * in;
            const __m256 s = _mm256_set1_ps(w.scales[o]);
            int64_t i = 0;
            for (; i < in8; i += 8) _mm256_storeu_ps(d + i, _mm256_mul_ps(load8<WeightFormat::I8>(src, i), s));
            for (; i < in; ++i) d[i] = float(src[i]) * w.scales[o];
        } else if (w.format == WeightFormat::F16) {
            const uint16_t* src = static_cast<const uint16_t*>(w.data) + o * in;
            int64_t i = 0;
            for (; i < in8; i += 8) _mm256_storeu_ps(d + i, load8<WeightFormat::F16>(src, i));
            for (; i < in; ++i) d[i] = half_to_float(src[i]);
        } else {
            const float* src = static_cast<const float*>(w.data) + o * in;
            std::copy(src, src + in, d);
        }
    }
}

void widen_weight(const WeightRef& w, int64_t out, int64_t in, float* dst) {
    const int threads = out * in < (1 << 16) ? 1 : omp_get_max_threads();
#pragma omp parallel num_threads(threads)
    {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        const int64_t c0 = out * t / nt, c1 = out * (t + 1) / nt;
        widen_weight_rows(w, in, c0, c1, dst + c0 * in);
    }
}

void lowp_gemv_block(const float* x, int64_t rows, int64_t in, const WeightRef& w, const float* b, int64_t out,
                     int64_t c0, int64_t c1, float* y) {
    switch (w.format) {
        case WeightFormat::I8:
            check(w.scales != nullptr, "int8 weights need their scales");
            gemv_block<WeightFormat::I8>(x, rows, in, w, b, out, c0, c1, y);
            break;
        case WeightFormat::F16: gemv_block<WeightFormat::F16>(x, rows, in, w, b, out, c0, c1, y); break;
        case WeightFormat::F32: gemv_block<WeightFormat::F32>(x, rows, in, w, b, out, c0, c1, y); break;
    }
}

void lowp_gemv(const float* x, int64_t rows, int64_t in, const WeightRef& w, const float* b, int64_t out, float* y) {
    // int8: the rows are rounded to int16 once, here, and shared by the threads (a
    // reference, since each thread would see its own thread_local).
    thread_local Int16Rows rounded_here;
    const Int16Rows& rounded = rounded_here;
    const bool int16_rows = w.format == WeightFormat::I8 && w.scales && round_rows_to_int16(x, rows, in, rounded_here);
    // A decoder step runs dozens of these back to back: on the worker team (worker_team.h).
    const int threads = rows * in * out < (1 << 16) ? 1 : omp_get_max_threads();
    run_on_team(threads, [&](int t, int nt) {
        const auto [c0, c1] = column_part(out, t, nt);
        if (c1 > c0) {
            if (int16_rows)
                int8_gemv_columns(rounded, rows, in, w, b, out, c0, c1, y);
            else
                lowp_gemv_block(x, rows, in, w, b, out, c0, c1, y);
        }
    });
}

}  // namespace precis
