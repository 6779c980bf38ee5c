#include "engine/model/decoder_slots.h"

#include <algorithm>
#include <climits>
#include <string>

#include "engine/core/error.h"

namespace precis {

DecoderSlots::DecoderSlots(int slots, int width) : width_(width) {
    check(slots >= 1 && width >= 1, "decoder slots: at least one slot of one row is needed");
    check(int64_t(slots) * width <= INT_MAX, "decoder slots: too many rows");
    slots_.resize(size_t(slots));
    lengths_.assign(size_t(slots) * size_t(width), 0);
}

int DecoderSlots::free_slots() const {
    return int(std::count_if(slots_.begin(), slots_.end(), [](const Slot& s) { return s.keys == 0; }));
}

int DecoderSlots::last_occupied() const {
    for (int s = slot_count() - 1; s >= 0; --s)
        if (occupied(s)) return s;
    return -1;
}

DecoderSlots::Placement DecoderSlots::place(int64_t memory_rows) const {
    check(memory_rows >= 1 && memory_rows <= INT32_MAX, "decoder slots: a document needs 1 to 2^31 - 1 memory rows");
    // The tightest free region that holds it; else a free slot without a region, else the
    // free slot with the largest region (which a new one replaces).
    int best = -1, bare = -1, largest = -1;
    for (int s = 0; s < slot_count(); ++s) {
        const Slot& slot = slots_[size_t(s)];
        if (slot.keys != 0) continue;
        if (slot.capacity >= memory_rows && (best < 0 || slot.capacity < slots_[size_t(best)].capacity)) best = s;
        if (slot.capacity == 0 && bare < 0) bare = s;
        if (largest < 0 || slot.capacity > slots_[size_t(largest)].capacity) largest = s;
    }
    check(largest >= 0, "decoder slots: no slot is free");
    Placement p;
    if (best >= 0) {
        p.slot = best;
        p.start = slots_[size_t(best)].start;
        return p;
    }
    // A region too small for this document is left behind in the pool: only a document
    // longer than every earlier one (never, longest first) abandons one.
    check(pool_end_ + memory_rows <= INT32_MAX, "decoder slots: the documents' memory exceeds 2^31 - 1 rows");
    p.slot = bare >= 0 ? bare : largest;
    p.start = pool_end_;
    p.new_region = true;
    return p;
}

DecoderSlots::Placement DecoderSlots::join(int64_t memory_rows) {
    const Placement p = place(memory_rows);
    Slot& slot = slots_[size_t(p.slot)];
    if (p.new_region) {
        slot.start = p.start;
        slot.capacity = memory_rows;
        pool_end_ = p.start + memory_rows;
        largest_region_ = std::max(largest_region_, memory_rows);
    }
    slot.keys = memory_rows;
    std::fill_n(lengths_.begin() + int64_t(p.slot) * width_, width_, 0);
    return p;
}

void DecoderSlots::leave(int slot) {
    check(slot >= 0 && slot < slot_count() && occupied(slot), "decoder slots: no document holds slot " + std::to_string(slot));
    slots_[size_t(slot)].keys = 0;
    std::fill_n(lengths_.begin() + int64_t(slot) * width_, width_, 0);
}

int DecoderSlots::longest_row() const {
    return lengths_.empty() ? 0 : *std::max_element(lengths_.begin(), lengths_.end());
}

void DecoderSlots::advance(int new_len) {
    for (int s = 0; s < slot_count(); ++s)
        if (occupied(s))
            for (int b = 0; b < width_; ++b) lengths_[size_t(s * width_ + b)] += new_len;
}

void DecoderSlots::key_ranges(int32_t* starts, int32_t* counts) const {
    for (size_t s = 0; s < slots_.size(); ++s) {
        starts[s] = int32_t(slots_[s].start);
        counts[s] = int32_t(slots_[s].keys);
    }
}

void DecoderSlots::lengths(int32_t* out) const { std::copy(lengths_.begin(), lengths_.end(), out); }

}  // namespace precis
