// CPU implementation of the Backend operations.
#include <cblas.h>
#include <malloc.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/backend/backend.h"
#include "engine/backend/fp32_step_gemm.h"
#include "engine/backend/gelu.h"
#include "engine/backend/int8_gemm.h"
#include "engine/backend/sgemm.h"
#include "engine/backend/lowp_linear.h"
#include "engine/core/error.h"
#include "engine/core/worker_team.h"

namespace precis {

namespace {

int g_threads = 0;

// y[rows, c0:c1] = x * W[c0:c1]^T + b[c0:c1], single-threaded BLAS; y has row stride `out`.
void linear_block(const float* x, int64_t rows, int64_t in, const float* w, const float* b, int64_t out, int64_t c0,
                  int64_t c1, float* y) {
    const int64_t n = c1 - c0;
    if (rows <= 0 || n <= 0) return;
    if (b)
        for (int64_t r = 0; r < rows; ++r) std::copy(b + c0, b + c1, y + r * out + c0);
    if (rows == 1) {
        cblas_sgemv(CblasRowMajor, CblasNoTrans, int(n), int(in), 1.f, w + c0 * in, int(in), x, 1, b ? 1.f : 0.f,
                    y + c0, 1);
    } else {
        sgemm(true, rows, n, in, 1.f, x, in, w + c0 * in, in, b ? 1.f : 0.f, y + c0, out);
    }
}

// PRECIS_FP32_FEW_ROWS=sgemm keeps OpenBLAS (sgemv, sgemm) for a decoding step's rows (for
// measuring against it; the streamed product and the step product are the default).
bool few_rows_streamed() {
    static const bool streamed = [] {
        const char* e = std::getenv("PRECIS_FP32_FEW_ROWS");
        return !(e && std::string(e) == "sgemm");
    }();
    return streamed;
}

// Threads for a float32 product: small ones are not worth waking the others for.
int product_threads(int64_t rows, int64_t in, int64_t out) {
    return (rows * in * out < (1 << 16)) ? 1 : omp_get_max_threads();
}

// fp16 weights widened for a many-row product: one buffer per calling thread (engine
// workers may share a backend).
std::vector<float>& widened_weights() {
    thread_local std::vector<float> widened;
    return widened;
}

// Layer norm of N consecutive rows. Two-pass mean/variance in float32, as PyTorch's CPU
// kernel is close to; each row's sums run over its elements in order, so a row gets the
// same bits in any group. Why groups: one row's sum is a chain of dependent additions (the
// compiler may not reorder them) at about a third of the adds the core can start; eight
// rows' chains side by side keep it busy (a 64-row decoder step's norms ran on one thread).
constexpr int64_t kNormRows = 8;
template <int64_t N>
void layer_norm_rows(float* x, int64_t dim, const float* gamma, const float* beta, float eps) {
    float mean[N] = {}, var[N] = {};
    for (int64_t i = 0; i < dim; ++i)
        for (int64_t j = 0; j < N; ++j) mean[j] += x[j * dim + i];
    for (int64_t j = 0; j < N; ++j) mean[j] /= float(dim);
    for (int64_t i = 0; i < dim; ++i)
        for (int64_t j = 0; j < N; ++j) {
            const float d = x[j * dim + i] - mean[j];
            var[j] += d * d;
        }
    for (int64_t j = 0; j < N; ++j) {
        float* xr = x + j * dim;
        const float inv = 1.f / std::sqrt(var[j] / float(dim) + eps);
        for (int64_t i = 0; i < dim; ++i) xr[i] = (xr[i] - mean[j]) * inv * gamma[i] + beta[i];
    }
}

class CpuBackend final : public Backend {
public:
    using Backend::embed;
    using Backend::linear;
    std::string name() const override { return "cpu"; }

    // OpenBLAS runs single-threaded; the work is split over OpenMP threads here, so one
    // thread pool serves every op (two pools spinning against each other on two cores
    // cost a factor of three). Large row counts split by rows, small ones (decoder
    // steps) by output features, so each thread streams its own slice of the weights.
    void linear(const float* x, int64_t rows, int64_t in, const float* w, const float* b, int64_t out,
                float* y) override {
        check(rows >= 0 && in > 0 && out > 0, "linear: bad sizes");
        if (rows == 0) return;
        // A decoding step's few rows (one, or a beam search's): each weight row streamed once
        // into every row (lowp_linear.h). Faster than OpenBLAS here for four rows (sgemm packs
        // the whole matrix) and for one (its sgemv ran 1.3x slower on this machine's AVX-512).
        if (few_rows_streamed()) {
            const bool step_gemm = fp32_zmm_kernels();
            if (rows <= (step_gemm ? kLowpGemvMaxRows : kFp32GemvMaxRows))
                return lowp_gemv(x, rows, in, WeightRef{WeightFormat::F32, w, nullptr}, b, out, y);
            // A step of many documents or beams: fp32_step_gemm.h.
            if (step_gemm && rows <= kFp32StepGemmMaxRows) return fp32_step_gemm(x, rows, in, w, b, out, y);
        }
        const int threads = product_threads(rows, in, out);
        // Decoder steps (few rows): dozens of short products back to back, split by output
        // features on the worker team (worker_team.h).
        if (rows < 32 * threads)
            return run_on_team(threads, [&](int t, int nt) {
                const auto [c0, c1] = column_part(out, t, nt);
                linear_block(x, rows, in, w, b, out, c0, c1, y);
            });
#pragma omp parallel num_threads(threads)
        {
            const int t = omp_get_thread_num(), nt = omp_get_num_threads();
            const int64_t r0 = rows * t / nt, r1 = rows * (t + 1) / nt;
            linear_block(x + r0 * in, r1 - r0, in, w, b, out, 0, out, y + r0 * out);
        }
    }

