#pragma once
// The BART decoder on the device: self-attention caches sized up front, cross-attention
// keys/values computed once per document and read by all its beams, and float32 logits for
// the search. Mirrors engine/model/decoder.h; a step allocates nothing.
//
// Its rows are slots (engine/model/decoder_slots.h): a document joins a free slot of
// `width` rows (its beams) and leaves it between steps, each row with its own cache length,
// and the documents' keys and values live in one pool read by one attention launch. So one
// decoder serves a whole generation (every document joined at once) and a continuous batch
// (documents joining as others finish) alike.
//
// A one-token step is about a hundred small launches (cuBLAS products, norms, attention),
// each shorter than the host takes to issue it; so the step's layers are captured once as a
// CUDA graph over every slot's rows and replayed: the kernels that depend on the step read
// the rows' cache lengths from device memory, and the host only copies the new ids and those
// lengths before each replay. The first step runs eagerly (it sizes every scratch buffer,
// so nothing allocates while capturing); a capture the driver refuses falls back to eager
// steps; a pool that grows, or a longer document than any before, makes the next steps
// capture again. PRECIS_CUDA_GRAPHS=0 turns the graph off (for comparing the two).
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "engine/model/decoder_slots.h"
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
    // Empty: `slots` documents of `width` rows each may join. max_length: longest sequence
    // (start token included); pool_rows: the documents' memory rows the keys' pool is sized
    // for up front (it grows when a document needs more); max_new: most tokens a forward()
    // adds per row.
    DeviceDecoder(const Model& model, const DeviceModel& weights, Gemm& gemm, cudaStream_t stream, int slots,
                  int width, int max_length, int64_t pool_rows, int max_new = 1);
    // Every document of `memories` joined at once, in order (slot i is memories[i]).
    DeviceDecoder(const Model& model, const DeviceModel& weights, Gemm& gemm, cudaStream_t stream,
                  const std::vector<const DeviceMemory*>& memories, int rows_per_item, int max_length,
                  int max_new = 1);
    ~DeviceDecoder();
    DeviceDecoder(const DeviceDecoder&) = delete;
    DeviceDecoder& operator=(const DeviceDecoder&) = delete;

    int rows() const { return slots_.rows(); }
    int length() const { return slots_.longest_row(); }
    const DecoderSlots& slots() const { return slots_; }

    // Takes a free slot for the document (the encoder's output on the device, in this
    // decoder's precision) and projects its cross-attention keys/values into the pool.
    // Returns the slot; its rows start empty.
    int join(const DeviceMemory& memory);
    void leave(int slot);

    // Appends new_len tokens (host ids, [rows, new_len], every slot's rows; free slots' rows
    // any valid id) to every row and runs the layers.
    void forward(const int64_t* tokens, int new_len);
    // float32 logits [rows*new_len, V] of the last forward, on the device, for its first
    // `rows` rows (-1: all).
    const float* logits(int new_len = 1, int rows = -1);
    // Row r continues the history of row parents[r]; unchanged rows are not copied.
    void reorder(const std::vector<int>& parents);
    // Whether one-token steps replay a captured graph (false after a refused capture).
    bool step_graph_in_use() const { return step_exec_ != nullptr; }

private:
    void layers(int new_len);  // every decoder layer, reading ids_ and the rows' lengths
    void replay_step();         // layers(1) through the step graph, capturing it on first need
    void drop_step_graph();     // the graph names buffers or sizes that changed: capture anew
    void grow_pool(int64_t rows);
    void upload_key_ranges();

    const Model& model_;
    const DeviceModel& w_;
    Gemm& gemm_;
    cudaStream_t stream_;
    Precision p_;
    DecoderSlots slots_;
    int max_length_, max_new_;
    int64_t D_, F_, V_;
    int heads_, hd_;
    std::vector<DeviceBuffer> self_k_, self_v_;    // per layer [rows, max_length, D]
    std::vector<DeviceBuffer> cross_k_, cross_v_;  // per layer [pool rows, D]
    DeviceBuffer cross_mask_;                      // float32 [pool rows]
    int64_t pool_capacity_ = 0;                    // rows the pool buffers hold
    DeviceBuffer key_ranges_;                      // int32 [slots] region starts, then [slots] key counts
    PinnedBuffer host_key_ranges_;                 // their staging: see upload_key_ranges
    cudaEvent_t key_ranges_read_ = nullptr;        // recorded after each copy of it
    int max_keys_ = 0;  // the attention's grid is sized for it: the largest region
    MemoryAttention cross_attention_;
    DeviceBuffer ids_, x_, q_, ctx_, tmp_, hidden_, logits_;
    PinnedBuffer host_ids_;  // int32 [rows * new_len] ids, then [rows] cache lengths: one copy per step
    CacheReorder reorder_;
    bool graphs_ = true;          // PRECIS_CUDA_GRAPHS != 0 and no capture refused yet
    int eager_steps_ = 0;
    cudaGraphExec_t step_exec_ = nullptr;
};

}  // namespace precis::cuda
