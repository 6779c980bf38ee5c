#include <cuda_runtime.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "kernels/device_query.h"

namespace precis::cuda {

namespace {

// Whether the PCI bus has an NVIDIA device (vendor 0x10de). Without one, CUDA's own
// reason ("CUDA driver version is insufficient for CUDA runtime version", from the stub
// driver library) misleads: the plain truth is that there is no GPU. When the bus cannot
// be read (no sysfs), we assume there may be one and keep CUDA's reason.
bool nvidia_hardware_present() {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::directory_iterator it("/sys/bus/pci/devices", ec), end;
    if (ec) return true;
    for (; it != end; it.increment(ec)) {
        if (ec) return true;
        std::ifstream vendor(it->path() / "vendor");
        std::string id;
        if (vendor >> id && id == "0x10de") return true;
    }
    return false;
}

}  // namespace

bool compiled_with_cuda() { return true; }

std::vector<DeviceInfo> list_devices(std::string* why) {
    std::vector<DeviceInfo> out;
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        if (why) *why = nvidia_hardware_present() ? cudaGetErrorString(err) : "no NVIDIA GPU found";
        cudaGetLastError();  // clear the sticky error so later calls start clean
        return out;
    }
    int driver = 0;
    if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = 0;
    for (int i = 0; i < count; ++i) {
        cudaDeviceProp prop{};
        if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
        DeviceInfo d;
        d.index = i;
        d.name = prop.name;
        d.compute_major = prop.major;
        d.compute_minor = prop.minor;
        d.total_bytes = prop.totalGlobalMem;
        d.driver_version = driver;
        size_t free_b = 0, total_b = 0;
        if (cudaSetDevice(i) == cudaSuccess && cudaMemGetInfo(&free_b, &total_b) == cudaSuccess)
            d.free_bytes = free_b;
        out.push_back(d);
    }
    if (out.empty() && why) *why = "no CUDA device found";
    return out;
}

namespace {

// One attribute of the current device; 0 without one. The runtime answers these from what it
// learned of the device at start-up, so asking per launch costs next to nothing.
int current_attribute(cudaDeviceAttr what) {
    int device = 0, v = 0;
    if (cudaGetDevice(&device) != cudaSuccess || cudaDeviceGetAttribute(&v, what, device) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return v;
}

}  // namespace

int current_device_capability() {
    return current_attribute(cudaDevAttrComputeCapabilityMajor) * 10 +
           current_attribute(cudaDevAttrComputeCapabilityMinor);
}

int current_device_shared_memory_limit() { return current_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin); }

}  // namespace precis::cuda
