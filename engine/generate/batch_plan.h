#pragma once
// Which documents generate together: the planning half of the continuous batch
// (document_batch.h), shared by the CPU and device paths and free of any model work, so
// it is tested on its own.
//   - Longest first: the batch meets its largest memory at the start, where running out
//     costs least, and documents of similar length run side by side.
//   - A batch is bounded twice: by documents (rows of the step) and by bytes (the
//     documents' cross-attention memory and the decoder's caches), whichever binds first.
//   - `auto` picks both from the memory free and the model's size; running out of memory
//     halves the document bound and the batch goes on.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/model/compute_type.h"

namespace precis {

class Model;
struct BartWeights;

struct BatchLimits {
    int max_documents = 1;       // documents in the step at once
    uint64_t memory_bytes = 0;   // what the batch may hold (caches and documents); 0: no bound
    bool automatic = false;      // chosen by auto_batch_limits()

    // Half the documents (at least one); false when already at one.
    bool halve();
};

// The documents' indices, longest first (equal lengths keep their order).
std::vector<int> longest_first(const std::vector<int>& lengths);

// Consecutive documents of `order` in groups of at most max_documents whose padded size
// (documents x the longest one's tokens) stays within token_budget (0: no budget); a
// document longer than the budget runs alone; with `together`, a document joins a group
// only if together(first of the group, it) (the same settings, say). For runners that take
// a batch whole.
std::vector<std::vector<int>> group_in_order(const std::vector<int>& order, const std::vector<int>& lengths,
                                             int max_documents, int64_t token_budget,
                                             const std::function<bool(int, int)>& together = {});

// What one document costs a batch while it decodes, and what the batch's fixed part costs
// (engine/model/decoder.h's own estimates, with the encoder output a document keeps).
struct DocumentCost {
    uint64_t per_row = 0;       // caches and step buffers of one decoder row
    uint64_t per_memory_row = 0;  // cross-attention keys/values (all layers) per encoder token, and its encoding
    uint64_t read_per_memory_row = 0;  // of which a step reads: the keys and values
    // What a CPU step reads once for all its documents: the decoder's weights and the LM
    // head. 0: no bound from it (a device, whose steps gain from rows in other ways).
    uint64_t shared_step_bytes = 0;
};
DocumentCost document_cost(const Model& model, int max_length);
// The bytes of the weights a decoding step reads once whatever its rows (DocumentCost::shared_step_bytes).
uint64_t decoder_step_weight_bytes(const BartWeights& weights);

// The decoder rows a step of `auto`'s batch aims for: past them another document buys
// little time and costs its memory. A device step is far from its products' peak at a few
// dozen rows: 256. On the CPU a step reads every weight once whatever its rows, so rows are
// nearly free until the products' arithmetic catches up; measured on a 2-core AVX-512 VM
// (32 documents of 128-1,024 tokens, 64 new tokens, beam 4, so 64 rows = 16 documents):
//   - fp32: 64 rows hold all the gain. bart-large 16 documents 53.4 s / 3.64 GB peak,
//     32 documents 51.8 s / 4.87 GB (alternated later the same day: 62.5 and 66.1 s
//     against 61.8 and 67.1 s); bart-base 16 documents 17.5 and 19.5 s, 32 documents
//     17.7 and 19.4 s.
//   - int8: its integer products keep gaining to 128 rows. bart-large 29.7 s at 16
//     documents, 27.0 s at 32; bart-base 9.7-10.1 s at 16, 9.0-9.2 s at 32.
//   - fp16 weights (widened to float as they are read): not measured, 128 as before.
int step_rows_target(ComputeType compute, bool device);

// The batch `auto` runs: as many documents as a step still gains from (rows_target rows of
// the decoder; the step reads every weight once, whatever its rows), bounded by half the
// memory free, with the longest document's cost. documents: how many there are.
// With cost.shared_step_bytes, also no more documents than keep their own cross-attention
// memory within kSharedReadsFactor times the weights' bytes: past that a step is mostly
// each document's own reads, and another document saves little time for its memory
// (16k-token windows of a book, bart-base int8 beam 4: 8 together 1.48 GB in 28.5 s,
// 2 together 0.79 GB in 29.8 s).
constexpr uint64_t kSharedReadsFactor = 4;
BatchLimits auto_batch_limits(const DocumentCost& cost, int beams, int64_t longest_memory_rows, int documents,
                              uint64_t free_bytes, int rows_target);

// A fixed batch of `documents` (a number the person gave), bounded by the memory free too.
BatchLimits fixed_batch_limits(int documents, uint64_t free_bytes);

// "16 documents (auto, 2.1 GB)"
std::string describe(const BatchLimits& limits);

}  // namespace precis
