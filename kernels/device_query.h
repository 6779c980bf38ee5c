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
};

// True when this binary was built with the CUDA backend.
bool compiled_with_cuda();
// Devices visible now; empty without a driver or a GPU. `why` (optional) receives the
// reason when the list is empty (for example "no CUDA driver found").
std::vector<DeviceInfo> list_devices(std::string* why = nullptr);

}  // namespace precis::cuda