    // Where linear() above ends in sgemm on every thread's share of rows (and fp16 weights,
    // widened, take that path too): oneDNN's sgemm gives a row the same bits from 16 rows a
    // call on, wherever the row sits (measured on bart-base's shapes and tiny ones; below 16
    // rows it takes other kernels); OpenBLAS's bits change with the rows beside. int8
    // products of more than the GEMV's rows quantize each row on its own and sum exactly.
    bool row_exact_linear(int64_t rows, int64_t in, int64_t out, WeightFormat format) const override {
        if (format == WeightFormat::I8) return rows > kLowpGemvMaxRows;
        if (few_rows_streamed() && rows <= (fp32_zmm_kernels() ? kFp32StepGemmMaxRows : kFp32GemvMaxRows))
            return false;
        const int threads = product_threads(rows, in, out);
        return threads > 1 && rows >= 32 * threads && fp32_gemm_in_use() == Fp32Gemm::OneDnn;
    }

    // int8 / fp16 weights: the weight-only GEMV for a few rows (decoding is bound by the
    // bytes of weights read); for many rows int8 runs in integers (int8_gemm.h) and fp16
    // is widened to fp32 once and takes the fp32 path (widening costs out*in against
    // 2*rows*out*in for the product, see lowp_linear.h).
    void linear(const float* x, int64_t rows, int64_t in, const WeightRef& w, const float* b, int64_t out,
                float* y) override {
        check(rows >= 0 && in > 0 && out > 0, "linear: bad sizes");
        if (rows == 0) return;
        if (w.format == WeightFormat::F32) return linear(x, rows, in, static_cast<const float*>(w.data), b, out, y);
        if (rows <= kLowpGemvMaxRows) return lowp_gemv(x, rows, in, w, b, out, y);
        if (w.format == WeightFormat::I8) return int8_gemm(x, rows, in, w, b, out, y);
        std::vector<float>& widened = widened_weights();
        if (widened.size() < size_t(out * in)) widened.resize(size_t(out * in));
        widen_weight(w, out, in, widened.data());
        linear(x, rows, in, widened.data(), b, out, y);
    }

    // int8 products of many rows apply GELU as they write each block of their output, while
    // it is in cache: the separate pass read and wrote the whole hidden layer once more
    // (12.6 MB per 1,024 rows of bart-base).
    void linear_gelu(const float* x, int64_t rows, int64_t in, const WeightRef& w, const float* b, int64_t out,
                     float* y) override {
        if (w.format == WeightFormat::I8 && rows > kLowpGemvMaxRows)
            return int8_gemm(x, rows, in, w, b, out, y, Activation::Gelu);
        Backend::linear_gelu(x, rows, in, w, b, out, y);
    }

    void add_layer_norm(float* x, const float* delta, int64_t rows, int64_t dim, const float* gamma,
                        const float* beta, float eps) override {
        const int64_t groups = (rows + kNormRows - 1) / kNormRows;
        // A few rows (a decoder step's beams) are not worth waking threads for.
#pragma omp parallel for if (rows * dim > (1 << 16))
        for (int64_t g = 0; g < groups; ++g) {
            const int64_t r0 = g * kNormRows, n = std::min(kNormRows, rows - r0);
            if (delta)
                for (int64_t r = r0; r < r0 + n; ++r)
                    for (int64_t i = 0; i < dim; ++i) x[r * dim + i] += delta[r * dim + i];
            if (n == kNormRows)
                layer_norm_rows<kNormRows>(x + r0 * dim, dim, gamma, beta, eps);
            else
                for (int64_t r = r0; r < r0 + n; ++r) layer_norm_rows<1>(x + r * dim, dim, gamma, beta, eps);
        }
    }

    void gelu(float* x, int64_t n) override {
        constexpr int64_t kChunk = 1 << 14;
#pragma omp parallel for if (n > 4 * kChunk) schedule(static)
        for (int64_t c = 0; c < n; c += kChunk) gelu_in_place(x + c, std::min(kChunk, n - c));
    }

