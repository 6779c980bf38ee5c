#include <gtest/gtest.h>

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
