#include "engine/core/huge_page_choice.h"

#include <chrono>

#include "engine/core/populate.h"

namespace precis {

void HugePageChoice::populate_offered(void* data, size_t bytes) {
    const auto start = std::chrono::steady_clock::now();
    populate_for_writing(data, bytes);
    record(bytes, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

void HugePageChoice::record(size_t bytes, double seconds) {
    if (bytes < kLeastBytesMeasured || seconds <= 0.0) return;
    if (double(bytes) / seconds < kSlowestWorthOffering) offer_.store(false, std::memory_order_relaxed);
}

HugePageChoice& huge_page_choice() {
    static HugePageChoice choice;
    return choice;
}

}  // namespace precis
