#pragma once
// Whether this build can run on a GPU, and in which precision: decided from the device's
// compute capability, the driver's CUDA version and the code this binary carries, before
// anything is uploaded. Plain C++ (no CUDA headers) so that its rules are tested with faked
// devices on machines without a GPU, and present in builds without CUDA.
#include <string>
#include <vector>

#include "kernels/device_query.h"

namespace precis::cuda {

// The GPU code this binary carries: machine code (SASS) per compute capability, as 10 *
// major + minor (75, 80, ...), and PTX of one, which a newer card's driver compiles at first
// use; and the CUDA runtime version it was built against (12080 = 12.8, as
// cudaRuntimeGetVersion gives it). Empty in builds without CUDA.
struct BuildTargets {
    std::vector<int> sass;
    int ptx = 0;
    int runtime_version = 0;
};
BuildTargets build_targets();
// "machine code for 7.5, 8.0, ..., 12.0; PTX 12.0" (empty for a build without CUDA).
std::string describe_targets(const BuildTargets& build);

// The oldest card the kernels are written for: Turing (7.5), the first with the fp16
// tensor-core instructions they use; and bf16, which Ampere (8.0) brought.
constexpr int kOldestCapability = 75;
constexpr int kBf16Capability = 80;

struct DeviceSupport {
    bool usable = false;
    std::string why;         // when not usable: one sentence naming the device and the reason
    std::string first_use;   // when usable through PTX only: the first run compiles it (said once)
};
// driver_version: the CUDA version the installed driver supports (cudaDriverGetVersion).
DeviceSupport check_device(const DeviceInfo& device, int driver_version, const BuildTargets& build);

// --dtype auto|fp32|fp16|bf16 on `device`: the precision that runs, or a refusal (one
// sentence) when the card cannot run the one asked for. auto is fp16, the tensor cores'
// precision on every card this build runs on; fp32 only when asked (it matches the
// reference exactly). Throws precis::Error for a name it does not know.
struct DtypeChoice {
    std::string dtype;    // "fp32", "fp16" or "bf16"
    std::string refusal;  // non-empty: the card cannot run what was asked
};
DtypeChoice choose_dtype(const std::string& asked, const DeviceInfo& device);

// --dtype auto's fp16 run whose activations overflowed (NaN or infinite values in the
// encoder's output): bf16, whose range is float32's, on cards that have it (8.0 on); float32
// on Turing.
std::string dtype_after_fp16_overflow(int capability);

// "fp32|fp16|bf16|auto" checked without a device (builds without CUDA, the settings).
void check_dtype_name(const std::string& asked);

}  // namespace precis::cuda
