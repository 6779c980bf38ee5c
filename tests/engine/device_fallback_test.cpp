// When a device runner fails mid-run (out of memory, a CUDA error), the encoder and the
// search finish on the CPU ops with the same result, the person is told once, and the
// backend stays on the CPU afterwards (engine/backend/model_runner.h).
#include <gtest/gtest.h>

#include "engine/backend/model_runner.h"
#include "engine/model/model.h"
#include "tests/support/fixture_case.h"
#include "tests/support/fixtures.h"

namespace precis::test {
namespace {

class FailingRunner final : public ModelRunner {
public:
    int calls = 0;
    std::string device_name() const override { return "cuda:0 Test GPU (fp16)"; }
    bool supports(const AttentionOptions&) const override { return true; }
    EncoderOutput encode(const Model&, const std::vector<std::vector<int64_t>>&,
                         const std::vector<std::vector<int64_t>>&, const AttentionOptions&, const RunCallbacks&,
                         bool) override {
        ++calls;
        throw DeviceFailure("cuda:0 Test GPU (fp16) ran out of memory");
    }
    GenerationResult generate(const Model&, const EncoderOutput&, const GenerationConfig&, const RunCallbacks&,
                              bool) override {
        ++calls;
        throw DeviceFailure("cuda:0 Test GPU (fp16) failed");
    }
    RunnerStats stats() const override { return {}; }
    void reset_stats() override {}
    void set_profiling(bool) override {}
};

// The CPU backend's ops with a runner in front, as the CUDA backend is built.
class BackendWithRunner final : public Backend {
public:
    explicit BackendWithRunner(ModelRunner* r) : cpu_(make_cpu_backend()), runner_(r) {}
    std::string name() const override { return "test"; }
    ModelRunner* runner() override { return failed_ ? nullptr : runner_; }
    void runner_failed(const std::string&) override { failed_ = true; }
    void linear(const float* x, int64_t r, int64_t in, const float* w, const float* b, int64_t out, float* y) override {
        cpu_->linear(x, r, in, w, b, out, y);
    }
    void linear(const float* x, int64_t r, int64_t in, const WeightRef& w, const float* b, int64_t out,
                float* y) override {
        cpu_->linear(x, r, in, w, b, out, y);
    }
    void add_layer_norm(float* x, const float* d, int64_t r, int64_t dim, const float* g, const float* b,
                        float eps) override {
        cpu_->add_layer_norm(x, d, r, dim, g, b, eps);
    }
    void gelu(float* x, int64_t n) override { cpu_->gelu(x, n); }
    void embed(const int64_t* ids, int64_t r, const float* t, int64_t v, int64_t d, float s, const float* p,
               int64_t p0, float* out) override {
        cpu_->embed(ids, r, t, v, d, s, p, p0, out);
    }
    void embed(const int64_t* ids, int64_t r, const WeightRef& t, int64_t v, int64_t d, float s, const float* p,
               int64_t p0, float* out) override {
        cpu_->embed(ids, r, t, v, d, s, p, p0, out);
    }
    void add_bias(float* y, const float* b, int64_t r, int64_t n) override { cpu_->add_bias(y, b, r, n); }

private:
    std::unique_ptr<Backend> cpu_;
    ModelRunner* runner_;
    bool failed_ = false;
};

TEST(DeviceFallback, AFailingDeviceFinishesOnTheCpuWithTheSameResultAndOneNotice) {
    set_cpu_threads(2);
    const FixtureCase c = FixtureCase::load("bart-tiny");
    auto model = Model::load(c.model_dir, {.load_tokenizer = false});
    ForwardRequest req = c.request("main", *model);
    req.keep_greedy_scores = false;

    auto cpu = make_cpu_backend();
    const NamedTensors expected = run_forward(*model, *cpu, req);

    FailingRunner runner;
    BackendWithRunner backend(&runner);
    std::vector<std::string> notices;
    RunCallbacks cb;
    cb.on_notice = [&](const std::string& line) { notices.push_back(line); };
    const NamedTensors got = run_forward(*model, backend, req, cb);

    ASSERT_EQ(notices.size(), 1u);
    EXPECT_NE(notices[0].find("ran out of memory; running on the CPU"), std::string::npos) << notices[0];
    EXPECT_EQ(runner.calls, 1) << "after the failure the backend must stay on the CPU";
    EXPECT_EQ(backend.runner(), nullptr);
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(got[i].first, expected[i].first);
        ASSERT_EQ(got[i].second.numel(), expected[i].second.numel()) << got[i].first;
        EXPECT_EQ(0, std::memcmp(got[i].second.raw(), expected[i].second.raw(), got[i].second.nbytes()))
            << got[i].first << " differs from the plain CPU run";
    }
}

}  // namespace
}  // namespace precis::test
