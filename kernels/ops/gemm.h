#pragma once
// Products through cuBLAS: y = x W^T with row-major x [rows, in], W [out, in] (the layout
// checkpoints store), float32 accumulation in every precision (fp16/bf16 on tensor cores).
// One Gemm per stream; it owns the cuBLAS handle and one workspace sized at creation, so
// no product allocates.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/device_buffer.h"
#include "kernels/ops/precision.h"

namespace precis::cuda {

class Gemm {
public:
    explicit Gemm(cudaStream_t stream);
    ~Gemm();
    Gemm(const Gemm&) = delete;
    Gemm& operator=(const Gemm&) = delete;

    // y[rows, out] = x[rows, in] * W[out, in]^T. x and W in precision p; y in precision out_p
    // (p, or F32 for logits that the search reads in float32).
    void linear(Precision p, const void* x, int64_t rows, int64_t in, const void* w, int64_t out, void* y,
                Precision out_p);
    void linear(Precision p, const void* x, int64_t rows, int64_t in, const void* w, int64_t out, void* y) {
        linear(p, x, rows, in, w, out, y, p);
    }

    cudaStream_t stream() const { return stream_; }

private:
    cudaStream_t stream_;
    cublasHandle_t handle_ = nullptr;
    DeviceBuffer workspace_;
};

}  // namespace precis::cuda
