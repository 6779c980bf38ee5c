#pragma once
// Products through cuBLAS: y = x W^T with row-major x [rows, in], W [out, in] (the layout
// checkpoints store), float32 accumulation in every precision (fp16/bf16 on tensor cores).
// One Gemm per stream; it owns the cuBLAS handle and one workspace sized at creation, so
// no product allocates.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>

#include "kernels/device_buffer.h"
#include "kernels/ops/precision.h"

namespace precis::cuda {

// cuBLAS's name for a storage precision.
cudaDataType_t cublas_data_type(Precision p);

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

    // y = x W^T + bias, bias float32 [out] added to each row: one cuBLASLt product whose
    // epilogue adds the bias in float32 before y is rounded to p, instead of a product and a
    // pass of its own over y (gemm_epilogue.cpp). stored_bias (optional, for fp16/bf16): the
    // same bias in precision p, which the epilogue reads where it takes no float32 bias beside
    // a 16-bit output. Where cuBLASLt is missing or refuses the shape, or
    // PRECIS_CUDA_EPILOGUES=0, the product and the bias kernel.
    void linear_bias(Precision p, const void* x, int64_t rows, int64_t in, const void* w, int64_t out,
                     const float* bias, void* y, const void* stored_bias = nullptr);
    // Whether linear_bias ran its last product with the epilogue, and with stored_bias (tests).
    bool last_used_epilogue() const { return last_used_epilogue_; }
    bool last_used_stored_bias() const { return last_used_stored_bias_; }

    cudaStream_t stream() const { return stream_; }

private:
    struct EpiloguePlans;  // cuBLASLt's handle and one plan per shape (gemm_epilogue.cpp)
    struct EpiloguePlansDeleter {
        void operator()(EpiloguePlans* plans) const;
    };
    // Throws precis::Error for what neither cuBLAS nor cuBLASLt could take (null pointers only
    // when rows > 0).
    void check_arguments(Precision p, Precision out_p, int64_t rows, int64_t in, int64_t out, const void* x,
                         const void* w, const void* y) const;
    bool linear_bias_epilogue(Precision p, const void* x, int64_t rows, int64_t in, const void* w, int64_t out,
                              const float* bias, const void* stored_bias, void* y);

    cudaStream_t stream_;
    cublasHandle_t handle_ = nullptr;
    DeviceBuffer workspace_;
    std::unique_ptr<EpiloguePlans, EpiloguePlansDeleter> epilogue_;
    bool epilogues_ = true;  // PRECIS_CUDA_EPILOGUES != 0 and cuBLASLt usable so far
    bool last_used_epilogue_ = false;
    bool last_used_stored_bias_ = false;
};

}  // namespace precis::cuda
