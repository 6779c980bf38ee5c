#include "kernels/device_support.h"

#include <sstream>

#include "engine/core/error.h"

#ifdef PRECIS_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace precis::cuda {

namespace {

std::string capability_text(int cap) { return std::to_string(cap / 10) + "." + std::to_string(cap % 10); }

std::string version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

std::string device_text(const DeviceInfo& d, int cap) {
    return d.name + " (compute capability " + capability_text(cap) + ")";
}

// "7.5, 8.0, 9.0"
std::string capability_list(const std::vector<int>& caps) {
    std::string s;
    for (int c : caps) s += (s.empty() ? "" : ", ") + capability_text(c);
    return s;
}

// Machine code runs on cards of the same major version and the same or a later minor one
// (sm_80 code on an 8.6 card); PTX is compiled by the driver for any card as new or newer.
bool runs_sass(const std::vector<int>& sass, int cap) {
    for (int s : sass)
        if (s / 10 == cap / 10 && s <= cap) return true;
    return false;
}

#ifdef PRECIS_HAVE_CUDA
std::vector<int> parse_list(const char* text) {
    std::vector<int> out;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ','))
        if (!item.empty()) out.push_back(std::stoi(item));
    return out;
}
#endif

}  // namespace

BuildTargets build_targets() {
    BuildTargets t;
#ifdef PRECIS_HAVE_CUDA
    // PRECIS_CUDA_SASS and PRECIS_CUDA_PTX come from kernels/CMakeLists.txt, the same list
    // nvcc is given.
    t.sass = parse_list(PRECIS_CUDA_SASS);
    t.ptx = PRECIS_CUDA_PTX;
    t.runtime_version = CUDART_VERSION;
#endif
    return t;
}

std::string describe_targets(const BuildTargets& build) {
    if (build.sass.empty()) return {};
    std::string s = "machine code for " + capability_list(build.sass);
    if (build.ptx > 0) s += "; PTX " + capability_text(build.ptx);
    return s;
}

DeviceSupport check_device(const DeviceInfo& d, int driver_version, const BuildTargets& build) {
    DeviceSupport s;
    const int cap = d.compute_major * 10 + d.compute_minor;
    if (cap < kOldestCapability) {
        s.why = device_text(d, cap) + " is older than the oldest card Precis's GPU code is written for (compute capability " +
                capability_text(kOldestCapability) + ", Turing)";
        return s;
    }
    if (driver_version > 0 && build.runtime_version > 0 && driver_version / 1000 < build.runtime_version / 1000) {
        s.why = "the NVIDIA driver supports CUDA " + version_text(driver_version) + ", older than the CUDA " +
                version_text(build.runtime_version) + " this build needs; update the driver to use " + d.name;
        return s;
    }
    if (runs_sass(build.sass, cap)) {
        s.usable = true;
        return s;
    }
    if (build.ptx > 0 && build.ptx <= cap) {
        s.usable = true;
        s.first_use = "this build has no machine code for " + device_text(d, cap) +
                      ": the driver compiles Precis's GPU code for it at first use (once; it keeps the result)";
        return s;
    }
    s.why = "this build has no GPU code for " + device_text(d, cap) + " (it carries " +
            (build.sass.empty() ? std::string("none") : capability_list(build.sass)) + ")";
    return s;
}

std::string dtype_after_fp16_overflow(int capability) { return capability >= kBf16Capability ? "bf16" : "fp32"; }

void check_dtype_name(const std::string& asked) {
    if (asked != "auto" && asked != "fp32" && asked != "fp16" && asked != "bf16")
        throw Error("--dtype must be auto, fp32, fp16 or bf16, not '" + asked + "'");
}

DtypeChoice choose_dtype(const std::string& asked, const DeviceInfo& d) {
    check_dtype_name(asked);
    const int cap = d.compute_major * 10 + d.compute_minor;
    if (asked == "auto") return {"fp16", ""};
    if (asked == "bf16" && cap < kBf16Capability)
        return {asked, "bf16 needs compute capability " + capability_text(kBf16Capability) + " or newer, and " +
                           device_text(d, cap) + " has not; --dtype fp16 or fp32 run there"};
    return {asked, ""};
}

}  // namespace precis::cuda
