#pragma once
// Picks the backend a run asked for: --device auto|cpu|cuda and --dtype auto|fp32|fp16|bf16
// (auto: fp16 on the GPU, kernels/device_support.h).
// Plain C++ (no CUDA headers), and present in builds without CUDA, where every request ends
// on the CPU with a notice saying why.
#include <cstdint>
#include <memory>
#include <string>

#include "engine/backend/backend.h"

namespace precis {

struct BackendRequest {
    std::string device = "auto";  // auto: the GPU when one has room for the model, else the CPU
    std::string dtype = "auto";   // the GPU's compute type; the CPU keeps its own (--compute-type)
    uint64_t model_bytes = 0;     // weights in float32, for auto's room check (0: unknown)
    int cpu_threads = 0;          // 0: all cores
};

struct BackendChoice {
    std::shared_ptr<Backend> backend;
    std::string device;  // "cpu" or "cuda:0 NVIDIA H200 (fp16)": what the library records
    std::string notice;  // one line when the request could not be met (e.g. no GPU) or the GPU
                         // compiles its code at first use, else empty
};

// Throws precis::Error for a device or dtype it does not know (naming the value).
BackendChoice make_backend(const BackendRequest& request);

// Device memory the CUDA backend holds now and at most since its runner's reset_stats()
// (zero without CUDA).
struct DeviceMemoryUse {
    uint64_t now = 0, peak = 0;
};
DeviceMemoryUse device_memory_use();

}  // namespace precis
