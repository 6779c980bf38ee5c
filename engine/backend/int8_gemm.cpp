#include "engine/backend/int8_gemm.h"

#include <cpuid.h>
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "engine/backend/gelu.h"
#include "engine/backend/int8_gemm_kernels.h"
#include "engine/backend/int8_gemm_onednn.h"
#include "engine/core/error.h"
#include "engine/core/simd_reduce.h"

namespace precis {

namespace {

using namespace int8_gemm_detail;

// Rows per pass over a thread's panels: 64 rows of activations (64 KB at in = 1024) stay
// in L2 while every panel is run against them.
constexpr int64_t kRowBlock = 64;

int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

// Packs columns [16p, 16p + 16) of W into panel p (the layout in int8_gemm_kernels.h):
// zero past `out`, and past `in` up to `kp`.
void pack_panel(const int8_t* q, const float* scales, const float* b, int64_t in, int64_t kp, int64_t out, int64_t p,
                int8_t* panel, PanelInfo& info) {
    const int64_t full_groups = in / 4, groups = kp / 4;
    for (int64_t j = 0; j < kPanelColumns; ++j) {
        const int64_t o = p * kPanelColumns + j;
        int8_t* dst = panel + j * 4;
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

constexpr Int8Kernel kAllKernels[] = {Int8Kernel::Avx2, Int8Kernel::AvxVnni, Int8Kernel::Avx512Vnni,
                                      Int8Kernel::OneDnn};

// The fastest by measurement (int8_gemm_onednn.h): oneDNN where the CPU has AVX-512 VNNI,
// else our widest kernel.
Int8Kernel fastest_supported() {
    if (int8_kernel_supported(Int8Kernel::Avx512Vnni)) return Int8Kernel::OneDnn;
    if (int8_kernel_supported(Int8Kernel::AvxVnni)) return Int8Kernel::AvxVnni;
    return Int8Kernel::Avx2;
}

// The fastest kernel, or the one PRECIS_INT8_KERNEL names (an unknown or unsupported name
// is ignored with a line on stderr: it is a measuring aid, not a setting).
Int8Kernel initial_kernel() {
    const Int8Kernel fastest = fastest_supported();
    const char* asked = std::getenv("PRECIS_INT8_KERNEL");
    if (!asked || !*asked) return fastest;
    std::string runnable;
    for (Int8Kernel k : kAllKernels) {
        if (!int8_kernel_supported(k)) continue;
        if (std::strcmp(asked, int8_kernel_name(k)) == 0) return k;
        runnable += std::string(runnable.empty() ? "" : ", ") + int8_kernel_name(k);
    }
    std::fprintf(stderr, "precis: PRECIS_INT8_KERNEL=%s is not a kernel this CPU runs (%s); using %s\n", asked,
                 runnable.c_str(), int8_kernel_name(fastest));
    return fastest;
}

std::atomic<Int8Kernel>& kernel_in_use() {
    static std::atomic<Int8Kernel> k{initial_kernel()};
    return k;
}

void run_panels(Int8Kernel k, const PanelBlock& b) {
    switch (k) {
        case Int8Kernel::Avx512Vnni: run_panels_avx512_vnni(b); return;
        case Int8Kernel::AvxVnni: run_panels_avx_vnni(b); return;
        case Int8Kernel::Avx2: run_panels_avx2(b); return;
        case Int8Kernel::OneDnn: break;  // not a panel kernel (int8_gemm_with_onednn)
    }
}

// The same product with oneDNN's integer matmul in place of our panels: the activations
// quantized as for our kernels, oneDNN's exact int32 sums written into y's own storage,
// then turned into floats in place by the operations our kernels use (so the same bits).
void int8_gemm_with_onednn(const float* x, int64_t rows, int64_t in, const WeightRef& w, const float* b, int64_t out,
                           float* y, Activation activation, std::vector<uint8_t>& u, std::vector<ActivationScale>& as,
                           std::vector<int32_t>& weight_sum) {
    const int64_t kp = round_up(in, 4);
    if (u.size() < size_t(rows * kp)) u.resize(size_t(rows * kp));
    if (as.size() < size_t(rows)) as.resize(size_t(rows));
    if (weight_sum.size() < size_t(out)) weight_sum.resize(size_t(out));
    const int8_t* const q = static_cast<const int8_t*>(w.data);
    const int threads = rows * in * out < (1 << 18) ? 1 : omp_get_max_threads();
#pragma omp parallel num_threads(threads)
    {
#pragma omp for schedule(static) nowait
        for (int64_t r = 0; r < rows; ++r) as[size_t(r)] = quantize_activation_row(x + r * in, in, u.data() + r * kp);
#pragma omp for schedule(static)
        for (int64_t o = 0; o < out; ++o) {
            int32_t sum = 0;
            for (int64_t i = 0; i < in; ++i) sum += q[o * in + i];
            weight_sum[size_t(o)] = sum;
        }
    }
    static_assert(sizeof(int32_t) == sizeof(float));
    int32_t* const acc = reinterpret_cast<int32_t*>(y);
    onednn_u8s8_s32(u.data(), rows, in, kp, q, out, acc);
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t r = 0; r < rows; ++r) {
        const ActivationScale s = as[size_t(r)];
        for (int64_t o = 0; o < out; ++o) {
            const int64_t at = r * out + o;
            const float dot = float(acc[at] - s.zero * weight_sum[size_t(o)]);
            y[at] = std::fma(dot, s.scale * w.scales[o], b ? b[o] : 0.f);
        }
        if (activation == Activation::Gelu) gelu_in_place(y + r * out, out);
    }
}

// Scratch per calling thread (engine workers may share a backend): the quantized
// activations, and the packed weights (each OpenMP thread packs the panels it uses).
struct GemmScratch {
    std::vector<uint8_t> u;
    std::vector<ActivationScale> as;
    std::vector<int8_t> packed;
    std::vector<PanelInfo> info;
    std::vector<int32_t> weight_sum;  // oneDNN's path
};

GemmScratch& calling_thread_scratch() {
    thread_local GemmScratch scratch;
    return scratch;
}

}  // namespace

const char* int8_kernel_name(Int8Kernel k) {
    switch (k) {
        case Int8Kernel::Avx2: return "avx2";
        case Int8Kernel::AvxVnni: return "avx-vnni";
        case Int8Kernel::Avx512Vnni: return "avx512-vnni";
        case Int8Kernel::OneDnn: return "onednn";
    }
    return "?";
}

std::string int8_kernel_description(Int8Kernel k) {
    return k == Int8Kernel::OneDnn ? std::string("onednn: ") + onednn_description() : int8_kernel_name(k);
}

bool int8_kernel_supported(Int8Kernel k) {
    __builtin_cpu_init();
    switch (k) {
        case Int8Kernel::Avx2: return true;  // the engine is built for x86-64-v3
        case Int8Kernel::AvxVnni: {  // CPUID leaf 7 subleaf 1, EAX bit 4 (clang 14 has no name for it)
            unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
            return __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) && (eax & (1u << 4)) != 0;
        }
        case Int8Kernel::Avx512Vnni:
            return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                   __builtin_cpu_supports("avx512vnni");
        case Int8Kernel::OneDnn: return true;  // it picks its own code for the CPU
    }
    return false;
}

Int8Kernel int8_gemm_kernel() { return kernel_in_use().load(); }

void set_int8_gemm_kernel(Int8Kernel k) {
    check(int8_kernel_supported(k), std::string("this CPU cannot run the ") + int8_kernel_name(k) + " int8 kernel");
    kernel_in_use().store(k);
}

void release_int8_gemm_scratch() { calling_thread_scratch() = GemmScratch{}; }

size_t int8_gemm_scratch_bytes() {
    const GemmScratch& s = calling_thread_scratch();
    return s.u.capacity() + s.as.capacity() * sizeof(ActivationScale) + s.packed.capacity() +
           s.info.capacity() * sizeof(PanelInfo) + s.weight_sum.capacity() * sizeof(int32_t);
}

// Eight lanes at a time: the scalar loops were one chain of dependent min/max (the
// compiler may not reorder float operations), and the bart-base encoder at 4k tokens took
// 1.63 s with our AVX2 kernel and 1.00 s with oneDNN, against 1.57 s and 0.92 s now (best
// of 4, alternated). Every lane does what the scalar tail does, so the bits are the same
// (a NaN is skipped by min/max and stored as 0 by both; the scalar clamp used to convert
// it to uint8_t, which is undefined behaviour).
ActivationScale quantize_activation_row(const float* x, int64_t in, uint8_t* q) {
    __m256 lo8 = _mm256_setzero_ps(), hi8 = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 8 <= in; i += 8) {
        const __m256 v = _mm256_loadu_ps(x + i);
        lo8 = _mm256_min_ps(v, lo8);  // the second operand when v is NaN, as std::min(lo, v)
        hi8 = _mm256_max_ps(v, hi8);
    }
    float lo = horizontal_min(lo8), hi = horizontal_max(hi8);
    for (; i < in; ++i) {
        lo = std::min(lo, x[i]);
        hi = std::max(hi, x[i]);
    }
    ActivationScale s;
    if (hi - lo > 0.f) {
        s.scale = (hi - lo) / float(kActivationLevels);
        s.zero = int32_t(std::nearbyint(-lo / s.scale));
    }
    const float inv = 1.f / s.scale, zero = float(s.zero), top = float(kActivationLevels);
    const __m256 inv8 = _mm256_set1_ps(inv), zero8 = _mm256_set1_ps(zero), top8 = _mm256_set1_ps(top);
    auto level = [&](const float* p) {
        const __m256 scaled = _mm256_mul_ps(_mm256_loadu_ps(p), inv8);
        const __m256 r = _mm256_add_ps(_mm256_round_ps(scaled, _MM_FROUND_CUR_DIRECTION), zero8);
        // max(r, 0) is 0 for a NaN r, as the scalar clamp's conversion stores.
        return _mm256_cvttps_epi32(_mm256_min_ps(_mm256_max_ps(r, _mm256_setzero_ps()), top8));
    };
    i = 0;
    for (; i + 32 <= in; i += 32) {
        const __m256i ab = _mm256_packs_epi32(level(x + i), level(x + i + 8));
        const __m256i cd = _mm256_packs_epi32(level(x + i + 16), level(x + i + 24));
        // The packs work within 128-bit halves; the permute puts the 32 bytes back in order.
        const __m256i bytes = _mm256_permutevar8x32_epi32(_mm256_packus_epi16(ab, cd),
                                                          _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + i), bytes);
    }
    for (; i < in; ++i) {
        const float r = std::nearbyint(x[i] * inv) + zero;
        q[i] = r >= 0.f ? uint8_t(std::min(r, top)) : 0;  // a NaN (r >= 0 false) is stored as 0, as in the lanes
    }
    return s;
}

