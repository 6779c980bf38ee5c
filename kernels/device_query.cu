#include <cuda_runtime.h>

#include "kernels/device_query.h"

namespace precis::cuda {

bool compiled_with_cuda() { return true; }

std::vector<DeviceInfo> list_devices(std::string* why) {
    std::vector<DeviceInfo> out;
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        if (why) *why = cudaGetErrorString(err);
        cudaGetLastError();  // clear the sticky error so later calls start clean
        return out;
    }
    for (int i = 0; i < count; ++i) {
        cudaDeviceProp prop{};
        if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
        DeviceInfo d;
        d.index = i;
        d.name = prop.name;
        d.compute_major = prop.major;
        d.compute_minor = prop.minor;
        d.total_bytes = prop.totalGlobalMem;
        size_t free_b = 0, total_b = 0;
        if (cudaSetDevice(i) == cudaSuccess && cudaMemGetInfo(&free_b, &total_b) == cudaSuccess)
            d.free_bytes = free_b;
        out.push_back(d);
    }
    if (out.empty() && why) *why = "no CUDA device found";
    return out;
}

}  // namespace precis::cuda
