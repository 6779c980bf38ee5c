#pragma once
// Sizes taken from files and flags are checked before anything is allocated: products
// of dimensions with overflow checks, and memory needs against what the machine has.
#include <cstdint>
#include <string>

#include "engine/core/error.h"

namespace precis {

// a * b, or precis::Error "<what> overflows 64-bit integers (a x b)" when it does not fit.
inline int64_t checked_mul(int64_t a, int64_t b, const std::string& what) {
    int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r))
        throw Error(what + " overflows 64-bit integers (" + std::to_string(a) + " x " + std::to_string(b) + ")");
    return r;
}
inline uint64_t checked_mul(uint64_t a, uint64_t b, const std::string& what) {
    uint64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r))
        throw Error(what + " overflows 64-bit integers (" + std::to_string(a) + " x " + std::to_string(b) + ")");
    return r;
}

// MemAvailable from /proc/meminfo in bytes; 0 when it cannot be read.
uint64_t available_memory_bytes();

// "9.8 GB", "512 MB", "12 KB", "7 bytes" (decimal units, as free(1) -h and file managers show).
std::string human_bytes(uint64_t bytes);

// Throws precis::Error "<what> needs 9.8 GB; this machine has 3.1 GB free" when `bytes`
// exceeds the memory available now. `what` names the thing being built and its source.
void require_memory(uint64_t bytes, const std::string& what);

}  // namespace precis
