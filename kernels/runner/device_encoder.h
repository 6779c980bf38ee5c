#pragma once
// The BART / LSG-BART encoder on the device (engine/model/encoder.cpp's numerics): embedding,
// post-LN layers whose self-attention is full, LSG or Fovea (kernels/ops/encoder_attention.h),
// and the hand-over to the decoder. The output stays on the device for generation and is
// also copied to the host, where the attention panel, the classifier head and parity
// checks read it.
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "engine/model/encoder.h"
#include "kernels/device_buffer.h"
#include "kernels/ops/encoder_attention.h"

namespace precis::cuda {

class DeviceModel;
class Gemm;
class SpanTimer;

// Two events, so that the host waits for layer l - 1 while layer l is queued: progress (and
// a prompt cancel) per layer, without the GPU idling while the host issues the next layer.
class LayerFence {
public:
    LayerFence() = default;
    ~LayerFence();
    LayerFence(const LayerFence&) = delete;
    LayerFence& operator=(const LayerFence&) = delete;
    void mark(int layer, cudaStream_t stream);  // after everything `layer` queued
    void wait(int layer);                       // until a marked layer (one of the last two) is done

private:
    cudaEvent_t events_[2] = {nullptr, nullptr};
};

// Buffers one runner reuses from input to input: grown to the longest, never per layer.
struct EncoderWorkspace {
    DeviceBuffer ids, key_mask, x, q, k, v, ctx, tmp, hidden;
    DeviceBuffer lsh_r[2];  // by layer parity: the next layer's are copied while this one runs
    DeviceSelfAttention attention;
    LayerFence fence;
};

struct EncoderCall {
    const Model& model;
    const DeviceModel& weights;
    Gemm& gemm;
    cudaStream_t stream;
    EncoderWorkspace& workspace;
    SpanTimer& products;   // the matrix products' device time, when enabled
    SpanTimer& attention;  // the self-attention's
    uint64_t runner_id;
};

EncoderOutput device_encode(const EncoderCall& call, const std::vector<std::vector<int64_t>>& ids,
                            const std::vector<std::vector<int64_t>>& masks, const AttentionOptions& attention,
                            const RunCallbacks& callbacks, bool keep_layer_states);

}  // namespace precis::cuda
