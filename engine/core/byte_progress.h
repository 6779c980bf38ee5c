#pragma once
// Progress and cancel for long file work (writing a checkpoint, converting or copying a
// model): bytes done of bytes total, and a cooperative abort checked between chunks, so a
// Cancel button or Ctrl-C stops a multi-gigabyte write within a fraction of a second.
#include <cstdint>
#include <functional>

#include "engine/core/error.h"

namespace precis {

struct ByteProgress {
    std::function<void(uint64_t done, uint64_t total)> progress;
    std::function<bool()> should_abort;

    void report(uint64_t done, uint64_t total) const {
        if (progress) progress(done, total);
    }
    void check_abort() const {
        if (should_abort && should_abort()) throw Cancelled();
    }
};

// Files are written and copied in pieces of this size between progress reports and
// abort checks (a few milliseconds of disk time each).
constexpr uint64_t kByteProgressChunk = uint64_t(8) << 20;

}  // namespace precis
