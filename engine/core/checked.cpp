#include "engine/core/checked.h"

#include <cstdio>
#include <fstream>
#include <sstream>

namespace precis {

uint64_t available_memory_bytes() {
    std::ifstream in("/proc/meminfo");
    std::string key;
    uint64_t kib = 0;
    std::string unit;
    while (in >> key >> kib) {
        std::getline(in, unit);
        if (key == "MemAvailable:") return kib * 1024;
    }
    return 0;
}

std::string human_bytes(uint64_t bytes) {
    static const char* units[] = {"KB", "MB", "GB", "TB", "PB", "EB"};
    if (bytes < 1000) return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
    double v = double(bytes) / 1000.0;
    int u = 0;
    while (v >= 1000.0 && u < 5) {
        v /= 1000.0;
        ++u;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, v < 10.0 ? "%.1f %s" : "%.0f %s", v, units[u]);
    return buf;
}

void require_memory(uint64_t bytes, const std::string& what) {
    const uint64_t free = available_memory_bytes();
    if (free != 0 && bytes > free)
        throw OutOfMemory(what + " needs " + human_bytes(bytes) + "; this machine has " + human_bytes(free) + " free");
}

}  // namespace precis
