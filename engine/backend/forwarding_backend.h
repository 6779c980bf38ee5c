#pragma once
// A backend that hands every op to another backend it owns: the base of a backend that
// changes only a few of them (RunnerBackend's device runs, a test's counting of products).
#include <memory>
#include <string>
#include <utility>

#include "engine/backend/backend.h"

namespace precis {

class ForwardingBackend : public Backend {
public:
    explicit ForwardingBackend(std::unique_ptr<Backend> ops) : ops_(std::move(ops)) {}

    std::string name() const override { return ops_->name(); }
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

protected:
    const std::unique_ptr<Backend> ops_;
};

}  // namespace precis
