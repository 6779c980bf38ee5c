#include "kernels/runner/device_batch_decoder.h"

#include <algorithm>
#include <string>

#include "engine/core/error.h"
#include "engine/model/model.h"
#include "kernels/cuda_check.h"
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
      candidates_(dec_.rows(), shape.beams, model.config().vocab_size, shape.max_length, stream) {
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
            // Only the rows through the last occupied slot need logits and candidates.
            candidates_.queue(const_cast<float*>(dec_.logits(1, plan_.rows)), plan_.rows, plan_.rules,
                              plan_.histories, plan_.beam_scores);
        }
        PRECIS_CUDA_CHECK(cudaStreamSynchronize(stream_));
        read_slot_choices(dec_.slots(), docs, candidates_.values(), candidates_.indices(),
                          candidates_.forced_logprobs());
        runner_.count_decode_step(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                                  step_time_.collect(), layers_time_.collect());
    });
}

void DeviceBatchDecoder::reorder(const std::vector<DocumentStep*>& docs) {
    runner_.run_guarded([&] {
        if (slot_parents(dec_.slots(), docs, parents_)) dec_.reorder(parents_);
    });
}

}  // namespace precis::cuda