void int8_gemm(const float* x, int64_t rows, int64_t in, const WeightRef& w, const float* b, int64_t out, float* y,
               Activation activation) {
    check(w.format == WeightFormat::I8 && w.scales != nullptr, "int8_gemm needs int8 weights with their scales");
    check(rows >= 0 && in > 0 && out > 0, "int8_gemm: bad sizes");
    if (rows == 0) return;
    GemmScratch& scratch = calling_thread_scratch();
    const Int8Kernel kernel = int8_gemm_kernel();
    if (kernel == Int8Kernel::OneDnn)
        return int8_gemm_with_onednn(x, rows, in, w, b, out, y, activation, scratch.u, scratch.as, scratch.weight_sum);
    const int64_t kp = round_up(in, 4), panels = round_up(out, kPanelColumns) / kPanelColumns;
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
        const int64_t c0 = std::min(out, p0 * kPanelColumns), c1 = std::min(out, p1 * kPanelColumns);
        for (int64_t r0 = 0; r0 < rows; r0 += kRowBlock) {
            const PanelBlock block{ud + r0 * kp, kp, asd + r0, std::min(kRowBlock, rows - r0), pd, id, p0, p1, out,
                                   y + r0 * out};
            run_panels(kernel, block);
            // This thread's columns of the block (64 rows x its share of the outputs: 384 KB
            // for bart-base's fc1 on two threads) are still in its L2.
            if (activation == Activation::Gelu)
                for (int64_t r = r0; r < r0 + block.rows; ++r) gelu_in_place(y + r * out + c0, c1 - c0);
        }
    }
}

}  // namespace precis
