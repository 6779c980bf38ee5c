#include <cuda_runtime.h>

#include <atomic>
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

// One attribute of the current device, asked once per device.
template <int Tag>
int cached_device_value(int (*ask)(int device)) {
    constexpr int kMaxDevices = 64;
    static std::atomic<int> known[kMaxDevices] = {};  // 0: not asked yet
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess || device < 0) {
        cudaGetLastError();
        return 0;
    }
    if (device < kMaxDevices)
        if (const int v = known[device].load(std::memory_order_relaxed)) return v;
    const int v = ask(device);
    if (device < kMaxDevices) known[device].store(v, std::memory_order_relaxed);
    return v;
}

int attribute(cudaDeviceAttr what, int device) {
    int v = 0;
    if (cudaDeviceGetAttribute(&v, what, device) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return v;
}

}  // namespace

int current_device_capability() {
    return cached_device_value<0>([](int device) {
        return attribute(cudaDevAttrComputeCapabilityMajor, device) * 10 +
               attribute(cudaDevAttrComputeCapabilityMinor, device);
    });
}

int current_device_shared_memory_limit() {
    return cached_device_value<1>(
        [](int device) { return attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, device); });
}

}  // namespace precis::cuda
