// The CUDA backend as the engine sees it: the CPU backend's host-pointer ops (the classifier
// head, the attention panel's CPU runs and any fallback use them) plus the runner that holds
// whole runs on the GPU. After the runner fails once, the backend stays on the CPU and says so.
#include <atomic>

#include "kernels/backend_factory.h"
#include "kernels/device_buffer.h"
#include "kernels/device_query.h"
#include "kernels/runner/cuda_runner.h"

namespace precis {

namespace {

class CudaBackend final : public Backend {
public:
    CudaBackend(std::unique_ptr<Backend> cpu, std::unique_ptr<cuda::CudaRunner> runner)
        : cpu_(std::move(cpu)), runner_(std::move(runner)) {}

    std::string name() const override { return failed_ ? cpu_->name() : runner_->device_name(); }
    ModelRunner* runner() override { return failed_ ? nullptr : runner_.get(); }
    void runner_failed(const std::string&) override { failed_ = true; }

    void linear(const float* x, int64_t rows, int64_t in, const float* w, const float* b, int64_t out,
                float* y) override {
        cpu_->linear(x, rows, in, w, b, out, y);
    }
    void linear(const float* x, int64_t rows, int64_t in, const WeightRef& w, const float* b, int64_t out,
                float* y) override {
        cpu_->linear(x, rows, in, w, b, out, y);
    }
    void linear_gelu(const float* x, int64_t rows, int64_t in, const WeightRef& w, const float* b, int64_t out,
                     float* y) override {
        cpu_->linear_gelu(x, rows, in, w, b, out, y);
    }
    void add_layer_norm(float* x, const float* delta, int64_t rows, int64_t dim, const float* gamma,
                        const float* beta, float eps) override {
        cpu_->add_layer_norm(x, delta, rows, dim, gamma, beta, eps);
    }
    void gelu(float* x, int64_t n) override { cpu_->gelu(x, n); }
    void embed(const int64_t* ids, int64_t rows, const float* table, int64_t vocab, int64_t dim, float scale,
               const float* positions, int64_t pos0, float* out) override {
        cpu_->embed(ids, rows, table, vocab, dim, scale, positions, pos0, out);
    }
    void embed(const int64_t* ids, int64_t rows, const WeightRef& table, int64_t vocab, int64_t dim, float scale,
               const float* positions, int64_t pos0, float* out) override {
        cpu_->embed(ids, rows, table, vocab, dim, scale, positions, pos0, out);
    }
    void add_bias(float* y, const float* bias, int64_t rows, int64_t n) override { cpu_->add_bias(y, bias, rows, n); }
    void release_scratch() override { cpu_->release_scratch(); }

private:
    std::unique_ptr<Backend> cpu_;
    std::unique_ptr<cuda::CudaRunner> runner_;
    std::atomic<bool> failed_{false};
};

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
    const cuda::Precision precision = cuda::parse_precision(req.dtype);
    if (req.device == "cpu") return cpu_choice(req.cpu_threads, "");
    std::string why;
    const std::vector<cuda::DeviceInfo> devices = cuda::list_devices(&why);
    if (devices.empty())
        return cpu_choice(req.cpu_threads,
                          req.device == "cuda" ? "no usable CUDA device (" + why + "); running on the CPU" : "");
    const cuda::DeviceInfo& d = devices.front();
    if (req.device == "auto" && !has_room(d, req.model_bytes, precision))
        return cpu_choice(req.cpu_threads, d.name + " has " + std::to_string(d.free_bytes >> 20) +
                                               " MiB free, too little for this model; running on the CPU");
    try {
        auto runner = std::make_unique<cuda::CudaRunner>(d.index, precision);
        set_cpu_threads(req.cpu_threads);
        std::string name = runner->device_name();
        return {std::make_shared<CudaBackend>(make_cpu_backend(), std::move(runner)), name, ""};
    } catch (const Error& e) {
        return cpu_choice(req.cpu_threads, std::string("could not start the CUDA backend (") + e.what() +
                                               "); running on the CPU");
    }
}

DeviceMemoryUse device_memory_use() { return {cuda::device_bytes_now(), cuda::device_bytes_peak()}; }

}  // namespace precis
