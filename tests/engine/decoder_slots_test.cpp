// The GPU decoder's slots planned on the host (engine/model/decoder_slots.h): where each
// joining document's keys go in the pool, what the device reads of them, and every row's
// own cache length.
#include "engine/model/decoder_slots.h"

#include <gtest/gtest.h>

#include <vector>

#include "engine/core/error.h"

namespace precis {
namespace {

std::vector<int32_t> ranges_of(const DecoderSlots& s) {
    std::vector<int32_t> r(2 * size_t(s.slot_count()));
    s.key_ranges(r.data(), r.data() + s.slot_count());
    return r;
}

std::vector<int32_t> lengths_of(const DecoderSlots& s) {
    std::vector<int32_t> l(size_t(s.rows()));
    s.lengths(l.data());
    return l;
}

TEST(DecoderSlots, DocumentsTakeFreshRegionsInOrderThenTheTightestDepartedOne) {
    DecoderSlots s(3, 2);
    EXPECT_EQ(s.rows(), 6);
    EXPECT_EQ(s.last_occupied(), -1);
    const auto a = s.join(100), b = s.join(60), c = s.join(30);
    EXPECT_EQ((std::vector<int>{a.slot, b.slot, c.slot}), (std::vector<int>{0, 1, 2}));
    EXPECT_EQ((std::vector<int64_t>{a.start, b.start, c.start}), (std::vector<int64_t>{0, 100, 160}));
    EXPECT_TRUE(a.new_region && b.new_region && c.new_region);
    EXPECT_EQ(s.pool_rows(), 190);
    EXPECT_EQ(s.largest_region(), 100);
    EXPECT_EQ(s.free_slots(), 0);
    EXPECT_THROW(s.place(1), Error);
    // Slots 0 and 1 leave; a document of 50 rows takes the tighter region (slot 1's 60).
    s.leave(0);
    s.leave(1);
    const auto d = s.join(50);
    EXPECT_EQ(d.slot, 1);
    EXPECT_EQ(d.start, 100);
    EXPECT_FALSE(d.new_region);
    EXPECT_EQ(s.pool_rows(), 190) << "a departed region holds it: the pool does not grow";
    EXPECT_EQ(ranges_of(s), (std::vector<int32_t>{0, 100, 160, 0, 50, 30})) << "starts, then key counts (0: free)";
    EXPECT_EQ(s.last_occupied(), 2);
}

TEST(DecoderSlots, ADocumentLongerThanEveryFreeRegionGetsANewOneAtThePoolsEnd) {
    DecoderSlots s(2, 1);
    s.join(10);
    s.join(20);
    s.leave(0);
    s.leave(1);
    const DecoderSlots::Placement p = s.place(25);
    EXPECT_TRUE(p.new_region);
    EXPECT_EQ(p.start, 30);
    EXPECT_EQ(s.pool_end(p, 25), 55) << "what a device grows its pool to before the document joins";
    EXPECT_EQ(s.pool_rows(), 30) << "place() changes nothing";
    EXPECT_EQ(s.join(25).slot, 1) << "the free slot with the largest region is given the new one";
    EXPECT_EQ(s.pool_rows(), 55);
    EXPECT_EQ(s.largest_region(), 25);
    const DecoderSlots::Placement fits = s.place(10);
    EXPECT_FALSE(fits.new_region);
    EXPECT_EQ(s.pool_end(fits, 10), 55);
}

TEST(DecoderSlots, EachRowKeepsItsOwnLengthAndAJoiningDocumentStartsAtZero) {
    DecoderSlots s(2, 3);
    s.join(8);
    s.advance(1);
    s.advance(1);
    s.join(4);
    s.advance(1);
    EXPECT_EQ(lengths_of(s), (std::vector<int32_t>{3, 3, 3, 1, 1, 1}));
    EXPECT_EQ(s.longest_row(), 3);
    s.leave(0);
    s.advance(2);
    EXPECT_EQ(lengths_of(s), (std::vector<int32_t>{0, 0, 0, 3, 3, 3})) << "a free slot's rows stay at 0";
    EXPECT_EQ(s.row_length(4), 3);
}

TEST(DecoderSlots, RefusesWhatCannotBePlaced) {
    EXPECT_THROW(DecoderSlots(0, 1), Error);
    EXPECT_THROW(DecoderSlots(1, 0), Error);
    DecoderSlots s(1, 1);
    EXPECT_THROW(s.join(0), Error);
    EXPECT_THROW(s.leave(0), Error) << "no document holds it";
    s.join(1);
    EXPECT_THROW(s.join(1), Error) << "no slot is free";
    EXPECT_THROW(s.leave(3), Error);
}

}  // namespace
}  // namespace precis
