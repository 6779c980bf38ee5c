#pragma once
// A backend whose whole runs go to a device runner (model_runner.h), with another backend's
// host-pointer ops for everything else: the classifier head, the attention panel's CPU runs,
// and every run after the runner failed once. The CUDA backend is this with a CudaRunner
// and the CPU backend's ops.
#include <atomic>
#include <memory>
#include <string>

#include "engine/backend/backend.h"
#include "engine/generate/model_runner.h"

namespace precis {

class RunnerBackend final : public Backend {
public:
    RunnerBackend(std::unique_ptr<Backend> host_ops, std::shared_ptr<ModelRunner> runner)
        : ops_(std::move(host_ops)), runner_(std::move(runner)) {}

    std::string name() const override { return failed_ ? ops_->name() : runner_->device_name(); }
    ModelRunner* runner() override { return failed_ ? nullptr : runner_.get(); }
    void runner_failed(const std::string&) override { failed_ = true; }

    void linear(const float* x, int64_t rows, int64_t in, const float* w, const float* b, int64_t out,
                float* y) override {
        ops_->linear(x, rows, in, w, b, out, y);
    }
    void linear(const float* x, int64_t rows, int64_t in, const WeightRef& w, const float* b, int64_t out,
                float* y) override {
        ops_->linear(x, rows, in, w, b, out, y);
    }
    bool row_exact_linear(int64_t rows, int64_t in, int64_t out, WeightFormat format) const override {
        return ops_->row_exact_linear(rows, in, out, format);
    }
    void linear_gelu(const float* x, int64_t rows, int64_t in, const WeightRef& w, const float* b, int64_t out,
                     float* y) override {
        ops_->linear_gelu(x, rows, in, w, b, out, y);
    }
    void add_layer_norm(float* x, const float* delta, int64_t rows, int64_t dim, const float* gamma,
                        const float* beta, float eps) override {
        ops_->add_layer_norm(x, delta, rows, dim, gamma, beta, eps);
    }
    void gelu(float* x, int64_t n) override { ops_->gelu(x, n); }
    void embed(const int64_t* ids, int64_t rows, const float* table, int64_t vocab, int64_t dim, float scale,
               const float* positions, int64_t pos0, float* out) override {
        ops_->embed(ids, rows, table, vocab, dim, scale, positions, pos0, out);
    }
    void embed(const int64_t* ids, int64_t rows, const WeightRef& table, int64_t vocab, int64_t dim, float scale,
               const float* positions, int64_t pos0, float* out) override {
        ops_->embed(ids, rows, table, vocab, dim, scale, positions, pos0, out);
    }
    void add_bias(float* y, const float* bias, int64_t rows, int64_t n) override { ops_->add_bias(y, bias, rows, n); }
    void release_scratch() override { ops_->release_scratch(); }

private:
    std::unique_ptr<Backend> ops_;
    std::shared_ptr<ModelRunner> runner_;
    std::atomic<bool> failed_{false};
};

}  // namespace precis
