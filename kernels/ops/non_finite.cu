#include "kernels/ops/non_finite.h"

#include <algorithm>
#include <string>

#include "engine/core/error.h"
#include "kernels/cuda_check.h"
#include "kernels/ops/element_convert.cuh"

namespace precis::cuda {

namespace {

constexpr int kThreads = 256;

template <class T>
__global__ void count_non_finite_kernel(const T* __restrict__ x, int64_t n, int* __restrict__ count) {
    int mine = 0;
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
        mine += !isfinite(to_f(x[i]));
    for (int o = 16; o > 0; o >>= 1) mine += __shfl_xor_sync(0xffffffffu, mine, o);
    if ((threadIdx.x & 31) == 0 && mine) atomicAdd(count, mine);
}

template <class T>
void launch(const void* x, int64_t n, int* count, cudaStream_t stream) {
    // Enough blocks to read at full bandwidth; each thread strides over the rest.
    const int64_t blocks = std::min<int64_t>((n + kThreads - 1) / kThreads, 4096);
    count_non_finite_kernel<T><<<unsigned(blocks), kThreads, 0, stream>>>(static_cast<const T*>(x), n, count);
    PRECIS_CUDA_LAUNCHED();
}

}  // namespace

void count_non_finite(Precision p, const void* x, int64_t n, int* count, cudaStream_t stream) {
    check(n >= 0, "count_non_finite: n must not be negative (got " + std::to_string(n) + ")");
    check(count != nullptr, "count_non_finite: null count");
    check(n == 0 || x != nullptr, "count_non_finite: null values");
    check(p == Precision::F32 || p == Precision::F16 || p == Precision::BF16,
          "count_non_finite: unknown precision " + std::to_string(int(p)));
    if (n == 0) return;
    switch (p) {
        case Precision::F32: launch<float>(x, n, count, stream); break;
        case Precision::F16: launch<__half>(x, n, count, stream); break;
        case Precision::BF16: launch<__nv_bfloat16>(x, n, count, stream); break;
    }
}

}  // namespace precis::cuda
