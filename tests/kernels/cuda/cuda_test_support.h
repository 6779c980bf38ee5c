#pragma once
// Shared by the device tests: skip cleanly without a GPU, move float vectors to and from the
// device in any precision, and the bounds of the op tests (normalized error against the CPU
// op: fp32 <= 1e-6, fp16/bf16 <= 1e-3, issue 29).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/core/error.h"
#include "kernels/device_buffer.h"
#include "kernels/device_query.h"
#include "kernels/ops/elementwise.h"
#include "kernels/ops/precision.h"
#include "tests/support/numeric.h"

namespace precis::test {

// Empty string when a CUDA device is usable, else why not.
inline std::string why_no_gpu() {
    std::string why;
    if (cuda::list_devices(&why).empty()) return why.empty() ? "no CUDA device" : why;
    return {};
}

#define PRECIS_REQUIRE_GPU()                                                       \
    do {                                                                           \
        if (std::string why = ::precis::test::why_no_gpu(); !why.empty())          \
            GTEST_SKIP() << "no GPU here (" << why << "): device case skipped";    \
    } while (0)

inline double op_tolerance(cuda::Precision p) { return p == cuda::Precision::F32 ? 1e-6 : 1e-3; }

// Uploads float32 values converted to precision p.
inline cuda::DeviceBuffer upload_as(cuda::Precision p, const std::vector<float>& host) {
    cuda::DeviceBuffer f32 = cuda::upload(host);
    if (p == cuda::Precision::F32) return f32;
    cuda::DeviceBuffer out(host.size() * cuda::bytes_of(p));
    cuda::convert_from_f32(p, f32.as<float>(), out.get(), int64_t(host.size()), nullptr);
    PRECIS_CUDA_CHECK(cudaDeviceSynchronize());
    return out;
}

// Downloads n values stored in precision p as float32.
inline std::vector<float> download_as_f32(cuda::Precision p, const void* device, size_t n) {
    if (p == cuda::Precision::F32) return cuda::download<float>(device, n);
    cuda::DeviceBuffer f32(n * sizeof(float));
    cuda::convert_to_f32(p, device, f32.as<float>(), int64_t(n), nullptr);
    PRECIS_CUDA_CHECK(cudaDeviceSynchronize());
    return cuda::download<float>(f32.get(), n);
}

// Rounds host values through precision p (what the device sees after upload_as), so the CPU
// reference starts from the same inputs and the bound measures only the op's own error.
inline std::vector<float> rounded_to(cuda::Precision p, const std::vector<float>& host) {
    if (p == cuda::Precision::F32) return host;
    cuda::DeviceBuffer d = upload_as(p, host);
    return download_as_f32(p, d.get(), host.size());
}

inline const char* precision_label(cuda::Precision p) { return cuda::precision_name(p); }

// Expects a plain argument error (precis::Error), not a DeviceError: the check ran before any
// CUDA call, so these cases hold on machines without a GPU.
template <class F>
void expect_argument_error(F&& f) {
    try {
        f();
        ADD_FAILURE() << "no error was thrown";
    } catch (const cuda::DeviceError& e) {
        ADD_FAILURE() << "a CUDA call ran before the argument check: " << e.what();
    } catch (const Error&) {
    }
}

}  // namespace precis::test
