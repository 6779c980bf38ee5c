#include "kernels/cuda_check.h"

#include <atomic>
#include <filesystem>

#include "kernels/device_buffer.h"

namespace precis::cuda {

namespace {
std::string where(const char* file, int line) {
    return std::filesystem::path(file).filename().string() + ":" + std::to_string(line);
}
}  // namespace

void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
    const bool oom = err == cudaErrorMemoryAllocation;
    cudaGetLastError();  // clear a non-sticky error so the device stays usable for the next run
    throw DeviceError(std::string("CUDA error in ") + call + " (" + where(file, line) + "): " + cudaGetErrorString(err),
                      oom);
}

void throw_cublas_error(cublasStatus_t st, const char* call, const char* file, int line) {
    const bool oom = st == CUBLAS_STATUS_ALLOC_FAILED;
    throw DeviceError(std::string("cuBLAS error in ") + call + " (" + where(file, line) +
                          "): " + cublasGetStatusString(st),
                      oom);
}

namespace {
std::atomic<int64_t> g_bytes_now{0}, g_bytes_peak{0};
}  // namespace

uint64_t device_bytes_now() { return uint64_t(g_bytes_now.load()); }
uint64_t device_bytes_peak() { return uint64_t(g_bytes_peak.load()); }
void reset_device_bytes_peak() { g_bytes_peak.store(g_bytes_now.load()); }
void count_device_bytes(int64_t delta) {
    const int64_t now = g_bytes_now.fetch_add(delta) + delta;
    int64_t peak = g_bytes_peak.load();
    while (now > peak && !g_bytes_peak.compare_exchange_weak(peak, now)) {
    }
}

}  // namespace precis::cuda
