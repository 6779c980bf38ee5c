// The device choice every command and the window go through (kernels/backend_factory.h):
// unknown values are refused naming them; asking for the GPU where there is none (or in a
// build without CUDA) runs on the CPU and says so in one line; "cpu" and "auto" without a GPU
// say nothing.
#include <gtest/gtest.h>

#include "engine/core/error.h"
#include "kernels/backend_factory.h"
#include "kernels/device_query.h"

namespace precis {
namespace {

bool gpu_present() { return !cuda::list_devices().empty(); }

TEST(BackendFactory, AnUnknownDeviceIsRefusedNamingIt) {
    try {
        make_backend({.device = "tpu"});
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("'tpu'"), std::string::npos) << e.what();
    }
}

TEST(BackendFactory, AnUnknownDtypeIsRefusedNamingIt) {
    try {
        make_backend({.device = "cpu", .dtype = "fp8"});
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("'fp8'"), std::string::npos) << e.what();
    }
}

TEST(BackendFactory, CpuIsTheCpuBackendWithNoNotice) {
    const BackendChoice c = make_backend({.device = "cpu", .dtype = "fp16"});
    ASSERT_NE(c.backend, nullptr);
    EXPECT_EQ(c.device, "cpu");
    EXPECT_TRUE(c.notice.empty());
    EXPECT_EQ(c.backend->runner(), nullptr);
}

TEST(BackendFactory, CudaWithoutAGpuRunsOnTheCpuAndSaysWhy) {
    if (gpu_present()) GTEST_SKIP() << "this machine has a GPU";
    const BackendChoice c = make_backend({.device = "cuda"});
    ASSERT_NE(c.backend, nullptr);
    EXPECT_EQ(c.device, "cpu");
    EXPECT_EQ(c.backend->runner(), nullptr);
    EXPECT_NE(c.notice.find("running on the CPU"), std::string::npos) << c.notice;
}

TEST(BackendFactory, AutoWithoutAGpuRunsOnTheCpuQuietly) {
    if (gpu_present()) GTEST_SKIP() << "this machine has a GPU";
    const BackendChoice c = make_backend({.device = "auto"});
    EXPECT_EQ(c.device, "cpu");
    EXPECT_TRUE(c.notice.empty()) << c.notice;
}

TEST(BackendFactory, CudaWithAGpuHoldsTheRunOnIt) {
    if (!gpu_present()) GTEST_SKIP() << "no GPU here";
    const BackendChoice c = make_backend({.device = "cuda", .dtype = "bf16"});
    ASSERT_NE(c.backend->runner(), nullptr) << c.notice;
    EXPECT_NE(c.device.find("cuda:0"), std::string::npos) << c.device;
    EXPECT_NE(c.device.find("bf16"), std::string::npos) << c.device;
}

}  // namespace
}  // namespace precis
