#pragma once
// The BART decoder with an incremental self-attention cache. One DecoderState serves a
// whole generation of many documents: each decoder row (a beam) belongs to one document,
// whose cross-attention keys/values are computed once when it joins and shared by all of
// its beams (never copied per beam). Documents may join and leave between steps
// (continuous batching): a finished document's cache rows go to the next one at once, and
// every row keeps its own length and positions, so a row's values are what it would get
// decoded alone. Buffers are sized up front, so a decoding step allocates nothing.
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/core/tensor.h"
#include "engine/model/cross_memory.h"
#include "engine/model/encoder.h"

namespace precis {

class Backend;
class Model;

class DecoderState {
public:
    // Every document of `encoded` joined at once, rows_per_item rows each; max_length:
    // longest sequence (start token included) the cache must hold; max_new: most tokens
    // one forward() adds.
    DecoderState(const Model& model, Backend& backend, const EncoderOutput& encoded, int rows_per_item,
                 int max_length, int max_new = 1);
    // Empty, with cache room for `capacity_rows` rows of max_length tokens: documents
    // join() and leave() while it runs.
    DecoderState(const Model& model, Backend& backend, int capacity_rows, int max_length);

    // Adds a document with `rows` empty rows after the rows present; projects its
    // cross-attention keys/values now (the encoded row is not kept). Returns its item id.
    int join(const EncodedRow& document, int rows);
    // Removes a document: its rows leave the step, and their cache rows are free.
    void leave(int item);
    int free_rows() const { return int(free_.size()); }
    int capacity_rows() const { return capacity_; }
    // Bytes a capacity-row decoder holds before any document joins (the caches, the
    // step's activations and logits), and what one document of S memory rows adds.
    static uint64_t bytes_for_rows(const Model& model, int rows, int max_length);
    static uint64_t bytes_for_document(const Model& model, int64_t memory_rows);
    // Every layer's cross-attention bytes per encoder position (CrossMemory::bytes_per_position).
    static uint64_t bytes_per_memory_row(const Model& model);

    // The rows of the step, in order: each present document's rows, in join order.
    int rows() const { return int(active_.size()); }
    int length() const;                   // tokens in row 0 (every row, when all joined at once)
    int row_length(int row) const { return length_[size_t(active_[size_t(row)])]; }
    int item_of_row(int row) const { return row_item_[size_t(row)]; }
    int first_row_of(int item) const;     // where the item's rows start among rows()

    // Appends `new_len` tokens to every row (tokens: [rows, new_len]) and runs the
    // decoder on them. Afterwards hidden() holds the last layer output [rows*new_len, D].
    // layer_states (optional) receives [rows, new_len, D] after the embeddings and each layer.
    void forward(const int64_t* tokens, int new_len, std::vector<Tensor>* layer_states = nullptr);
    const float* hidden() const { return x_.data<float>(); }

    // logits[rows*new_len, V] = the last forward's hidden rows * shared^T + final_logits_bias.
    void logits(float* out, int new_len = 1) const;

    // Beam reordering: row r continues the cache of row parents[r] (rows of one document).
    void reorder(const std::vector<int>& parents);

    // How many joining documents took a departed one's cross-attention buffer, and how many
    // such buffers are held now (tests).
    int cross_buffers_reused() const { return cross_buffers_reused_; }
    int spare_cross_buffers() const { return int(spare_cross_.size()); }

    // On request (one row only): cross-attention weights of every later forward() are
    // summed, over layers, heads and positions, into sink[S] (S = the encoder memory rows).
    void set_cross_attention_sink(float* sink);

private:
    struct Item {
        std::vector<int> cache_rows;        // its rows' places in the caches, beam order
        std::vector<CrossMemory> cross;     // per layer, views into cross_buffer
        std::shared_ptr<Tensor> cross_buffer;
        std::vector<float> mask;            // cross-attention key mask [S]
        bool present = false;
    };
    void allocate(int capacity_rows, int max_new);
    void populate_cache_rows(int new_len);  // the positions the next forward() writes
    void lay_out();  // active_, row_item_ and groups_ from the items present, in join order
    // The smallest spare buffer that holds a document of memory_rows, or none (and then no
    // spares are kept).
    std::shared_ptr<Tensor> take_spare_cross(int64_t memory_rows);

    const Model& model_;
    Backend& be_;
    int capacity_, max_length_, max_new_;
    int64_t D_, F_, heads_, hd_;
    std::vector<Tensor> self_k_, self_v_;  // per layer [capacity, max_length, D]
    std::vector<int> length_;              // per cache row
    std::vector<int> populated_;           // per cache row: positions made resident so far
    std::vector<Item> items_;
    std::vector<int> order_;               // present items in join order
    std::vector<int> free_;                // cache rows no item holds
    std::vector<int> active_;              // step row -> cache row
    std::vector<int> row_item_;            // step row -> item
    struct Group { int item, first, count; };
    std::vector<Group> groups_;            // each present item's run of step rows
    // The cross-attention buffers of documents that left, for the next ones to join: fresh
    // memory is zeroed by the kernel, and on the VM we measure on that took 0.6 s of the
    // 32-document fp32 beam-4 batch (760 MB at 0.6-0.7 GB/s a thread). Batches run longest
    // first (batch_plan.h), so a leaving document's buffer holds any document still waiting.
    std::vector<std::shared_ptr<Tensor>> spare_cross_;
    int cross_buffers_reused_ = 0;
    Tensor x_, q_, ctx_, tmp_, hidden_;
    Tensor reorder_buf_;                   // beam reordering, allocated on first use
    std::vector<std::vector<float>> scratch_;  // per thread attention scores
    float* cross_sink_ = nullptr;
};

}  // namespace precis
