// Used when Precis is built with PRECIS_WITH_CUDA=OFF.
#include "kernels/device_query.h"

namespace precis::cuda {

bool compiled_with_cuda() { return false; }

std::vector<DeviceInfo> list_devices(std::string* why) {
    if (why) *why = "this build of Precis has no CUDA backend";
    return {};
}

int current_device_capability() { return 0; }
int current_device_shared_memory_limit() { return 0; }

}  // namespace precis::cuda
