#include "tests/support/slot_emulating_runner.h"

#include <cmath>
#include <map>

#include "engine/generate/search.h"
#include "engine/generate/slot_step.h"
#include "engine/model/decoder.h"
#include "engine/model/decoder_slots.h"
#include "engine/model/model.h"

namespace precis::test {

namespace {

class SlotEmulatingDecoder final : public BatchDecoder {
public:
    SlotEmulatingDecoder(const Model& model, Backend& cpu, const BatchDecoderShape& shape, SlotEmulation& emulation)
        : dec_(model, cpu, shape.documents * shape.beams, shape.max_length),
          slots_(shape.documents, shape.beams),
          width_(shape.beams),
          V_(model.config().vocab_size),
          emulation_(emulation),
          precision_(emulation.precision) {}

    int free_rows() const override { return slots_.free_slots() * width_; }
    bool accepts(int beams) const override { return beams == width_; }
    bool outdated() const override {
        const bool old = emulation_.precision != precision_;
        emulation_.outdated_seen += old;
        return old;
    }

    int join(const EncodedRow& document, int beams) override {
        check(beams == width_, "emulated batch decoder: a document of another width");
        check(!outdated(), "emulated batch decoder: a document joined a decoder of another precision");
        ++emulation_.joins;
        if (emulation_.out_of_memory_at_every_join || emulation_.joins == emulation_.out_of_memory_at_join)
            throw DeviceOutOfMemory("cuda:0 Emulated GPU (fp32) ran out of memory");
        if (emulation_.joins == emulation_.failure_at_join) throw DeviceFailure("cuda:0 Emulated GPU (fp32) failed");
        const int slot = slots_.join(document.memory_rows()).slot;
        items_[slot] = dec_.join(on_the_device(document), beams);
        emulation_.joins_at_step.emplace_back(slot, steps_);
        return slot;
    }

    void leave(int slot) override {
        if (++emulation_.leaves == emulation_.failure_at_leave)
            throw DeviceFailure("cuda:0 Emulated GPU (fp32) failed");
        dec_.leave(items_.at(slot));
        items_.erase(slot);
        slots_.leave(slot);
    }

    void step(std::vector<DocumentStep*>& docs) override {
        ++emulation_.steps;
        ++steps_;
        if (emulation_.steps == emulation_.failure_at_step) throw DeviceFailure("cuda:0 Emulated GPU (fp32) failed");
        plan_slot_step(slots_, docs, plan_);
        // The CPU decoder's rows are its documents in join order: each is fed what the plan
        // staged for its slot's rows.
        std::vector<int64_t> tokens(size_t(dec_.rows()));
        for (const DocumentStep* d : docs)
            for (int b = 0; b < width_; ++b)
                tokens[size_t(first_row(d->item) + b)] = plan_.tokens[size_t(d->item * width_ + b)];
        dec_.forward(tokens.data(), 1);
        std::vector<float> rows_logits(size_t(dec_.rows()) * size_t(V_));
        dec_.logits(rows_logits.data());
        // The slots' rows as the device holds them; a free slot's rows hold zeros.
        std::vector<float> scores(size_t(plan_.rows) * size_t(V_), 0.f);
        for (const DocumentStep* d : docs)
            for (int b = 0; b < width_; ++b)
                std::copy_n(rows_logits.begin() + int64_t(first_row(d->item) + b) * V_, V_,
                            scores.begin() + int64_t(d->item * width_ + b) * V_);
        search(scores, docs);
        if (emulation_.steps == emulation_.non_finite_at_step && !docs.empty()) {
            DocumentStep& last = *docs.back();
            last.logprob = std::nanf("");
            for (float& s : last.top_scores) s = std::nanf("");
        }
    }

    void reorder(const std::vector<DocumentStep*>& docs) override {
        if (++emulation_.reorders == emulation_.failure_at_reorder)
            throw DeviceFailure("cuda:0 Emulated GPU (fp32) failed");
        std::vector<int> slot_rows;
        if (!slot_parents(slots_, docs, slot_rows)) return;
        std::vector<int> parents(size_t(dec_.rows()));
        for (int r = 0; r < dec_.rows(); ++r) parents[size_t(r)] = r;
        for (const DocumentStep* d : docs)
            for (int b = 0; b < width_; ++b)
                parents[size_t(first_row(d->item) + b)] =
                    first_row(d->item) + slot_rows[size_t(d->item * width_ + b)] - d->item * width_;
        dec_.reorder(parents);
    }

private:
    int first_row(int slot) const { return dec_.first_row_of(items_.at(slot)); }

    // The CUDA decoder reads a document's encoder output where the device holds it, never
    // through the host's copy: the emulated one reads the runner's own, so a host copy that
    // fails is one the host asked for (the CPU's decoder, a summary's source passages).
    static EncodedRow on_the_device(const EncodedRow& document) {
        if (!document.device_memory) return document;  // made on the CPU
        EncodedRow held = document;
        held.memory = *std::static_pointer_cast<const Tensor>(document.device_memory);
        held.fetch_memory = nullptr;
        return held;
    }

