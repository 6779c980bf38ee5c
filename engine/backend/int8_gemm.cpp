#include "engine/backend/int8_gemm.h"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "engine/core/error.h"

namespace precis {

namespace {

// The micro-kernel computes 4 activation rows x 16 output columns: 8 int32 accumulators,
// 2 weight registers, one broadcast and one product register fit the 16 ymm registers.
constexpr int64_t kPanelColumns = 16;
constexpr int64_t kMicroRows = 4;
// Rows per pass over a thread's panels: 64 rows of activations (64 KB at in = 1024) stay
// in L2 while every panel is run against them.
constexpr int64_t kRowBlock = 64;
// Bytes of one group of 4 input positions in a panel: 16 columns x 4 int8.
constexpr int64_t kGroupBytes = kPanelColumns * 4;

int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

// What the product needs of each 16-column panel besides the weights.
struct PanelInfo {
    int32_t weight_sum[kPanelColumns];  // sum_i q[o, i], for the zero-point correction
    float weight_scale[kPanelColumns];
    float bias[kPanelColumns];
};

// Panel p holds columns [16p, 16p + 16) of W (zero past `out`, and past `in` up to `kp`),
// laid out so one 32-byte load gives 8 columns x 4 consecutive inputs, which is what
// vpmaddubsw + vpmaddwd turn into 8 int32 partial dot products:
//   [group g][half h][column c in 0..7][k in 0..3] = q[16p + 8h + c, 4g + k].
void pack_panel(const int8_t* q, const float* scales, const float* b, int64_t in, int64_t kp, int64_t out, int64_t p,
                int8_t* panel, PanelInfo& info) {
    const int64_t full_groups = in / 4, groups = kp / 4;
    for (int64_t j = 0; j < kPanelColumns; ++j) {
        const int64_t o = p * kPanelColumns + j;
        int8_t* dst = panel + (j / 8) * 32 + (j % 8) * 4;
        if (o >= out) {
            for (int64_t g = 0; g < groups; ++g) std::memset(dst + g * kGroupBytes, 0, 4);
            info.weight_sum[j] = 0;
            info.weight_scale[j] = 0.f;
            info.bias[j] = 0.f;
            continue;
        }
        const int8_t* src = q + o * in;
        for (int64_t g = 0; g < full_groups; ++g) std::memcpy(dst + g * kGroupBytes, src + 4 * g, 4);
        if (full_groups < groups) {
            int8_t tail[4] = {0, 0, 0, 0};
            for (int64_t i = 4 * full_groups; i < in; ++i) tail[i - 4 * full_groups] = src[i];
            std::memcpy(dst + full_groups * kGroupBytes, tail, 4);
        }
        int32_t sum = 0;
        for (int64_t i = 0; i < in; ++i) sum += src[i];
        info.weight_sum[j] = sum;
        info.weight_scale[j] = scales[o];
        info.bias[j] = b ? b[o] : 0.f;
    }
}

// acc[r][h] (8 columns each) += u[r, :] . panel columns, over all groups.
template <int R>
void micro_kernel(const uint8_t* u, int64_t kp, const int8_t* panel, __m256i (&acc)[kMicroRows][2]) {
    const __m256i ones = _mm256_set1_epi16(1);
    for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_si256();
    const int64_t groups = kp / 4;
    for (int64_t g = 0; g < groups; ++g) {
        const __m256i w0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + g * kGroupBytes));
        const __m256i w1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + g * kGroupBytes + 32));
        for (int r = 0; r < R; ++r) {
            int32_t four;
            std::memcpy(&four, u + r * kp + 4 * g, 4);
            const __m256i a = _mm256_set1_epi32(four);
            acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(_mm256_maddubs_epi16(a, w0), ones));
            acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(_mm256_maddubs_epi16(a, w1), ones));
        }
    }
}

// y[r, 16p + c] from the integer sums: scale * w_scale * (acc - zero * weight_sum) + bias.
template <int R>
void store_rows(const __m256i (&acc)[kMicroRows][2], const ActivationScale* as, const PanelInfo& info, int64_t columns,
                int64_t out, float* y) {
    for (int r = 0; r < R; ++r) {
        const __m256i zero = _mm256_set1_epi32(as[r].zero);
        const __m256 scale = _mm256_set1_ps(as[r].scale);
        float row[kPanelColumns];
        for (int h = 0; h < 2; ++h) {
            const __m256i wsum = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(info.weight_sum + 8 * h));
            const __m256 dot = _mm256_cvtepi32_ps(_mm256_sub_epi32(acc[r][h], _mm256_mullo_epi32(zero, wsum)));
            const __m256 ws = _mm256_mul_ps(scale, _mm256_loadu_ps(info.weight_scale + 8 * h));
            _mm256_storeu_ps(row + 8 * h, _mm256_fmadd_ps(dot, ws, _mm256_loadu_ps(info.bias + 8 * h)));
        }
        std::memcpy(y + r * out, row, size_t(columns) * sizeof(float));
    }
}

