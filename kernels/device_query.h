#pragma once
// What CUDA devices this process can use. Plain C++ header: callers need no CUDA
// headers, and on a build without CUDA (or a machine without a GPU) the list is empty.
#include <cstdint>
#include <string>
#include <vector>

namespace precis::cuda {

struct DeviceInfo {
    int index = 0;
    std::string name;
    int compute_major = 0, compute_minor = 0;
    uint64_t total_bytes = 0, free_bytes = 0;
    int driver_version = 0;  // the CUDA version the driver supports (13000 = 13.0); 0: unknown
};

// True when this binary was built with the CUDA backend.
bool compiled_with_cuda();
// Devices visible now; empty without a driver or a GPU. `why` (optional) receives the
// reason when the list is empty (for example "no CUDA driver found").
std::vector<DeviceInfo> list_devices(std::string* why = nullptr);
// The current device's compute capability as 10 * major + minor; 0 without one. Kernels
// that need a newer card than the oldest this build runs on ask it.
int current_device_capability();
// The most shared memory one block may ask for on the current device (opt-in, bytes): 64 KiB
// on Turing, 99 KiB on the 8.6/8.9 cards, 227 KiB on Hopper. 0 without one.
int current_device_shared_memory_limit();

}  // namespace precis::cuda
