#pragma once
// A device runner made of the CPU's ops, for testing without a GPU what the CUDA runner's
// continuous batch does on the host: the batch loop's device branch
// (engine/generate/document_batch.cpp) and the GPU batch decoder's step plan
// (engine/generate/slot_step.h). Its batch decoder takes documents into slots of one width
// as the CUDA runner's does (engine/model/decoder_slots.h), feeds the CPU decoder from what
// plan_slot_step staged for the slots' rows, does the device search kernels' arithmetic on
// the CPU in their order over the slot rows (beam search: log-softmax, each row's
// processors, the beam score, the top-k of each slot; greedy: each row's first best
// processed logit and its log-probability; finished or free slots too), and reads the choices back with
// read_slot_choices. So a slip in the plan (a row fed another document's token, a choice
// read from another slot) shows as ids that differ from the document's alone.
//
// Failures can be asked for: running out of device memory at a join, in the encoder or in a
// decoder of too many documents; the device failing in the encoder, in a generation, as a
// decoder is made, at a join, a step, a reorder, as a document leaves or as an encoder output
// is copied to the host; scores that are not finite at a step (as fp16 overflowing gives);
// an encoder output that overflows (the runner leaves fp16 while a batch decoder of it is
// running). Encoder outputs stay "on the device" as the CUDA runner's do: its batch decoder
// reads them there (device_memory), the host gets them through fetch_memory.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/backend/backend.h"
#include "engine/generate/model_runner.h"

namespace precis::test {

struct SlotEmulation {
    // Which calls fail (counted from 1 over the runner's life; 0: never).
    int out_of_memory_at_join = 0;
    bool out_of_memory_at_every_join = false;
    int out_of_memory_at_encode = 0;
    int out_of_memory_above_documents = 0;  // a decoder of more documents than this
    int failure_at_encode = 0;
    int failure_at_decoder = 0;   // making the batch decoder
    int failure_at_generate = 0;  // a whole generation (ModelRunner::generate)
    int failure_at_join = 0;
    int failure_at_step = 0;
    int failure_at_reorder = 0;
    int failure_at_leave = 0;      // that document's leaving fails (as a CUDA error there would)
    int failure_at_host_copy = 0;  // an encoder output's copy to the host (EncodedRow::host_memory)
    int non_finite_at_step = 0;  // that step's last document gets NaN scores
    int overflow_at_encode = 0;  // that encode leaves fp16 (as an encoder output past its range does)
    bool widens = true;          // widen_after_overflow moves to a wider precision (once)
    int max_beams = 0;           // the device search's most beams (ModelRunner::max_beams)

    // What happened.
    int joins = 0, leaves = 0, steps = 0, reorders = 0, decoders = 0, widened = 0, encodes = 0, generations = 0;
    int host_copies = 0;
    int precision = 0;      // how many times the runner left a precision
    int outdated_seen = 0;  // times the loop found a batch decoder of an earlier precision
    std::vector<BatchDecoderShape> shapes;           // each decoder's
    std::vector<std::pair<int, int>> joins_at_step;  // (slot, steps of that decoder before the join)
};

class SlotEmulatingRunner final : public ModelRunner {
public:
    explicit SlotEmulatingRunner(SlotEmulation& emulation);
    ~SlotEmulatingRunner() override;

    std::string device_name() const override { return "cuda:0 Emulated GPU (fp32)"; }
    bool supports(const AttentionOptions&) const override { return true; }
    int max_beams() const override { return emulation_.max_beams; }
    EncoderOutput encode(const Model& model, const std::vector<std::vector<int64_t>>& ids,
                         const std::vector<std::vector<int64_t>>& masks, const AttentionOptions& attention,
                         const RunCallbacks& callbacks, bool keep_layer_states) override;
    GenerationResult generate(const Model& model, const EncoderOutput& encoded, const GenerationConfig& cfg,
                              const RunCallbacks& callbacks, bool keep_step_scores) override;
    std::unique_ptr<BatchDecoder> batch_decoder(const Model& model, const BatchDecoderShape& shape) override;
    bool widen_after_overflow(const RunCallbacks& callbacks) override;
    RunnerStats stats() const override { return {}; }
    void reset_stats() override {}
    void set_profiling(bool) override {}

private:
    SlotEmulation& emulation_;
    std::unique_ptr<Backend> cpu_;
};

}  // namespace precis::test