template <int R>
void run_rows(const uint8_t* u, int64_t kp, const ActivationScale* as, const int8_t* panel, const PanelInfo& info,
              int64_t columns, int64_t out, float* y) {
    __m256i acc[kMicroRows][2];
    micro_kernel<R>(u, kp, panel, acc);
    store_rows<R>(acc, as, info, columns, out, y);
}

// Scratch per calling thread (engine workers may share a backend): the quantized
// activations, and the packed weights (each OpenMP thread packs the panels it uses).
struct GemmScratch {
    std::vector<uint8_t> u;
    std::vector<ActivationScale> as;
    std::vector<int8_t> packed;
    std::vector<PanelInfo> info;
};

GemmScratch& calling_thread_scratch() {
    thread_local GemmScratch scratch;
    return scratch;
}

}  // namespace

void release_int8_gemm_scratch() { calling_thread_scratch() = GemmScratch{}; }

size_t int8_gemm_scratch_bytes() {
    const GemmScratch& s = calling_thread_scratch();
    return s.u.capacity() + s.as.capacity() * sizeof(ActivationScale) + s.packed.capacity() +
           s.info.capacity() * sizeof(PanelInfo);
}

ActivationScale quantize_activation_row(const float* x, int64_t in, uint8_t* q) {
    float lo = 0.f, hi = 0.f;
    for (int64_t i = 0; i < in; ++i) {
        lo = std::min(lo, x[i]);
        hi = std::max(hi, x[i]);
    }
    ActivationScale s;
    if (hi - lo > 0.f) {
        s.scale = (hi - lo) / float(kActivationLevels);
        s.zero = int32_t(std::nearbyint(-lo / s.scale));
    }
    const float inv = 1.f / s.scale, zero = float(s.zero), top = float(kActivationLevels);
    for (int64_t i = 0; i < in; ++i) q[i] = uint8_t(std::clamp(std::nearbyint(x[i] * inv) + zero, 0.f, top));
    return s;
}

void int8_gemm(const float* x, int64_t rows, int64_t in, const WeightRef& w, const float* b, int64_t out, float* y) {
    check(w.format == WeightFormat::I8 && w.scales != nullptr, "int8_gemm needs int8 weights with their scales");
    check(rows >= 0 && in > 0 && out > 0, "int8_gemm: bad sizes");
    if (rows == 0) return;
    const int64_t kp = round_up(in, 4), panels = round_up(out, kPanelColumns) / kPanelColumns;
    GemmScratch& scratch = calling_thread_scratch();
    std::vector<uint8_t>& u = scratch.u;
    std::vector<ActivationScale>& as = scratch.as;
    std::vector<int8_t>& packed = scratch.packed;
    std::vector<PanelInfo>& info = scratch.info;
    if (u.size() < size_t(rows * kp)) u.resize(size_t(rows * kp));
    if (as.size() < size_t(rows)) as.resize(size_t(rows));
    if (packed.size() < size_t(panels * kPanelColumns * kp)) packed.resize(size_t(panels * kPanelColumns * kp));
    if (info.size() < size_t(panels)) info.resize(size_t(panels));
    uint8_t* const ud = u.data();
    ActivationScale* const asd = as.data();
    int8_t* const pd = packed.data();
    PanelInfo* const id = info.data();
    const int8_t* const q = static_cast<const int8_t*>(w.data);

    const int threads = rows * in * out < (1 << 18) ? 1 : omp_get_max_threads();
#pragma omp parallel num_threads(threads)
    {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
#pragma omp for schedule(static)
        for (int64_t r = 0; r < rows; ++r) {
            uint8_t* ur = ud + r * kp;
            asd[r] = quantize_activation_row(x + r * in, in, ur);
            std::fill(ur + in, ur + kp, uint8_t(0));  // the padded weights are 0 anyway
        }  // implicit barrier: every thread reads every activation row
        const int64_t p0 = panels * t / nt, p1 = panels * (t + 1) / nt;
        for (int64_t p = p0; p < p1; ++p)
            pack_panel(q, w.scales, b, in, kp, out, p, pd + p * kPanelColumns * kp, id[p]);
        for (int64_t r0 = 0; r0 < rows; r0 += kRowBlock) {
            const int64_t r1 = std::min(rows, r0 + kRowBlock);
            for (int64_t p = p0; p < p1; ++p) {
                const int8_t* panel = pd + p * kPanelColumns * kp;
                const int64_t c0 = p * kPanelColumns, columns = std::min(kPanelColumns, out - c0);
                int64_t r = r0;
                for (; r + kMicroRows <= r1; r += kMicroRows)
                    run_rows<4>(ud + r * kp, kp, asd + r, panel, id[p], columns, out, y + r * out + c0);
                switch (r1 - r) {
                    case 3: run_rows<3>(ud + r * kp, kp, asd + r, panel, id[p], columns, out, y + r * out + c0); break;
                    case 2: run_rows<2>(ud + r * kp, kp, asd + r, panel, id[p], columns, out, y + r * out + c0); break;
                    case 1: run_rows<1>(ud + r * kp, kp, asd + r, panel, id[p], columns, out, y + r * out + c0); break;
                    default: break;
                }
            }
        }
    }
}

}  // namespace precis