    void embed(const int64_t* ids, int64_t rows, const float* table, int64_t vocab, int64_t dim, float scale,
               const float* positions, int64_t pos0, float* out) override {
        for (int64_t r = 0; r < rows; ++r) {
            check(ids[r] >= 0 && ids[r] < vocab,
                  "token id " + std::to_string(ids[r]) + " is outside the vocabulary of " + std::to_string(vocab));
        }
#pragma omp parallel for if (rows > 64)
        for (int64_t r = 0; r < rows; ++r) {
            const float* e = table + ids[r] * dim;
            float* o = out + r * dim;
            const float* p = positions ? positions + (pos0 + r) * dim : nullptr;
            for (int64_t i = 0; i < dim; ++i) o[i] = e[i] * scale + (p ? p[i] : 0.f);
        }
    }

    // Each token's row widened to float32 (the same rounding the LM head's GEMV applies),
    // then scaled and summed with its position as in the float32 version.
    void embed(const int64_t* ids, int64_t rows, const WeightRef& table, int64_t vocab, int64_t dim, float scale,
               const float* positions, int64_t pos0, float* out) override {
        if (table.format == WeightFormat::F32)
            return embed(ids, rows, static_cast<const float*>(table.data), vocab, dim, scale, positions, pos0, out);
        for (int64_t r = 0; r < rows; ++r) {
            check(ids[r] >= 0 && ids[r] < vocab,
                  "token id " + std::to_string(ids[r]) + " is outside the vocabulary of " + std::to_string(vocab));
        }
#pragma omp parallel for if (rows > 64)
        for (int64_t r = 0; r < rows; ++r) {
            float* o = out + r * dim;
            widen_weight_rows(table, dim, ids[r], ids[r] + 1, o);
            const float* p = positions ? positions + (pos0 + r) * dim : nullptr;
            for (int64_t i = 0; i < dim; ++i) o[i] = o[i] * scale + (p ? p[i] : 0.f);
        }
    }

    void release_scratch() override {
        release_int8_gemm_scratch();
        std::vector<float>().swap(widened_weights());
    }

    void add_bias(float* y, const float* bias, int64_t rows, int64_t n) override {
        for (int64_t r = 0; r < rows; ++r)
            for (int64_t i = 0; i < n; ++i) y[r * n + i] += bias[i];
    }
};

}  // namespace

void Backend::linear(const float* x, int64_t rows, int64_t in, const WeightRef& w, const float* b, int64_t out,
                     float* y) {
    check(w.format == WeightFormat::F32, "backend " + name() + " has no kernels for int8 or fp16 weights");
    linear(x, rows, in, static_cast<const float*>(w.data), b, out, y);
}

void Backend::linear_gelu(const float* x, int64_t rows, int64_t in, const WeightRef& w, const float* b, int64_t out,
                          float* y) {
    linear(x, rows, in, w, b, out, y);
    gelu(y, rows * out);
}

void Backend::embed(const int64_t* ids, int64_t rows, const WeightRef& table, int64_t vocab, int64_t dim, float scale,
                    const float* positions, int64_t pos0, float* out) {
    check(table.format == WeightFormat::F32, "backend " + name() + " has no int8 or fp16 embeddings");
    embed(ids, rows, static_cast<const float*>(table.data), vocab, dim, scale, positions, pos0, out);
}

std::unique_ptr<Backend> make_cpu_backend() {
    static std::once_flag once;
    std::call_once(once, [] {
        openblas_set_num_threads(1);  // see CpuBackend::linear
        // Where freed memory goes. Buffers of 8 MB and more (a long input's activations,
        // its cross-attention keys and values) are mapped on their own, so freeing one
        // returns it at once: glibc's adaptive threshold would keep them in the heap and
        // inflate the peak. Smaller ones stay in the heap, and up to 16 MB freed at its top
        // stays resident: oneDNN's sgemm allocates 1.5-5.3 MB of packing space on every
        // call and frees it at the end, and mapped afresh each time (the threshold was
        // 1 MB until 2026-11-29) those pages were faulted in and zeroed on every product.
        // Measured on a 2-core AVX-512 VM, 32 documents of 128-1,024 tokens, bart-base fp32
        // beam 4, alternated with the 1 MB threshold: 670-690k page faults -> 36-40k, the
        // encoding 6.17-6.34 s -> 5.47-5.65 s (2.5 TFLOP: 88 % of the VM's FMA ceiling),
        // the batch 0.91-0.98x the time; peak memory +1-3 %. int8 is within noise.
        mallopt(M_MMAP_THRESHOLD, 8 << 20);
        mallopt(M_TRIM_THRESHOLD, 16 << 20);
    });
    return std::make_unique<CpuBackend>();
}

void set_cpu_threads(int n) {
    g_threads = n > 0 ? n : int(std::max(1u, std::thread::hardware_concurrency()));
    omp_set_num_threads(g_threads);
    openblas_set_num_threads(1);  // see CpuBackend::linear
}

int cpu_threads() { return g_threads > 0 ? g_threads : omp_get_max_threads(); }

}  // namespace precis
