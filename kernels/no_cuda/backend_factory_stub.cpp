// Builds without the CUDA toolkit: every request runs on the CPU, and asking for the GPU says why.
#include "kernels/backend_factory.h"

#include "engine/core/error.h"
#include "kernels/device_support.h"

namespace precis {

BackendChoice make_backend(const BackendRequest& req) {
    if (req.device != "auto" && req.device != "cpu" && req.device != "cuda")
        throw Error("--device must be auto, cpu or cuda, not '" + req.device + "'");
    cuda::check_dtype_name(req.dtype);
    set_cpu_threads(req.cpu_threads);
    std::string notice;
    if (req.device == "cuda") notice = "this build of Precis has no CUDA backend; running on the CPU";
    return {std::shared_ptr<Backend>(make_cpu_backend()), "cpu", notice};
}

DeviceMemoryUse device_memory_use() { return {}; }

}  // namespace precis
