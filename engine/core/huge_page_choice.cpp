#include "engine/core/huge_page_choice.h"

namespace precis {

void HugePageChoice::record(size_t bytes, double seconds) {
    if (bytes < kLeastBytesMeasured || seconds <= 0.0) return;
    if (double(bytes) / seconds < kSlowestWorthOffering) offer_.store(false, std::memory_order_relaxed);
}

HugePageChoice& huge_page_choice() {
    static HugePageChoice choice;
    return choice;
}

}  // namespace precis
