#pragma once
// The BART decoder with an incremental self-attention cache. One DecoderState serves a
// whole generation: each decoder row (a beam) points at its batch item's encoder
// output, whose cross-attention keys/values are computed once per item and shared by
// all of that item's beams (never copied per beam). Buffers are sized up front, so
// a decoding step allocates nothing.
#include <cstdint>
#include <vector>

#include "engine/core/tensor.h"
#include "engine/model/cross_memory.h"
#include "engine/model/encoder.h"

namespace precis {

class Backend;
class Model;

class DecoderState {
public:
    // rows_per_item: decoder rows (beams) per batch item; max_length: longest sequence
    // (start token included) the cache must hold; max_new: most tokens one forward() adds.
    DecoderState(const Model& model, Backend& backend, const EncoderOutput& encoded, int rows_per_item,
                 int max_length, int max_new = 1);

    int rows() const { return rows_; }
    int length() const { return length_; }
    int item_of_row(int row) const { return row / rows_per_item_; }

    // Appends `new_len` tokens to every row (tokens: [rows, new_len]) and runs the
    // decoder on them. Afterwards hidden() holds the last layer output [rows*new_len, D].
    // layer_states (optional) receives [rows, new_len, D] after the embeddings and each layer.
    void forward(const int64_t* tokens, int new_len, std::vector<Tensor>* layer_states = nullptr);
    const float* hidden() const { return x_.data<float>(); }

    // logits[rows_sel, V] = hidden row i's last position * shared^T + final_logits_bias,
    // for the rows listed (all rows when empty).
    void logits(float* out, int new_len = 1) const;

    // Beam reordering: row r continues the cache of row parents[r].
    void reorder(const std::vector<int>& parents);

    // On request (one row only): cross-attention weights of every later forward() are
    // summed, over layers, heads and positions, into sink[S] (S = the encoder memory rows).
    void set_cross_attention_sink(float* sink);

private:
    const Model& model_;
    Backend& be_;
    int rows_, rows_per_item_, max_length_, max_new_, length_ = 0;
    int64_t D_, F_, heads_, hd_;
    std::vector<Tensor> self_k_, self_v_;      // per layer [rows, max_length, D]
    std::vector<CrossMemory> cross_;           // per layer, per item
    std::vector<const float*> cross_mask_;     // per item
    const EncoderOutput& encoded_;
    Tensor x_, q_, ctx_, tmp_, hidden_;
    Tensor reorder_buf_;                       // beam reordering, allocated on first use
    std::vector<std::vector<float>> scratch_;  // per thread attention scores
    float* cross_sink_ = nullptr;
};

}  // namespace precis
