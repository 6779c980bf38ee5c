#pragma once
// A device runner that fails on its first call, as a GPU out of memory would: for the tests
// of the CPU fallback (engine/generate/model_runner.h) without a GPU.
#include <string>
#include <vector>

#include "engine/generate/model_runner.h"

namespace precis::test {

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
    std::unique_ptr<BatchDecoder> batch_decoder(const Model&, const BatchDecoderShape&) override {
        ++calls;
        throw DeviceFailure("cuda:0 Test GPU (fp16) failed");
    }
    RunnerStats stats() const override { return {}; }
    void reset_stats() override {}
    void set_profiling(bool) override {}
};

}  // namespace precis::test