    // kernels/ops/search_step.cu's order on the slot rows. Beam search: log-softmax, the
    // processors, the beam score, then the top-k of every slot's beams. Greedy: the forced
    // token's log-probability taken, the processors on the logits, the first best of each
    // row and its log-probability (the CPU's greedy_pick). Read back through read_slot_choices.
    void search(std::vector<float>& scores, std::vector<DocumentStep*>& docs) {
        const int rows = plan_.rows, keep = width_ == 1 ? 1 : BeamBook::keep_for(width_);
        const int groups = rows / width_;
        std::vector<float> forced(size_t(rows), 1.f), values(size_t(groups) * size_t(keep)), logprobs;
        std::vector<int64_t> indices(values.size());
        for (int r = 0; r < rows; ++r) {
            float* x = scores.data() + int64_t(r) * V_;
            const StepRules& rules = plan_.rules[size_t(r)];
            const std::vector<int64_t> none{0};  // a free slot's row: rules of cur_len 1 that ban nothing
            const std::vector<int64_t>& history = plan_.histories[size_t(r)] ? *plan_.histories[size_t(r)] : none;
            const int64_t f =
                forced_token_at(rules.forced_bos_token_id, rules.forced_eos_token_id, rules.cur_len, rules.max_length);
            if (width_ == 1) {
                logprobs.resize(size_t(V_));
                indices[size_t(r)] = greedy_pick(x, V_, history, rules, logprobs.data(), &values[size_t(r)]);
                if (f >= 0) forced[size_t(r)] = values[size_t(r)];
                continue;
            }
            log_softmax_row(x, V_);
            process_scores(x, V_, history, rules);
            for (int64_t t = 0; t < V_; ++t) x[t] += plan_.beam_scores[size_t(r)];
        }
        if (width_ > 1)
            for (int g = 0; g < groups; ++g)
                top_candidates(scores.data() + int64_t(g) * width_ * V_, int64_t(width_) * V_, keep,
                               values.data() + size_t(g) * size_t(keep), indices.data() + size_t(g) * size_t(keep));
        read_slot_choices(slots_, docs, values.data(), indices.data(), forced.data());
    }

    DecoderState dec_;
    DecoderSlots slots_;
    int width_;
    int64_t V_;
    SlotEmulation& emulation_;
    int precision_;
    SlotStepInputs plan_;
    std::map<int, int> items_;  // slot -> the CPU decoder's item
    int steps_ = 0;
};

}  // namespace

SlotEmulatingRunner::SlotEmulatingRunner(SlotEmulation& emulation)
    : emulation_(emulation), cpu_(make_cpu_backend()) {}

SlotEmulatingRunner::~SlotEmulatingRunner() = default;

EncoderOutput SlotEmulatingRunner::encode(const Model& model, const std::vector<std::vector<int64_t>>& ids,
                                          const std::vector<std::vector<int64_t>>& masks,
                                          const AttentionOptions& attention, const RunCallbacks& callbacks,
                                          bool keep_layer_states) {
    ++emulation_.encodes;
    if (emulation_.encodes == emulation_.out_of_memory_at_encode)
        throw DeviceOutOfMemory("cuda:0 Emulated GPU (fp32) ran out of memory");
    if (emulation_.encodes == emulation_.failure_at_encode) throw DeviceFailure("cuda:0 Emulated GPU (fp32) failed");
    if (emulation_.encodes == emulation_.overflow_at_encode) {
        ++emulation_.precision;
        callbacks.notice("this model's activations overflow fp16 on cuda:0 Emulated GPU; running in bf16 from now on");
    }
    EncoderOutput out = run_encoder(model, *cpu_, ids, masks, attention, callbacks, keep_layer_states);
    for (EncodedRow& row : out.rows) {
        // Kept "on the device": the host reads it through a copy that can fail.
        auto held = std::make_shared<const Tensor>(std::move(row.memory));
        row.device_memory = held;
        row.fetch_memory = [held, &emulation = emulation_] {
            if (++emulation.host_copies == emulation.failure_at_host_copy)
                throw DeviceFailure("cuda:0 Emulated GPU (fp32) failed");
            return *held;
        };
        row.memory = Tensor();
    }
    return out;
}

GenerationResult SlotEmulatingRunner::generate(const Model& model, const EncoderOutput& encoded,
                                               const GenerationConfig& cfg, const RunCallbacks& callbacks,
                                               bool keep_step_scores) {
    if (++emulation_.generations == emulation_.failure_at_generate)
        throw DeviceFailure("cuda:0 Emulated GPU (fp32) failed");
    return precis::generate(model, *cpu_, encoded, cfg, callbacks, keep_step_scores);
}

std::unique_ptr<BatchDecoder> SlotEmulatingRunner::batch_decoder(const Model& model, const BatchDecoderShape& shape) {
    ++emulation_.decoders;
    emulation_.shapes.push_back(shape);
    if (emulation_.decoders == emulation_.failure_at_decoder) throw DeviceFailure("cuda:0 Emulated GPU (fp32) failed");
    if (emulation_.out_of_memory_above_documents && shape.documents > emulation_.out_of_memory_above_documents)
        throw DeviceOutOfMemory("cuda:0 Emulated GPU (fp32) ran out of memory");
    return std::make_unique<SlotEmulatingDecoder>(model, *cpu_, shape, emulation_);
}

bool SlotEmulatingRunner::widen_after_overflow(const RunCallbacks& callbacks) {
    if (!emulation_.widens || emulation_.widened > 0) return false;
    ++emulation_.widened;
    emulation_.non_finite_at_step = 0;  // the wider precision holds the model's activations
    callbacks.notice("this model's activations overflow fp16 on cuda:0 Emulated GPU; running in bf16 from now on");
    return true;
}

}  // namespace precis::test
