// make_backend: the CUDA backend (a RunnerBackend holding a CudaRunner, with the CPU backend's
// ops beside it) when a GPU is asked for and usable, else the CPU backend and why.
#include "engine/generate/runner_backend.h"
#include "kernels/backend_factory.h"
#include "kernels/device_buffer.h"
#include "kernels/device_query.h"
#include "kernels/device_support.h"
#include "kernels/runner/cuda_runner.h"

namespace precis {

namespace {

// Room for the weights in the run's precision plus a working margin (activations of a long
// input, cuBLAS's workspace): auto takes the GPU only when this fits in its free memory.
bool has_room(const cuda::DeviceInfo& d, uint64_t model_bytes_f32, cuda::Precision p) {
    const uint64_t weights = model_bytes_f32 / 4 * cuda::bytes_of(p);
    const uint64_t margin = uint64_t(2) << 30;
    return d.free_bytes >= weights + margin;
}

BackendChoice cpu_choice(int threads, std::string notice) {
    set_cpu_threads(threads);
    return {std::shared_ptr<Backend>(make_cpu_backend()), "cpu", std::move(notice)};
}

}  // namespace

BackendChoice make_backend(const BackendRequest& req) {
    if (req.device != "auto" && req.device != "cpu" && req.device != "cuda")
        throw Error("--device must be auto, cpu or cuda, not '" + req.device + "'");
    cuda::check_dtype_name(req.dtype);
    if (req.device == "cpu") return cpu_choice(req.cpu_threads, "");
    std::string why;
    const std::vector<cuda::DeviceInfo> devices = cuda::list_devices(&why);
    if (devices.empty())
        return cpu_choice(req.cpu_threads,
                          req.device == "cuda" ? "no usable CUDA device (" + why + "); running on the CPU" : "");
    const cuda::DeviceInfo& d = devices.front();
    // Before anything is uploaded: a card this build cannot run, or a precision it lacks,
    // is one sentence and the CPU, for auto too (the user has a GPU and should know why).
    const cuda::DeviceSupport support = cuda::check_device(d, d.driver_version, cuda::build_targets());
    if (!support.usable) return cpu_choice(req.cpu_threads, support.why + "; running on the CPU");
    const cuda::DtypeChoice dtype = cuda::choose_dtype(req.dtype, d);
    if (!dtype.refusal.empty()) return cpu_choice(req.cpu_threads, dtype.refusal + "; running on the CPU");
    const cuda::Precision precision = cuda::parse_precision(dtype.dtype);
    if (req.device == "auto" && !has_room(d, req.model_bytes, precision))
        return cpu_choice(req.cpu_threads, d.name + " has " + std::to_string(d.free_bytes >> 20) +
                                               " MiB free, too little for this model; running on the CPU");
    try {
        auto runner = std::make_shared<cuda::CudaRunner>(d.index, precision, req.dtype == "auto");
        set_cpu_threads(req.cpu_threads);
        std::string name = runner->device_name();
        return {std::make_shared<RunnerBackend>(make_cpu_backend(), std::move(runner)), name, support.first_use};
    } catch (const Error& e) {
        return cpu_choice(req.cpu_threads, std::string("could not start the CUDA backend (") + e.what() +
                                               "); running on the CPU");
    }
}

DeviceMemoryUse device_memory_use() { return {cuda::device_bytes_now(), cuda::device_bytes_peak()}; }

}  // namespace precis
