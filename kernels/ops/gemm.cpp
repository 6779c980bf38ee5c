// Gemm (gemm.h) through cublasGemmEx. Row-major y[rows, out] = x[rows, in] W[out, in]^T is,
// read column-major, C[out, rows] = W^T(op of the [in, out] column-major view of W) * X[in, rows]:
// no transposed copies are needed of the checkpoint's layout.
#include "kernels/ops/gemm.h"

#include <climits>
#include <cstdlib>
#include <string>

#include "engine/core/error.h"
#include "kernels/cuda_check.h"

namespace precis::cuda {

namespace {

// Sized once so that no product allocates (cuBLAS would otherwise take from its own pool on
// the first product of each shape, outside our memory accounting and not graph-capturable).
constexpr size_t kWorkspaceBytes = size_t(32) << 20;

bool known(Precision p) { return p == Precision::F32 || p == Precision::F16 || p == Precision::BF16; }

}  // namespace

cudaDataType_t cublas_data_type(Precision p) {
    switch (p) {
        case Precision::F32: return CUDA_R_32F;
        case Precision::F16: return CUDA_R_16F;
        case Precision::BF16: return CUDA_R_16BF;
    }
    throw Error("linear: unknown precision " + std::to_string(int(p)));
}

Gemm::Gemm(cudaStream_t stream) : stream_(stream) {
    PRECIS_CUBLAS_CHECK(cublasCreate(&handle_));
    try {
        PRECIS_CUBLAS_CHECK(cublasSetStream(handle_, stream_));
        // Default math: no TF32 for float32 (the fp32 path must match the CPU to 1e-6);
        // fp16/bf16 inputs still take the tensor cores with float32 accumulation.
        PRECIS_CUBLAS_CHECK(cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH));
        workspace_.resize(kWorkspaceBytes);
        PRECIS_CUBLAS_CHECK(cublasSetWorkspace(handle_, workspace_.get(), workspace_.bytes()));
        const char* env = std::getenv("PRECIS_CUDA_EPILOGUES");
        epilogues_ = !(env && std::string(env) == "0");
    } catch (...) {
        cublasDestroy(handle_);  // the destructor does not run for a half-built object
        handle_ = nullptr;
        throw;
    }
}

Gemm::~Gemm() {
    // No throwing from a destructor; a failure here leaves nothing the caller could act on.
    epilogue_.reset();
    if (handle_) cublasDestroy(handle_);
}

void Gemm::check_arguments(Precision p, Precision out_p, int64_t rows, int64_t in, int64_t out, const void* x,
                           const void* w, const void* y) const {
    check(known(p) && known(out_p), "linear: unknown precision");
    check(rows >= 0, "linear: rows must not be negative (got " + std::to_string(rows) + ")");
    check(in > 0 && out > 0,
          "linear: in and out must be positive (got in " + std::to_string(in) + ", out " + std::to_string(out) + ")");
    // cuBLAS takes int dimensions and leading dimensions.
    check(rows <= INT_MAX && in <= INT_MAX && out <= INT_MAX, "linear: a dimension exceeds the int range of cuBLAS");
    // cublasGemmEx with float32 compute takes a float32 output for any input type, or the
    // input type itself; fp32 inputs with a 16-bit output is not one of its combinations.
    check(out_p == p || out_p == Precision::F32,
          std::string("linear: output precision ") + precision_name(out_p) + " is not supported for " +
              precision_name(p) + " inputs (use the input precision or fp32)");
    if (rows == 0) return;
    check(x && w && y, "linear: x, W and y must not be null");
    check(handle_ != nullptr, "linear: the cuBLAS handle was not created");
}

void Gemm::linear(Precision p, const void* x, int64_t rows, int64_t in, const void* w, int64_t out, void* y,
                  Precision out_p) {
    check_arguments(p, out_p, rows, in, out, x, w, y);
    if (rows == 0) return;
    const float alpha = 1.f, beta = 0.f;
    const int m = int(out), n = int(rows), k = int(in);
    PRECIS_CUBLAS_CHECK(cublasGemmEx(handle_, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, w, cublas_data_type(p), k,
                                     x, cublas_data_type(p), k, &beta, y, cublas_data_type(out_p), m,
                                     CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

}  // namespace precis::cuda
