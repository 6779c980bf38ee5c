#include "kernels/runner/cuda_runner.h"

#include <atomic>
#include <chrono>
#include <string>

#include "engine/generate/logits_processors.h"
#include "engine/model/model.h"
#include "kernels/device_query.h"
#include "kernels/ops/elementwise.h"
#include "kernels/device_support.h"
#include "kernels/ops/gemm.h"
#include "kernels/ops/non_finite.h"
#include "kernels/ops/search_step.h"
#include "kernels/runner/device_batch_decoder.h"
#include "kernels/runner/device_decoder.h"
#include "kernels/runner/device_encoder.h"
#include "kernels/runner/device_memory.h"
#include "kernels/runner/device_model.h"
#include "kernels/runner/device_search.h"
#include "kernels/span_timer.h"

namespace precis::cuda {

namespace {

uint64_t next_runner_id() {
    static std::atomic<uint64_t> counter{0};
    return ++counter;
}

std::string describe(int device, Precision p) {
    cudaDeviceProp prop{};
    std::string name = cudaGetDeviceProperties(&prop, device) == cudaSuccess ? prop.name : "GPU";
    return "cuda:" + std::to_string(device) + " " + name + " (" + precision_name(p) + ")";
}

}  // namespace

CudaRunner::CudaRunner(int device, Precision precision, bool automatic)
    : device_(device),
      precision_(precision),
      automatic_(automatic),
      name_(describe(device, precision)),
      id_(next_runner_id()) {
    PRECIS_CUDA_CHECK(cudaSetDevice(device_));
    PRECIS_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    gemm_ = std::make_unique<Gemm>(stream_);
    workspace_ = std::make_unique<EncoderWorkspace>();
    products_ = std::make_unique<SpanTimer>();
    attention_ = std::make_unique<SpanTimer>();
}

CudaRunner::~CudaRunner() {
    // Device memory goes before the stream it was used on.
    workspace_.reset();
    weights_.reset();
    overflow_count_ = DeviceBuffer();
    overflow_count_host_ = PinnedBuffer();
    gemm_.reset();
    products_.reset();
    attention_.reset();
    if (stream_) cudaStreamDestroy(stream_);
}

bool CudaRunner::supports(const AttentionOptions& attention) const {
    // The attention panel's capture is recorded by the CPU attention code.
    return !(attention.capture && attention.capture->recorder);
}

// Any CUDA or cuBLAS failure inside a run becomes a DeviceFailure naming it, so the engine
// can fall back to the CPU; input errors (precis::Error) pass through unchanged.
template <class F>
auto CudaRunner::guarded(F&& work) -> decltype(work()) {
    std::lock_guard<std::mutex> lock(mutex_);
    try {
        PRECIS_CUDA_CHECK(cudaSetDevice(device_));
        return work();
    } catch (const DeviceError& e) {
        cudaStreamSynchronize(stream_);
        cudaGetLastError();
        workspace_ = std::make_unique<EncoderWorkspace>();  // give back what the failed run grew
        if (e.out_of_memory()) throw DeviceOutOfMemory(name_ + " ran out of memory (" + e.what() + ")");
        throw DeviceFailure(name_ + " failed: " + e.what());
    }
}

const DeviceModel& CudaRunner::weights_for(const Model& model) {
    if (!weights_ || weights_->model_id() != model.instance_id()) {
        weights_.reset();  // free the previous model's weights before uploading the next
        weights_ = std::make_unique<DeviceModel>(model, precision_, stream_);
    }
    return *weights_;
}

EncoderOutput CudaRunner::encode(const Model& model, const std::vector<std::vector<int64_t>>& ids,
                                 const std::vector<std::vector<int64_t>>& masks, const AttentionOptions& attention,
                                 const RunCallbacks& callbacks, bool keep_layer_states) {
    return guarded([&] {
        while (true) {
            const DeviceModel& w = weights_for(model);
            products_->enable(profiling_);
            attention_->enable(profiling_);
            const auto start = std::chrono::steady_clock::now();
            EncoderCall call{model, w, *gemm_, stream_, *workspace_, *products_, *attention_, id_};
            EncoderOutput out = device_encode(call, ids, masks, attention, callbacks, keep_layer_states);
            const bool watch_range = automatic_ && precision_ == Precision::F16;
            if (watch_range) count_non_finite_rows(out);  // read after the sync below, which it joins
            PRECIS_CUDA_CHECK(cudaStreamSynchronize(stream_));
            stats_.encoder_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            if (products_->enabled()) stats_.encoder_product_seconds = products_->collect();
            if (attention_->enabled()) stats_.encoder_attention_seconds = attention_->collect();
            stats_.peak_device_bytes = device_bytes_peak();
            if (!watch_range || *overflow_count_host_.as<int>() == 0) return out;
            out = {};
            leave_fp16(callbacks);  // and this input is encoded again
        }
    });
}

// fp16 holds at most 65504: some activation of this model passed it. From now on the runner
// uses bf16 (float32's range) or, before Ampere, float32; the weights are uploaded again in it
// at the next use. Said once: the runner never goes back to fp16.
void CudaRunner::leave_fp16(const RunCallbacks& callbacks) {
    const Precision next = parse_precision(dtype_after_fp16_overflow(current_device_capability()));
    callbacks.notice("this model's activations overflow fp16 on " + name_ + "; running in " + precision_name(next) +
                     " from now on");
    weights_.reset();
    precision_ = next;
    std::lock_guard<std::mutex> lock(name_mutex_);
    name_ = describe(device_, next);
}

// Queues the count of NaN and infinite values in the encoder output's rows (one small
// reduction per row) and its copy into overflow_count_host_, for after the next sync.
void CudaRunner::count_non_finite_rows(const EncoderOutput& out) {
    overflow_count_.reserve(sizeof(int));
    if (!overflow_count_host_.as<int>()) overflow_count_host_ = PinnedBuffer(sizeof(int));
    PRECIS_CUDA_CHECK(cudaMemsetAsync(overflow_count_.get(), 0, sizeof(int), stream_));
    for (const EncodedRow& row : out.rows) {
        const auto* m = static_cast<const DeviceMemory*>(row.device_memory.get());
        if (m)
            count_non_finite(m->precision, m->memory.get(), int64_t(m->rows) * m->dim, overflow_count_.as<int>(),
                             stream_);
    }
    PRECIS_CUDA_CHECK(cudaMemcpyAsync(overflow_count_host_.as<int>(), overflow_count_.get(), sizeof(int),
                                      cudaMemcpyDeviceToHost, stream_));
}

GenerationResult CudaRunner::generate(const Model& model, const EncoderOutput& encoded, const GenerationConfig& cfg,
                                      const RunCallbacks& callbacks, bool /*keep_step_scores*/) {
    check(cfg.num_beams >= 1, "generation: num_beams must be at least 1");
    if (!takes_beams(cfg.num_beams))  // generate() sends those to the CPU; a direct caller falls back too
        throw DeviceFailure(beams_limit() + ", not " + std::to_string(cfg.num_beams));
    return guarded([&] {
        while (true) {
            try {
                return generate_once(model, encoded, cfg, callbacks);
            } catch (const NonFiniteScores& e) {
                // The decoder's activations overflowed: under --dtype auto, fp16 is left for
                // bf16 and the generation runs again from the same encoder output (uploaded
                // anew in the new precision); an fp16 asked for by name goes to the CPU.
                if (!automatic_ || precision_ != Precision::F16)
                    throw DeviceFailure(name_ + " could not decode this input (" + e.what() +
                                        "; --dtype auto or bf16 keeps such a model on the GPU)");
                leave_fp16(callbacks);
            }
        }
    });
}

GenerationResult CudaRunner::generate_once(const Model& model, const EncoderOutput& encoded,
                                           const GenerationConfig& cfg, const RunCallbacks& callbacks) {
    const DeviceModel& w = weights_for(model);
    std::vector<std::shared_ptr<const DeviceMemory>> held;
    std::vector<const DeviceMemory*> memories;
    for (const EncodedRow& row : encoded.rows) {
        held.push_back(device_copy(row));
        memories.push_back(held.back().get());
    }
    const int items = int(memories.size());
    const int K = cfg.num_beams;
    DeviceDecoder decoder(model, w, *gemm_, stream_, memories, K, effective_max_length(cfg));
    // Two events per span, recorded around work already ordered on the stream: cheap
    // enough to keep on, and what tells device time from host time per step.
    SpanTimer step_time, layers_time;
    step_time.enable(true);
    layers_time.enable(true);
    DeviceSearchSteps steps(decoder, items, K, model.config().vocab_size, effective_max_length(cfg), stream_,
                            {&step_time, &layers_time});
    const auto start = std::chrono::steady_clock::now();
    GenerationResult res = K == 1 ? stepped_greedy_search(steps, cfg, items, model.config().vocab_size, callbacks)
                                  : stepped_beam_search(steps, cfg, items, model.config().vocab_size, callbacks);
    stats_.decode_steps = res.steps;
    stats_.decode_wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    stats_.decode_device_seconds = step_time.collect();
    stats_.decode_layers_seconds = layers_time.collect();
    stats_.decode_steps_total += res.steps;
    stats_.decode_wall_total_seconds += stats_.decode_wall_seconds;
    stats_.decode_device_total_seconds += stats_.decode_device_seconds;
    stats_.decode_layers_total_seconds += stats_.decode_layers_seconds;
    stats_.peak_device_bytes = device_bytes_peak();
    return res;
}

// The encoder output as this runner left it on the device, or uploaded from the host (an
// output the CPU made, e.g. after a fallback, or another runner's, or one of this runner's
// made before it left fp16).
std::shared_ptr<const DeviceMemory> CudaRunner::device_copy(const EncodedRow& row) {
    auto device = std::static_pointer_cast<const DeviceMemory>(row.device_memory);
    if (device && device->runner_id == id_ && device->precision == precision_) return device;
    auto up = std::make_shared<DeviceMemory>();
    up->runner_id = id_;
    up->precision = precision_;
    const Tensor& memory = row.host_memory();
    up->rows = int(memory.dim(0));
    up->dim = memory.dim(1);
    // On the runner's stream, so the decoder's products that read it come after the copy.
    DeviceBuffer f32 = upload(memory.data<float>(), size_t(memory.numel()), stream_);
    up->mask = upload(row.memory_mask, stream_);
    if (precision_ == Precision::F32) {
        up->memory = std::move(f32);
    } else {
        up->memory = DeviceBuffer(size_t(memory.numel()) * bytes_of(precision_));
        convert_from_f32(precision_, f32.as<float>(), up->memory.get(), memory.numel(), stream_);
    }
    // The copies have read their host sources (the row's memory and mask) and the float32
    // copy is converted before it is freed: CUDA documents that a copy from pageable
    // memory returns after its bytes were staged only for the synchronous cudaMemcpy.
    PRECIS_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return up;
}

void CudaRunner::run_guarded(const std::function<void()>& work) { guarded(work); }

// The top-k kernel's candidates: a beam search keeps BeamBook::keep_for(beams) = 2 x beams.
int CudaRunner::max_beams() const { return kMaxTopK / 2; }

std::unique_ptr<BatchDecoder> CudaRunner::batch_decoder(const Model& model, const BatchDecoderShape& shape) {
    check(shape.documents >= 1 && shape.beams >= 1, "batch decoder: at least one document of one row is needed");
    // The batch loop sends searches of more beams to the CPU (max_beams); refused here too.
    if (!takes_beams(shape.beams)) throw DeviceFailure(beams_limit() + ", not " + std::to_string(shape.beams));
    std::unique_ptr<BatchDecoder> made;
    guarded([&] {
        const DeviceModel& w = weights_for(model);
        made = std::make_unique<DeviceBatchDecoder>(*this, model, w, *gemm_, stream_, shape);
    });
    return made;
}

bool CudaRunner::widen_after_overflow(const RunCallbacks& callbacks) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!automatic_ || precision_ != Precision::F16) return false;
    leave_fp16(callbacks);
    return true;
}

void CudaRunner::count_decode_step(double wall_seconds, double device_seconds, double layers_seconds) {
    ++stats_.decode_steps_total;
    stats_.decode_wall_total_seconds += wall_seconds;
    stats_.decode_device_total_seconds += device_seconds;
    stats_.decode_layers_total_seconds += layers_seconds;
    stats_.peak_device_bytes = device_bytes_peak();
}

RunnerStats CudaRunner::stats() const { return stats_; }

uint64_t CudaRunner::free_memory_bytes() const {
    size_t free_b = 0, total_b = 0;
    if (cudaSetDevice(device_) != cudaSuccess || cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) return 0;
    return free_b;
}

void CudaRunner::reset_stats() {
    stats_ = {};
    reset_device_bytes_peak();
}

void CudaRunner::set_profiling(bool on) { profiling_ = on; }

}  // namespace precis::cuda
