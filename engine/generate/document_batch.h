#pragma once
// Many documents generated together (continuous batching): documents are taken longest
// first; each is encoded when there is room for it (those joining together in one encoder
// call) and joins the decoder's step; a finished document leaves at once and the next
// waiting one takes its rows, so the step stays full. Every document keeps its own
// generation settings (beams, lengths, logits processors, length penalty, early stopping)
// with HuggingFace's semantics, and gets the ids it would get generated alone.
//
// The loop is written once for both devices: the step runs through a BatchDecoder
// (batch_decoder.h), the CPU's DecoderState or the device runner's slot decoder, and the
// planning (batch_plan.h), the search rules, the beams' bookkeeping and the results are this
// code's. On a device, running out of its memory halves the batch too; a device that fails
// hands every document not yet finished to the CPU, which goes on, and says so once.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/generate/batch_plan.h"
#include "engine/generate/generation.h"

namespace precis {

struct DocumentJob {
    int input_tokens = 0;  // what the encoder will read: orders and sizes the batch
    GenerationConfig config;
};

struct DocumentBatchOptions {
    int batch_size = 0;          // documents at once; 0: auto (batch_plan.h)
    bool keep_encoded = false;   // hand each document's encoder output to `finished`
};

struct DocumentBatchCallbacks {
    // Runs the encoder on documents that join the batch together (one or more), returning
    // one output per job in their order: an encoder may run them through its products
    // together. A precis::Error thrown here fails the document alone (`failed`): a call for
    // several is then made again for each on its own. OutOfMemory halves the batch instead;
    // Cancelled ends the run.
    std::function<std::vector<EncodedRow>(const std::vector<int>& jobs)> encode;
    // A document's result (sequences[0], sequence_scores[0], its own steps), as it finishes;
    // `encoded` is its encoder output when keep_encoded, else empty.
    std::function<void(int job, GenerationResult result, const EncodedRow& encoded)> finished;
    std::function<void(int job, const std::string& why)> failed;
};

struct DocumentBatchReport {
    BatchLimits limits;       // what ran (after any halving)
    int halvings = 0;         // times memory ran out and the batch was halved
    int largest_step = 0;     // most documents that were ever in one step
};

// Throws Cancelled when callbacks.should_abort says so (what finished was handed out).
DocumentBatchReport generate_documents(const Model& model, Backend& backend, const std::vector<DocumentJob>& jobs,
                                       const DocumentBatchOptions& options, const DocumentBatchCallbacks& on,
                                       const RunCallbacks& callbacks);

// The batch that `options` asks for (a number, or auto from the memory free on the host or
// the backend's device) for these documents.
BatchLimits plan_batch(const Model& model, Backend& backend, const std::vector<DocumentJob>& jobs,
                       const DocumentBatchOptions& options);

// A greedy result of a batch run as HuggingFace pads it (pads after eos up to the batch's
// length) cut to what the document generated alone.
std::vector<int64_t> trim_after_eos(std::vector<int64_t> sequence, int64_t eos);

}  // namespace precis
