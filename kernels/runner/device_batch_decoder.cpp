#include "kernels/runner/device_batch_decoder.h"

#include <algorithm>
#include <string>

#include "engine/core/error.h"
#include "engine/model/model.h"
#include "kernels/cuda_check.h"
#include "kernels/ops/search_step.h"
#include "kernels/runner/cuda_runner.h"
#include "kernels/runner/device_memory.h"
#include "kernels/runner/device_model.h"

namespace precis::cuda {

DeviceBatchDecoder::DeviceBatchDecoder(CudaRunner& runner, const Model& model, const DeviceModel& weights,
                                       Gemm& gemm, cudaStream_t stream, const BatchDecoderShape& shape)
    : runner_(runner),
      precision_(weights.precision()),
      stream_(stream),
      dec_(model, weights, gemm, stream, shape.documents, shape.beams, shape.max_length, shape.memory_rows),
      width_(shape.beams),
      keep_(shape.beams == 1 ? 1 : BeamBook::keep_for(shape.beams)),  // greedy: the best token
      V_(model.config().vocab_size),
      history_(dec_.rows(), shape.max_length, stream) {
    const int rows = dec_.rows(), slots = shape.documents;
    const size_t n_top = size_t(slots) * size_t(keep_);  // greedy: one a row, and a slot is a row
    rules_ = DeviceBuffer(size_t(rows) * sizeof(RowRules));
    if (width_ > 1) beam_scores_ = DeviceBuffer(size_t(rows) * sizeof(float));
    else forced_logprob_ = DeviceBuffer(size_t(rows) * sizeof(float));
    values_ = DeviceBuffer(n_top * sizeof(float));
    indices_ = DeviceBuffer(n_top * sizeof(int64_t));
    const size_t scratch = topk_scratch_bytes(slots, int64_t(width_) * V_, keep_);
    if (scratch > 0) scratch_ = DeviceBuffer(scratch);
    up_ = PinnedBuffer(size_t(rows) * (sizeof(RowRules) + sizeof(float)));
    down_ = PinnedBuffer(n_top * (sizeof(int64_t) + sizeof(float)) + size_t(rows) * sizeof(float));
    // Two events per span, recorded around work already ordered on the stream: what tells
    // device time from host time per step (precis bench's decode_step_split).
    step_time_.enable(true);
    layers_time_.enable(true);
}

DeviceBatchDecoder::~DeviceBatchDecoder() = default;

bool DeviceBatchDecoder::outdated() const { return runner_.precision() != precision_; }

int DeviceBatchDecoder::join(const EncodedRow& document, int beams) {
    check(beams == width_, "batch decoder: this decoder's documents have " + std::to_string(width_) + " beams, not " +
                               std::to_string(beams));
    int slot = 0;
    runner_.run_guarded([&] {
        // The encoder's output as this runner left it on the device, or uploaded (an output
        // the CPU made after a fallback); freed once its keys are in the pool.
        const std::shared_ptr<const DeviceMemory> memory = runner_.device_copy(document);
        slot = dec_.join(*memory);
    });
    return slot;
}

void DeviceBatchDecoder::leave(int item) {
    runner_.run_guarded([&] { dec_.leave(item); });
}

void DeviceBatchDecoder::step(std::vector<DocumentStep*>& docs) {
    runner_.run_guarded([&] {
        const auto start = std::chrono::steady_clock::now();
        plan_slot_step(dec_.slots(), docs, plan_);
        {
            TimedSpan whole(step_time_, stream_);
            {
                TimedSpan layers(layers_time_, stream_);
                dec_.forward(plan_.tokens.data(), 1);
            }
            search(plan_);
        }
        PRECIS_CUDA_CHECK(cudaStreamSynchronize(stream_));
        const int64_t* indices = down_.as<int64_t>();
        const size_t n_top = size_t(dec_.slots().slot_count()) * size_t(keep_);
        const float* values = reinterpret_cast<const float*>(indices + n_top);
        read_slot_choices(dec_.slots(), docs, values, indices, values + n_top);
        runner_.count_decode_step(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                                  step_time_.collect(), layers_time_.collect());
    });
}

// The planned rows' scores, processed under each row's rules, and their top candidates,
// queued with their copies into down_ (indices, values, then the forced rows'
// log-probabilities); the caller synchronizes.
void DeviceBatchDecoder::search(const SlotStepInputs& plan) {
    const int rows = plan.rows;
    float* scores = const_cast<float*>(dec_.logits(1, rows));
    RowRules* rules = up_.as<RowRules>();
    float* beam_scores = reinterpret_cast<float*>(rules + dec_.rows());
    for (int r = 0; r < rows; ++r) rules[r] = row_rules(plan.rules[size_t(r)], V_, history_.stride());
    PRECIS_CUDA_CHECK(
        cudaMemcpyAsync(rules_.get(), rules, size_t(rows) * sizeof(RowRules), cudaMemcpyHostToDevice, stream_));
    if (width_ > 1) {
        std::copy_n(plan.beam_scores.begin(), rows, beam_scores);
        PRECIS_CUDA_CHECK(cudaMemcpyAsync(beam_scores_.get(), beam_scores, size_t(rows) * sizeof(float),
                                          cudaMemcpyHostToDevice, stream_));
    }
    log_softmax_process_rows(scores, rows, V_, history_.upload(plan.histories), history_.stride(),
                             width_ > 1 ? beam_scores_.as<float>() : nullptr, rules_.as<RowRules>(), stream_,
                             width_ > 1 ? nullptr : forced_logprob_.as<float>());
    // Greedy: every row's first best token (log-softmax shifts a row by a constant, so it is
    // the processed logits' first maximum, as the CPU's greedy_pick takes). Beam search:
    // every slot's best candidates over its beams, free or finished slots too, which nothing
    // reads.
    const int groups = rows / width_;
    top_k(scores, groups, int64_t(width_) * V_, keep_, values_.as<float>(), indices_.as<int64_t>(), scratch_.get(),
          stream_);
    const size_t n = size_t(groups) * size_t(keep_), n_top = size_t(dec_.slots().slot_count()) * size_t(keep_);
    int64_t* host_indices = down_.as<int64_t>();
    float* host_values = reinterpret_cast<float*>(host_indices + n_top);
    PRECIS_CUDA_CHECK(
        cudaMemcpyAsync(host_indices, indices_.get(), n * sizeof(int64_t), cudaMemcpyDeviceToHost, stream_));
    PRECIS_CUDA_CHECK(cudaMemcpyAsync(host_values, values_.get(), n * sizeof(float), cudaMemcpyDeviceToHost, stream_));
    if (width_ == 1)
        PRECIS_CUDA_CHECK(cudaMemcpyAsync(host_values + n_top, forced_logprob_.get(), size_t(rows) * sizeof(float),
                                          cudaMemcpyDeviceToHost, stream_));
}

void DeviceBatchDecoder::reorder(const std::vector<DocumentStep*>& docs) {
    runner_.run_guarded([&] {
        if (slot_parents(dec_.slots(), docs, parents_)) dec_.reorder(parents_);
    });
}

}  // namespace precis::cuda
