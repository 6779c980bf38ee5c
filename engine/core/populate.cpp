#include "engine/core/populate.h"

#include <sys/mman.h>
#include <unistd.h>

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "engine/core/worker_team.h"

namespace precis {

bool populate_for_writing(void* data, size_t bytes) {
#ifdef MADV_POPULATE_WRITE
    static const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
    const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + page - 1) / page * page;
    const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) / page * page;
    if (end <= begin) return false;
    auto populate = [](uintptr_t from, uintptr_t to) {
        return to <= from || madvise(reinterpret_cast<void*>(from), to - from, MADV_POPULATE_WRITE) == 0;
    };
    // The kernel zeroes each page it maps, on the calling thread: a document's 36 MB of
    // cross-attention keys and values took 52-83 ms of fresh memory on one thread of the
    // VM we measure on, while the other core waited. So large ranges are split over the
    // team, at huge-page boundaries (a part never splits a huge page). There the 32-document
    // fp32 beam-4 batch's main thread spent 0.57 s populating instead of 0.86 s (the VM
    // zeroes fresh pages more slowly when two threads ask at once).
    constexpr uintptr_t kLeastPerThread = uintptr_t(8) << 20;
    const uintptr_t bytes_whole = end - begin;
    const int threads = int(std::min<uintptr_t>(uintptr_t(omp_get_max_threads()), bytes_whole / kLeastPerThread));
    if (threads <= 1) return populate(begin, end);
    auto boundary = [&](int t, int nt) {
        if (t == 0) return begin;
        if (t == nt) return end;
        const uintptr_t at = (begin + bytes_whole / uintptr_t(nt) * uintptr_t(t)) / kHugePageBytes * kHugePageBytes;
        return std::max(begin, at);
    };
    std::atomic<bool> all{true};
    run_on_team(threads, [&](int t, int nt) {
        if (!populate(boundary(t, nt), boundary(t + 1, nt))) all = false;
    });
    return all;
#else
    (void)data;
    (void)bytes;
    return false;
#endif
}

}  // namespace precis
