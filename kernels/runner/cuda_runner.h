#pragma once
// The CUDA backend's runner: one device, one stream, one cuBLAS handle; the weights of the
// model in use uploaded once (again only when another model comes); the encoder's
// workspace kept from input to input. A run's failure (out of memory, a CUDA error) is
// thrown as precis::DeviceFailure, which the engine turns into a CPU fallback.
#include <cuda_runtime.h>

#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "engine/generate/model_runner.h"
#include "kernels/device_buffer.h"
#include "kernels/ops/precision.h"

namespace precis::cuda {

class DeviceModel;
struct DeviceMemory;
class Gemm;
struct EncoderWorkspace;
class SpanTimer;

class CudaRunner final : public ModelRunner {
public:
    // automatic: the precision came from --dtype auto (fp16), and an encoder output or a
    // decoding step that overflows fp16 switches the runner to bf16 (float32 on Turing), says
    // so once through the run's notice and encodes, or generates, again.
    CudaRunner(int device, Precision precision, bool automatic = false);
    ~CudaRunner() override;

    std::string device_name() const override {
        std::lock_guard<std::mutex> lock(name_mutex_);  // an fp16 overflow renames the runner mid-run
        return name_;
    }
    bool supports(const AttentionOptions& attention) const override;
    int max_beams() const override;
    EncoderOutput encode(const Model& model, const std::vector<std::vector<int64_t>>& ids,
                         const std::vector<std::vector<int64_t>>& masks, const AttentionOptions& attention,
                         const RunCallbacks& callbacks, bool keep_layer_states) override;
    GenerationResult generate(const Model& model, const EncoderOutput& encoded, const GenerationConfig& cfg,
                              const RunCallbacks& callbacks, bool keep_step_scores) override;
    std::unique_ptr<BatchDecoder> batch_decoder(const Model& model, const BatchDecoderShape& shape) override;
    bool widen_after_overflow(const RunCallbacks& callbacks) override;
    RunnerStats stats() const override;
    uint64_t free_memory_bytes() const override;
    void reset_stats() override;
    void set_profiling(bool on) override;

    Precision precision() const { return precision_; }

    // For the runner's batch decoder (device_batch_decoder.h). run_guarded runs `work` as a
    // run of this runner: one at a time on the stream, a CUDA or cuBLAS failure thrown as
    // DeviceFailure. Inside it, device_copy gives a document's encoder output as this runner
    // reads it (its own, or the host's uploaded in this precision), and count_decode_step
    // adds a batch step's times to stats().
    void run_guarded(const std::function<void()>& work);
    std::shared_ptr<const DeviceMemory> device_copy(const EncodedRow& row);
    void count_decode_step(double wall_seconds, double device_seconds, double layers_seconds);

private:
    const DeviceModel& weights_for(const Model& model);
    void count_non_finite_rows(const EncoderOutput& out);
    void leave_fp16(const RunCallbacks& callbacks);  // fp16 overflowed: bf16 (fp32 before Ampere) from now on
    GenerationResult generate_once(const Model& model, const EncoderOutput& encoded, const GenerationConfig& cfg,
                                   const RunCallbacks& callbacks);
    template <class F>
    auto guarded(F&& work) -> decltype(work());

    int device_;
    Precision precision_;
    bool automatic_;
    std::string name_;
    uint64_t id_;
    cudaStream_t stream_ = nullptr;
    std::unique_ptr<Gemm> gemm_;
    std::unique_ptr<DeviceModel> weights_;
    std::unique_ptr<EncoderWorkspace> workspace_;
    std::unique_ptr<SpanTimer> products_, attention_;
    DeviceBuffer overflow_count_;       // one int: the encoder output's NaN and infinite values,
    PinnedBuffer overflow_count_host_;  // and its copy on the host
    RunnerStats stats_;
    bool profiling_ = false;
    std::mutex mutex_;  // one run at a time on the stream
    mutable std::mutex name_mutex_;
};

}  // namespace precis::cuda
