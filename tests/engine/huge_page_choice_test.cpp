// The huge-page offer (engine/core/huge_page_choice.h): buffers are offered to huge pages
// until one large enough to say something arrives slower than small pages would, and from
// then on for the rest of the process they are not.
#include <gtest/gtest.h>

#include <cstddef>

#include "engine/core/huge_page_choice.h"

namespace precis::test {
namespace {

constexpr size_t kMB = size_t(1) << 20;

TEST(HugePageChoice, OffersHugePagesUntilItHasSeenThemArriveSlowly) {
    HugePageChoice choice;
    EXPECT_TRUE(choice.offer());
    choice.record(64 * kMB, 0.004);  // 16 GB/s: huge pages the host still held came at 17-22
    EXPECT_TRUE(choice.offer());
    choice.record(512 * kMB, 1.3);  // 0.41 GB/s: the development VM's fresh huge pages
    EXPECT_FALSE(choice.offer());
}

TEST(HugePageChoice, AnOfferTurnedOffStaysOffWhateverComesAfter) {
    HugePageChoice choice;
    choice.record(16 * kMB, 0.05);  // 0.34 GB/s
    ASSERT_FALSE(choice.offer());
    choice.record(512 * kMB, 0.02);
    EXPECT_FALSE(choice.offer());
}

TEST(HugePageChoice, SmallPopulationsAndUntimedOnesDecideNothing) {
    HugePageChoice choice;
    // 4 MB in 40 ms is slow, but below kLeastBytesMeasured a population is mostly fixed cost.
    choice.record(4 * kMB, 0.04);
    choice.record(64 * kMB, 0.0);  // a clock that did not move
    EXPECT_TRUE(choice.offer());
    // A little faster than the slowest rate worth offering still pays.
    const double at_threshold =
        double(HugePageChoice::kLeastBytesMeasured) / HugePageChoice::kSlowestWorthOffering;
    choice.record(HugePageChoice::kLeastBytesMeasured, 0.99 * at_threshold);
    EXPECT_TRUE(choice.offer());
}

}  // namespace
}  // namespace precis::test
