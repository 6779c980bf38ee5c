#pragma once
// Every CUDA and cuBLAS call of the backend goes through these checks: a failure becomes
// a precis::cuda::DeviceError naming the call, and out-of-memory is told apart so the
// caller can fall back to the CPU and say so.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <string>

#include "engine/core/error.h"

namespace precis::cuda {

class DeviceError : public Error {
public:
    DeviceError(const std::string& what, bool out_of_memory) : Error(what), out_of_memory_(out_of_memory) {}
    bool out_of_memory() const { return out_of_memory_; }

private:
    bool out_of_memory_;
};

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line);
[[noreturn]] void throw_cublas_error(cublasStatus_t st, const char* call, const char* file, int line);

}  // namespace precis::cuda

#define PRECIS_CUDA_CHECK(call)                                                               \
    do {                                                                                      \
        cudaError_t precis_err_ = (call);                                                     \
        if (precis_err_ != cudaSuccess)                                                       \
            ::precis::cuda::throw_cuda_error(precis_err_, #call, __FILE__, __LINE__);         \
    } while (0)

#define PRECIS_CUBLAS_CHECK(call)                                                             \
    do {                                                                                      \
        cublasStatus_t precis_st_ = (call);                                                   \
        if (precis_st_ != CUBLAS_STATUS_SUCCESS)                                              \
            ::precis::cuda::throw_cublas_error(precis_st_, #call, __FILE__, __LINE__);        \
    } while (0)

// After a kernel launch: launch-configuration errors surface here, not at the next sync.
#define PRECIS_CUDA_LAUNCHED() PRECIS_CUDA_CHECK(cudaGetLastError())
