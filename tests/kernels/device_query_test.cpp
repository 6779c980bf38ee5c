#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "kernels/device_query.h"

TEST(DeviceQuery, ListingDevicesNeverThrowsAndExplainsAnEmptyList) {
    std::string why;
    auto devices = precis::cuda::list_devices(&why);
    if (devices.empty()) {
        EXPECT_FALSE(why.empty());
        GTEST_SKIP() << "no GPU here: " << why;
    }
    for (auto& d : devices) {
        EXPECT_FALSE(d.name.empty());
        EXPECT_GT(d.total_bytes, 0u);
    }
}

// On a machine whose PCI bus has no NVIDIA device, the reason is that plain fact, not the
// CUDA runtime's "driver version is insufficient" (what its stub driver library reports).
TEST(DeviceQuery, WithoutNvidiaHardwareTheReasonIsNoNvidiaGpuFound) {
    namespace fs = std::filesystem;
    if (!precis::cuda::compiled_with_cuda()) GTEST_SKIP() << "built without CUDA";
    std::error_code ec;
    if (!fs::is_directory("/sys/bus/pci/devices", ec)) GTEST_SKIP() << "no /sys/bus/pci to look at";
    for (const fs::directory_entry& e : fs::directory_iterator("/sys/bus/pci/devices", ec)) {
        std::ifstream vendor(e.path() / "vendor");
        std::string id;
        if (vendor >> id && id == "0x10de") GTEST_SKIP() << "this machine has NVIDIA hardware";
    }
    std::string why;
    EXPECT_TRUE(precis::cuda::list_devices(&why).empty());
    EXPECT_EQ(why, "no NVIDIA GPU found");
}
