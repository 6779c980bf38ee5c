#include "engine/generate/slot_step.h"

#include <algorithm>
#include <string>

#include "engine/core/error.h"

namespace precis {

namespace {

void check_member(const DecoderSlots& slots, const DocumentStep& d) {
    check(d.item >= 0 && d.item < slots.slot_count() && slots.occupied(d.item),
          "batch decoder: document in slot " + std::to_string(d.item) + " has not joined");
    check(d.beams == slots.width() && (d.beams == 1) == (d.book == nullptr) && (d.book || d.sequence),
          "batch decoder: a document's beams are not the decoder's slot width");
}

}  // namespace

void plan_slot_step(const DecoderSlots& slots, const std::vector<DocumentStep*>& docs, SlotStepInputs& out) {
    const int W = slots.width();
    out.rows = (slots.last_occupied() + 1) * W;
    out.tokens.assign(size_t(slots.rows()), 0);
    StepRules idle;  // bans and forces nothing: cur_len 1, no n-gram, no minimum, no forced token
    out.rules.assign(size_t(out.rows), idle);
    out.histories.assign(size_t(out.rows), nullptr);
    out.beam_scores.assign(size_t(out.rows), 0.f);
    for (const DocumentStep* d : docs) {
        check_member(slots, *d);
        const int first = d->item * W;
        for (int b = 0; b < W; ++b) {
            const size_t r = size_t(first + b);
            out.rules[r] = d->rules;
            if (d->book) {
                out.tokens[r] = d->book->last_tokens()[size_t(b)];
                out.histories[r] = &d->book->sequences()[size_t(b)];
                out.beam_scores[r] = d->book->beam_scores()[size_t(b)];
            } else {
                out.tokens[r] = d->sequence->back();
                out.histories[r] = d->sequence;
            }
        }
    }
}

void read_slot_choices(const DecoderSlots& slots, std::vector<DocumentStep*>& docs, const float* values,
                       const int64_t* indices, const float* forced_logprobs) {
    for (DocumentStep* d : docs) {
        check_member(slots, *d);
        const size_t s = size_t(d->item);
        if (!d->book) {
            const StepRules& r = d->rules;
            const bool forced =
                forced_token_at(r.forced_bos_token_id, r.forced_eos_token_id, r.cur_len, r.max_length) >= 0;
            d->next = indices[s];
            d->logprob = forced ? forced_logprobs[s] : values[s];
        } else if (!d->book->finished()) {
            const size_t keep = size_t(d->book->keep());
            d->top_scores.assign(values + s * keep, values + (s + 1) * keep);
            d->top_indices.assign(indices + s * keep, indices + (s + 1) * keep);
        }
    }
}

bool slot_parents(const DecoderSlots& slots, const std::vector<DocumentStep*>& docs, std::vector<int>& parents) {
    parents.resize(size_t(slots.rows()));
    for (int r = 0; r < slots.rows(); ++r) parents[size_t(r)] = r;
    bool moved = false;
    for (const DocumentStep* d : docs) {
        check_member(slots, *d);
        if (!d->book) continue;
        const int first = d->item * slots.width();
        for (int b = 0; b < slots.width(); ++b) {
            const int parent = first + d->book->parents()[size_t(b)];
            parents[size_t(first + b)] = parent;
            moved |= parent != first + b;
        }
    }
    return moved;
}

}  // namespace precis
