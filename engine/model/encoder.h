#pragma once
// The BART / LSG-BART encoder: embeddings (plus LSG global tokens and adaptive
// padding), post-LN layers with a pluggable self-attention, and the hand-over to the
// decoder (lsg-spec sections 2 and 4).
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "engine/core/tensor.h"
#include "engine/model/run_options.h"

namespace precis {

class Backend;
class Model;

struct EncodedRow {
    // [S, D]: what the decoder cross-attends to. A device runner keeps it on the device and
    // leaves this empty with fetch_memory set: generating there never copies it back, and
    // host_memory() fetches it on first use (CPU decoder, classifier head, parity output).
    mutable Tensor memory;
    std::function<Tensor()> fetch_memory;
    const Tensor& host_memory() const;
    int64_t memory_rows() const { return int64_t(memory_mask.size()); }
    std::vector<float> memory_mask;   // [S] additive: 0 or lowest float
    std::vector<Tensor> layer_states; // on request: [G + padded, D] after embeddings and after each layer
    int input_length = 0;             // tokens in the row as given (padding included)
    int padded_length = 0;            // after LSG adaptive padding
    int num_global = 0;               // global rows prepended (0 for plain BART)
    bool sparse_path = false;         // LSG block-sparse path taken (else full attention)
    // Set by a device runner: its own copy of `memory` (and mask), which its decoder reads
    // in place; opaque to everything else.
    std::shared_ptr<const void> device_memory;
};

struct EncoderOutput {
    std::vector<EncodedRow> rows;
};

// Inputs of a few hundred tokens leave the products short of their speed: oneDNN's sgemm on
// two threads, the weights read from memory, ran bart-base's shapes at 380-450 GFLOP/s on
// 256-576 rows and 480-500 on 2,048 (2-core AMD EPYC with AVX-512). So consecutive inputs
// of one call share the layers' products up to this many rows, where the backend keeps
// each row's bits as they are alone (Backend::row_exact_linear); the attention stays each
// input's own. It is also the feed-forward layer's chunk of rows.
constexpr int64_t kEncoderSharedRows = 2048;

// While one lives, encoder runs on this thread keep the layers' working buffers (q, and k|v|ctx
// or the feed-forward chunk) between runs for inputs of up to kEncoderSharedRows rows: a
// document batch encodes a few documents every few steps, and buffers fresh from the system
// cost their page faults each time (bart-base's 31 MB took 0.3 s of the 5.5 s that a
// 32-document batch spent encoding, on a 2-core VM). Longer inputs still get buffers of
// their own, freed when they are done; the kept ones are freed with the last scope.
class EncoderBuffersKept {
public:
    EncoderBuffersKept();
    ~EncoderBuffersKept();
    EncoderBuffersKept(const EncoderBuffersKept&) = delete;
    EncoderBuffersKept& operator=(const EncoderBuffersKept&) = delete;
};

// ids and masks: one vector per batch row (rows may differ in length; masks may be
// empty meaning all ones). Throws precis::Error for ids outside the vocabulary or
// inputs longer than the position table, precis::Cancelled on abort.
EncoderOutput run_encoder(const Model& model, Backend& backend, const std::vector<std::vector<int64_t>>& ids,
                          const std::vector<std::vector<int64_t>>& masks, const AttentionOptions& attention,
                          const RunCallbacks& callbacks, bool keep_layer_states = false);

// One input row as every encoder (CPU or device) lays it out: G global rows prepended, the
// tokens padded (LSG adaptive padding) with pad_token_id, the additive key mask of all G+T
// rows (mask_first_token applied), and whether the LSG block-sparse path runs. Throws
// precis::Error naming the problem: an empty row, a mask of another length, LSG attention
// on a plain checkpoint, a length not a multiple of the block size with adaptive padding
// off, more tokens than the position table.
struct EncoderRowInput {
    int length = 0;  // tokens as given
    int global = 0;
    int padded = 0;
    bool sparse = false;
    std::vector<int64_t> ids;    // [padded]
    std::vector<float> key_mask;  // [global + padded]: 0 or lowest float
};
EncoderRowInput prepare_encoder_row(const Model& model, const AttentionOptions& attention,
                                    const std::vector<std::vector<int64_t>>& ids,
                                    const std::vector<std::vector<int64_t>>& masks, size_t row);

// Which encoder rows the decoder reads (lsg-spec section 4): with pass_global_tokens_to_decoder
// (or no globals) rows [0, G+T), the padding cropped; else rows [G, G+T), and with
// pool_with_global row G takes row 0's values first. The cross-attention mask is the key
// mask of the same rows.
struct DecoderMemoryRows {
    int first = 0, count = 0;
    bool pool_global = false;
};
DecoderMemoryRows decoder_memory_rows(const AttentionOptions& attention, int num_global, int input_length);

// Attention options for a model as saved (LSG settings from its config).
AttentionOptions native_attention_options(const Model& model);

}  // namespace precis
