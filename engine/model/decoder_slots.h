#pragma once
// The GPU decoder's rows as fixed slots, planned on the host where the CPU's tests reach
// them (kernels/runner/device_decoder.h runs the plan). Its step is captured once as a CUDA
// graph over every row, so a document that joins mid-run takes the rows of a free slot
// instead of new ones: slot s owns rows [s * width, (s + 1) * width) (a document's beams),
// and its cross-attention keys and values live in a region of one pool that every slot
// shares (one product per layer projects a joining document into its region; one attention
// launch reads every slot's region, as many keys as its document has). Each row keeps its
// own cache length, so a document that joins at step 40 starts at position 0 beside
// documents at position 40, and decodes as it would alone.
//
// Regions: a document takes the free slot whose region holds it most tightly; when none
// holds it, a free slot gets a new region at the pool's end. Documents run longest first
// (batch_plan.h), so once every slot has had a document, each later one fits a departed
// one's region and the pool stops growing.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace precis {

class DecoderSlots {
public:
    DecoderSlots(int slots, int width);

    int slot_count() const { return int(slots_.size()); }
    int width() const { return width_; }
    int rows() const { return slot_count() * width_; }
    int free_slots() const;
    bool occupied(int slot) const { return slots_[size_t(slot)].keys > 0; }
    // The highest slot holding a document, or -1: rows past its slot need no logits.
    int last_occupied() const;

    struct Placement {
        int slot = 0;
        int64_t start = 0;        // the region's first pool row
        bool new_region = false;  // the region was just made at the pool's end
    };
    // Where a document of memory_rows (>= 1) keys would go, changing nothing (a device
    // grows its pool to pool_end() before the document joins). Throws precis::Error when no
    // slot is free.
    Placement place(int64_t memory_rows) const;
    int64_t pool_end(const Placement& p, int64_t memory_rows) const {
        return p.new_region ? p.start + memory_rows : pool_end_;
    }
    // The document takes place(memory_rows); its rows' lengths start at 0.
    Placement join(int64_t memory_rows);
    void leave(int slot);

    int64_t pool_rows() const { return pool_end_; }  // every region lies below it
    int64_t largest_region() const { return largest_region_; }
    int64_t region_start(int slot) const { return slots_[size_t(slot)].start; }
    int64_t keys(int slot) const { return slots_[size_t(slot)].keys; }

    // Cache lengths: tokens each row holds so far (0 in free slots).
    int row_length(int row) const { return lengths_[size_t(row)]; }
    int longest_row() const;
    // After a step of new_len tokens: every occupied slot's rows hold new_len more.
    void advance(int new_len);

    // What the device reads: each slot's first key row in the pool and its document's key
    // count (0: free), starts[slots] then counts[slots]; each row's cache length.
    void key_ranges(int32_t* starts, int32_t* counts) const;
    void lengths(int32_t* out) const;

private:
    struct Slot {
        int64_t start = 0, capacity = 0;  // its region (capacity 0: none yet)
        int64_t keys = 0;                 // the document's memory rows; 0: free
    };
    std::vector<Slot> slots_;
    std::vector<int> lengths_;
    int width_;
    int64_t pool_end_ = 0, largest_region_ = 0;
};

}  // namespace precis
