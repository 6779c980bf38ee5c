#pragma once
// Whether the large buffers a run writes whole (the encoder's activations, a document's
// cross-attention keys and values, the step's logits) are offered to transparent huge pages,
// decided by how fast huge pages actually arrive on this machine.
//
// Huge pages pay where a fresh 2 MB page comes fast: one fault instead of 512 (on memory
// the host still held, the VM below made huge pages resident at 17-22 GB/s, six to nine
// times as fast as 4 KB pages). Inside a VM whose host takes freed memory back
// (virtio-balloon free page reporting hands it every free 2 MB block within seconds), each
// fresh huge page is first faulted in on the host: on the 2-core development VM 512 MB of
// fresh huge pages took 1.25-1.64 s to populate (0.33-0.43 GB/s), the same 512 MB on 4 KB
// pages 0.19-0.24 s (2.3-2.8 GB/s), and reading them back took the same 0.028 s either way.
// There the 32-document fp32 batch populated 995 MB of fresh huge pages, ~1 s of its 11 s;
// on 4 KB pages it ran in 0.88-0.94x the time (greedy) and 0.94-0.95x (beam 4), ids identical
// (tools/bench/results/2026-12-02-cpu-throughput/).
//
// So buffers are offered while huge pages arrive at least kSlowestWorthOffering; the first
// large population that comes in slower turns the offer off for the rest of the process
// (a compacting or host-faulting kernel stays that way), and later buffers take 4 KB pages
// (populate.h makes those resident in one call). Thread-safe.
#include <atomic>
#include <cstddef>

namespace precis {

class HugePageChoice {
public:
    // Populations this large say something about the kernel; smaller ones are mostly
    // fixed costs (and often memory the heap had resident already).
    static constexpr size_t kLeastBytesMeasured = size_t(8) << 20;
    // Below the 2.3-2.8 GB/s that 4 KB pages populated at on the development VM, well
    // above the 0.33-0.43 GB/s its fresh huge pages came at.
    static constexpr double kSlowestWorthOffering = 1.0e9;  // bytes per second

    bool offer() const { return offer_.load(std::memory_order_relaxed); }
    // Makes [data, data + bytes), just offered to huge pages, resident (populate.h) and
    // records how fast that went.
    void populate_offered(void* data, size_t bytes);
    // `bytes` of buffers offered to huge pages were made resident in `seconds`.
    void record(size_t bytes, double seconds);

private:
    std::atomic<bool> offer_{true};
};

// The process's choice, used by Tensor's allocations.
HugePageChoice& huge_page_choice();

}  // namespace precis
