#pragma once
// The operations the BART encoder and decoder are made of, behind one interface, so
// a backend (CPU now, CUDA in kernels/) can provide each of them. Pointers are to
// memory the backend owns or can read (host memory for the CPU backend). All shapes
// are row-major; "rows" is the number of token vectors processed at once.
#include <cstdint>
#include <memory>
#include <string>

namespace precis {

// What a product applies to its output as it writes it.
enum class Activation : uint8_t { None, Gelu };

// How a linear layer's weight matrix W[out, in] is stored. I8: symmetric int8 with one
// float scale per output row (W[o, i] = q[o, i] * scales[o]); F16: IEEE half, widened to
// float as it is read. Activations are float32 in every format.
enum class WeightFormat : uint8_t { F32, I8, F16 };

struct WeightRef {
    WeightFormat format = WeightFormat::F32;
    const void* data = nullptr;     // float / int8_t / uint16_t, [out, in] row-major
    const float* scales = nullptr;  // I8 only: [out]
};

class Backend {
public:
    virtual ~Backend() = default;
    virtual std::string name() const = 0;  // "cpu", "cuda:0 (NVIDIA H100)", ...

    // y[rows, out] = x[rows, in] * W[out, in]^T + b[out] (b may be null).
    virtual void linear(const float* x, int64_t rows, int64_t in, const float* w, const float* b,
                        int64_t out, float* y) = 0;
    // The same with W in any WeightFormat. The default handles F32 only.
    virtual void linear(const float* x, int64_t rows, int64_t in, const WeightRef& w, const float* b, int64_t out,
                        float* y);
    // Whether linear() on `rows` rows gives each row the bits that row gets in a product of
    // more rows, so that inputs may share products without changing each other's results.
    // Products of a few rows take other kernels (the decoding GEMV, the step product) whose
    // sums run in another order. The default: no.
    virtual bool row_exact_linear(int64_t /*rows*/, int64_t /*in*/, int64_t /*out*/, WeightFormat /*format*/) const {
        return false;
    }
    // linear(), then gelu() on y: a backend may apply GELU while y is still in cache. The
    // default makes the two calls.
    virtual void linear_gelu(const float* x, int64_t rows, int64_t in, const WeightRef& w, const float* b,
                             int64_t out, float* y);
    // x[rows, dim] = LayerNorm(x + delta) * gamma + beta (delta may be null), eps 1e-5.
    virtual void add_layer_norm(float* x, const float* delta, int64_t rows, int64_t dim,
                                const float* gamma, const float* beta, float eps) = 0;
    // x = gelu_erf(x), in place.
    virtual void gelu(float* x, int64_t n) = 0;
    // out[rows, dim] = table[ids[r]] * scale + positions[pos0 + r] (positions may be null).
    virtual void embed(const int64_t* ids, int64_t rows, const float* table, int64_t vocab, int64_t dim,
                       float scale, const float* positions, int64_t pos0, float* out) = 0;
    // The same with the table in any WeightFormat (int8 / fp16 embeddings are the tied LM
    // head's quantized matrix). The default handles F32 only.
    virtual void embed(const int64_t* ids, int64_t rows, const WeightRef& table, int64_t vocab, int64_t dim,
                       float scale, const float* positions, int64_t pos0, float* out);
    // y[n] += bias[n]
    virtual void add_bias(float* y, const float* bias, int64_t rows, int64_t n) = 0;
    // Frees the working memory the calling thread's products grew to (the encoder's, sized
    // by the longest input), so that decoding does not carry it; the next product regrows it.
    virtual void release_scratch() {}

    // A backend that holds whole runs on a device returns its runner (model_runner.h);
    // the CPU backend has none. After runner_failed() a backend runs on its CPU ops only.
    virtual class ModelRunner* runner() { return nullptr; }
    virtual void runner_failed(const std::string& /*why*/) {}
};

// The CPU backend (OpenBLAS for products, OpenMP over rows for the rest).
std::unique_ptr<Backend> make_cpu_backend();

// Number of threads the CPU backend uses (OpenMP and BLAS); 0 = all cores.
void set_cpu_threads(int n);
int cpu_threads();

}  // namespace precis
