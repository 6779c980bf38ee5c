#pragma once
// The GPU's continuous-batch step (kernels/runner/device_batch_decoder.h) planned on the
// host, where the CPU's tests reach it: which token each row of the decoder's slots
// (engine/model/decoder_slots.h) is fed, with which rules and beam score its scores are
// processed, how each document's choice is read back from its slot's entries of the
// device's top-k, and which rows the cache reorder moves. A document's item is its slot.
// Free slots' rows are fed token 0 under rules that ban and force nothing: their rows hold
// finite values that nothing reads.
#include <cstdint>
#include <vector>

#include "engine/generate/batch_decoder.h"
#include "engine/model/decoder_slots.h"

namespace precis {

struct SlotStepInputs {
    int rows = 0;  // rows whose scores are needed: every row through the last occupied slot
    std::vector<int64_t> tokens;  // [slots.rows()] every row's new token
    std::vector<StepRules> rules;  // [rows]
    std::vector<const std::vector<int64_t>*> histories;  // [rows] tokens so far; null in free slots
    std::vector<float> beam_scores;  // [rows] beam documents' running scores; 0 elsewhere
};

// docs: every document present, each in slot `item`, of slots.width() rows.
void plan_slot_step(const DecoderSlots& slots, const std::vector<DocumentStep*>& docs, SlotStepInputs& out);

// The top-k the device made of the planned rows, into each document's choice. Greedy
// (width 1): values / indices [rows], the best token of each row; forced_logprobs [rows],
// read for a row whose rules force a token (its log-probability before forcing, which the
// score counts). Beam search: values / indices [slots through the last occupied][keep].
void read_slot_choices(const DecoderSlots& slots, std::vector<DocumentStep*>& docs, const float* values,
                       const int64_t* indices, const float* forced_logprobs);

// Every slot row's parent for the cache reorder: beam documents' rows take their book's
// parents, every other row itself. False when nothing moves.
bool slot_parents(const DecoderSlots& slots, const std::vector<DocumentStep*>& docs, std::vector<int>& parents);

}  // namespace precis
