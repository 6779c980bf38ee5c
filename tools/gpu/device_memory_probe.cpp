#include "tools/gpu/device_memory_probe.h"

#include "app/cli/bench_core.h"

#if defined(PRECIS_HAVE_CUDA)
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#endif

namespace precis::gpu {

#if defined(PRECIS_HAVE_CUDA)
namespace {

// Device-wide used memory (total - free), sampled every millisecond on a thread of its
// own: it needs nothing from the runner, at the price of counting the CUDA context and
// anything else on the GPU. The baseline taken at reset (context and whatever else was
// there) is subtracted, so the number is what this run added: weights, caches, workspace.
class Sampler {
public:
    void start() {
        stop();
        baseline_ = used();
        peak_ = baseline_;
        running_ = true;
        thread_ = std::thread([this] {
            while (running_) {
                const uint64_t u = used();
                uint64_t p = peak_.load();
                while (u > p && !peak_.compare_exchange_weak(p, u)) {
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
        });
    }
    std::optional<uint64_t> peak_added() {
        const uint64_t u = used();  // the last moment counts too
        uint64_t p = std::max(peak_.load(), u);
        if (baseline_ == 0 && p == 0) return std::nullopt;
        return p > baseline_ ? p - baseline_ : 0;
    }
    void stop() {
        running_ = false;
        if (thread_.joinable()) thread_.join();
    }
    ~Sampler() { stop(); }

private:
    static uint64_t used() {
        size_t free_bytes = 0, total_bytes = 0;
        if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) return 0;
        return uint64_t(total_bytes - free_bytes);
    }
    std::atomic<bool> running_{false};
    std::atomic<uint64_t> peak_{0};
    uint64_t baseline_ = 0;
    std::thread thread_;
};

}  // namespace

void register_device_memory_probe() {
    cli::BenchDeviceHooks& hooks = cli::bench_device_hooks();
    if (hooks.peak_memory_bytes) return;  // someone registered a measure already
    // Lives until exit: the child process measures one run and ends.
    static Sampler* sampler = new Sampler;
    hooks.reset_peak_memory = [](Backend&) { sampler->start(); };
    hooks.peak_memory_bytes = [](Backend&) {
        auto p = sampler->peak_added();
        sampler->stop();
        return p;
    };
    hooks.peak_memory_method =
        "cudaMemGetInfo sampled every 1 ms, device-wide, minus the use when the backend was made";
}
#else
void register_device_memory_probe() {}
#endif

}  // namespace precis::gpu
