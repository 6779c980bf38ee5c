#pragma once
// The continuous batch's decoder on the GPU (engine/generate/batch_decoder.h): a
// DeviceDecoder whose slots documents join and leave between steps, and every present
// document's search step at once on the device (device_candidates.h): each row under its own
// document's rules and length, the beams' running scores added, and each slot's top
// candidates, of which only those come back. The host's
// part of the step (which row is fed which token, with which rules and score, how the choices
// are read back, which rows a reorder moves) is engine/generate/slot_step.h, which the CPU's
// tests run on every fixture case.
#include <cuda_runtime.h>

#include <chrono>
#include <memory>
#include <vector>

#include "engine/generate/model_runner.h"
#include "engine/generate/slot_step.h"
#include "kernels/device_buffer.h"
#include "kernels/runner/device_candidates.h"
#include "kernels/runner/device_decoder.h"
#include "kernels/span_timer.h"

namespace precis::cuda {

class CudaRunner;

class DeviceBatchDecoder final : public BatchDecoder {
public:
    // Made inside the runner's guard (CudaRunner::batch_decoder); every call after goes
    // through it again.
    DeviceBatchDecoder(CudaRunner& runner, const Model& model, const DeviceModel& weights, Gemm& gemm,
                       cudaStream_t stream, const BatchDecoderShape& shape);
    ~DeviceBatchDecoder() override;

    int free_rows() const override { return dec_.slots().free_slots() * width_; }
    bool accepts(int beams) const override { return beams == width_; }
    bool outdated() const override;
    int join(const EncodedRow& document, int beams) override;
    void leave(int item) override;
    void step(std::vector<DocumentStep*>& docs) override;
    void reorder(const std::vector<DocumentStep*>& docs) override;
    // Whether its one-token steps replay a captured graph (DeviceDecoder::step_graph_in_use).
    bool step_graph_in_use() const { return dec_.step_graph_in_use(); }

private:
    CudaRunner& runner_;
    Precision precision_;  // the runner's when this was made; its weights are freed when that changes
    cudaStream_t stream_;
    DeviceDecoder dec_;
    int width_;
    DeviceCandidates candidates_;
    SlotStepInputs plan_;
    std::vector<int> parents_;
    SpanTimer step_time_, layers_time_;
};

}  // namespace precis::cuda
