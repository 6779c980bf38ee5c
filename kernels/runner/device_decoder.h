#pragma once
// The BART decoder on the device, for one generation: self-attention caches sized up front,
// cross-attention keys/values computed once per document and read by all its beams, and
// float32 logits for the search. Mirrors engine/model/decoder.h; a step allocates nothing.
//
// A one-token step is about a hundred small launches (cuBLAS products, norms, attention),
// each shorter than the host takes to issue it; so the step's layers are captured once as a
// CUDA graph and replayed: the kernels that depend on the step read the cache length from
// device memory, and the host only copies the new ids and that length before each replay.
// The first step runs eagerly (it sizes every scratch buffer, so nothing allocates while
// capturing); a capture the driver refuses falls back to eager steps. PRECIS_CUDA_GRAPHS=0
// turns the graph off (for comparing the two).
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "kernels/device_buffer.h"
#include "kernels/ops/cross_attention.h"
#include "kernels/ops/decoder_attention.h"
#include "kernels/ops/precision.h"

namespace precis {
class Model;
}

namespace precis::cuda {

class DeviceModel;
class Gemm;
struct DeviceMemory;

class DeviceDecoder {
public:
    // memories: one per batch item (the encoder's output on the device); rows_per_item beams
    // each; max_length: longest sequence (start token included); max_new: most tokens a
    // forward() adds per row.
    DeviceDecoder(const Model& model, const DeviceModel& weights, Gemm& gemm, cudaStream_t stream,
                  const std::vector<const DeviceMemory*>& memories, int rows_per_item, int max_length,
                  int max_new = 1);
    ~DeviceDecoder();
    DeviceDecoder(const DeviceDecoder&) = delete;
    DeviceDecoder& operator=(const DeviceDecoder&) = delete;

    int rows() const { return rows_; }
    int length() const { return length_; }

    // Appends new_len tokens (host ids, [rows, new_len]) to every row and runs the layers.
    void forward(const int64_t* tokens, int new_len);
    // float32 logits [rows*new_len, V] of the last forward, on the device.
    const float* logits(int new_len = 1);
    // Row r continues the history of row parents[r]; unchanged rows are not copied.
    void reorder(const std::vector<int>& parents);
    // Whether one-token steps replay a captured graph (false after a refused capture).
    bool step_graph_in_use() const { return step_exec_ != nullptr; }

private:
    void layers(int new_len);  // every decoder layer, reading ids_ and the device length
    void replay_step();         // layers(1) through the step graph, capturing it on first need
    const Model& model_;
    const DeviceModel& w_;
    Gemm& gemm_;
    cudaStream_t stream_;
    Precision p_;
    int rows_, rows_per_item_, max_length_, max_new_, length_ = 0;
    int64_t D_, F_, V_;
    int heads_, hd_;
    std::vector<DeviceBuffer> self_k_, self_v_;    // per layer [rows, max_length, D]
    std::vector<DeviceBuffer> cross_k_, cross_v_;  // per layer [total memory rows, D]
    DeviceBuffer cross_mask_, offsets_;
    int max_memory_rows_ = 0;
    MemoryAttention cross_attention_;
    DeviceBuffer ids_, x_, q_, ctx_, tmp_, hidden_, logits_;
    PinnedBuffer host_ids_;  // int32 [rows * new_len] ids, then the cache length: one copy per step
    CacheReorder reorder_;
    bool graphs_ = true;          // PRECIS_CUDA_GRAPHS != 0 and no capture refused yet
    int eager_steps_ = 0;
    cudaGraphExec_t step_exec_ = nullptr;
};

}  // namespace precis::cuda
