#pragma once
// Helpers for the libFuzzer targets: the engine reads files by path, so each input is
// written to a file in a per-process scratch folder under /dev/shm (memory, not disk).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace precis::fuzz {

inline const std::filesystem::path& scratch() {
    static const std::filesystem::path dir = [] {
        std::filesystem::path d = std::filesystem::path("/dev/shm") / ("precis-fuzz-" + std::to_string(::getpid()));
        std::filesystem::create_directories(d);
        return d;
    }();
    return dir;
}

inline std::filesystem::path write_input(const std::string& name, const uint8_t* data, size_t size) {
    const std::filesystem::path p = scratch() / name;
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), std::streamsize(size));
    return p;
}

}  // namespace precis::fuzz
