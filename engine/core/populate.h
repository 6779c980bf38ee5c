#pragma once
// Page tables filled ahead of writing: a buffer about to be written whole (the encoder's
// activations, a document's cross-attention keys and values, a decoder cache row) gets its
// memory from the kernel in one call instead of one page fault per 4 KB page.
//
// Where a fault is expensive the difference is large: on the 2-core VM we measure on, a
// first write to a fresh page cost 12.6 us and MADV_POPULATE_WRITE 0.65 us a page (512 MB
// on 4 KB pages). The 32-document beam-4 batch took 303k faults before, 76k after (most of
// those left are the model's loading).
#include <cstddef>

namespace precis {

// The x86-64 huge page (transparent huge pages): large buffers are aligned to it and
// offered as huge pages (tensor.cpp), and populated in parts that never split one.
constexpr size_t kHugePageBytes = size_t(2) << 20;

// Makes the whole pages inside [data, data + bytes) resident and writable, keeping what
// they hold (fresh anonymous memory reads as zeros either way). Says whether the kernel did
// it: false before Linux 5.14, or for memory it cannot populate; the pages then fault in
// on first write as usual. Bytes past the last whole page are left to fault. Ranges of
// 16 MB or more are shared by the threads of the worker team (worker_team.h).
bool populate_for_writing(void* data, size_t bytes);

}  // namespace precis
