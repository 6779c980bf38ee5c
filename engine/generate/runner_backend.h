#pragma once
// A backend whose whole runs go to a device runner (model_runner.h), with another backend's
// host-pointer ops for everything else: the classifier head, the attention panel's CPU runs,
// and every run after the runner failed once. The CUDA backend is this with a CudaRunner
// and the CPU backend's ops.
#include <atomic>
#include <memory>
#include <string>

#include "engine/backend/forwarding_backend.h"
#include "engine/generate/model_runner.h"

namespace precis {

class RunnerBackend final : public ForwardingBackend {
public:
    RunnerBackend(std::unique_ptr<Backend> host_ops, std::shared_ptr<ModelRunner> runner)
        : ForwardingBackend(std::move(host_ops)), runner_(std::move(runner)) {}

    std::string name() const override { return failed_ ? ops_->name() : runner_->device_name(); }
    ModelRunner* runner() override { return failed_ ? nullptr : runner_.get(); }
    void runner_failed(const std::string&) override { failed_ = true; }

private:
    std::shared_ptr<ModelRunner> runner_;
    std::atomic<bool> failed_{false};
};

}  // namespace precis
