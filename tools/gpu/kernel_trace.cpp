// libprecis-kernel-trace.so: device time per kernel of any CUDA program, for machines that
// have CUPTI but no working Nsight tool (the lent GPU machine: no nsys, and ncu attaches to
// nothing there). Preloaded, it asks CUPTI for every kernel's start and end (kernels replayed
// from CUDA graphs included) and, when the program exits, writes a table of the kernels by
// total time to $PRECIS_KERNEL_TRACE (or stderr):
//
//   LD_PRELOAD=libprecis-kernel-trace.so PRECIS_KERNEL_TRACE=kernels.md precis-bench ...
//
// CUPTI is opened with dlopen, so the library depends on nothing the machine lacks; where
// CUPTI cannot be opened it says so once and the program runs untraced.
#include <cxxabi.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <cupti.h>

namespace {

using RegisterCallbacks = CUptiResult (*)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc);
using Enable = CUptiResult (*)(CUpti_ActivityKind);
using FlushAll = CUptiResult (*)(uint32_t);
using NextRecord = CUptiResult (*)(uint8_t*, size_t, CUpti_Activity**);

struct Cupti {
    RegisterCallbacks register_callbacks = nullptr;
    Enable enable = nullptr;
    FlushAll flush_all = nullptr;
    NextRecord next_record = nullptr;
};

struct Total {
    uint64_t ns = 0, count = 0;
};

Cupti cupti;
std::mutex mu;
std::map<std::string, Total> totals;
uint64_t first_start = UINT64_MAX, last_end = 0;

// "precis::cuda::(anonymous namespace)::flash_kernel<__half, 64>(...)" -> without the
// arguments and the namespaces every one of ours shares, cut to a table-friendly width.
std::string short_name(const char* mangled) {
    if (!mangled) return "(unnamed)";
    int status = 0;
    char* d = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
    std::string s = status == 0 && d ? d : mangled;
    std::free(d);
    for (const char* drop : {"precis::cuda::", "(anonymous namespace)::"})
        for (size_t p; (p = s.find(drop)) != std::string::npos;) s.erase(p, std::strlen(drop));
    int depth = 0;  // cut at the argument list: the first '(' outside template brackets
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '<') ++depth;
        if (s[i] == '>') --depth;
        if (s[i] == '(' && depth == 0 && i > 0) {
            s.resize(i);
            break;
        }
    }
    return s.size() > 110 ? s.substr(0, 107) + "..." : s;
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
    *size = size_t(8) << 20;
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
    *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
    CUpti_Activity* record = nullptr;
    std::lock_guard<std::mutex> lock(mu);
    while (cupti.next_record(buffer, valid, &record) == CUPTI_SUCCESS) {
        if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) continue;
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        Total& t = totals[short_name(k->name)];
        t.ns += k->end - k->start;
        ++t.count;
        first_start = std::min<uint64_t>(first_start, k->start);
        last_end = std::max<uint64_t>(last_end, k->end);
    }
    std::free(buffer);
}

// Only a process that ran kernels writes: a preloaded program's helper processes (it may
// start some) inherit the library and must not overwrite the table with an empty one.
void write_table() {
    if (totals.empty()) return;
    std::vector<std::pair<std::string, Total>> rows(totals.begin(), totals.end());
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.ns > b.second.ns; });
    uint64_t all = 0, launches = 0;
    for (const auto& r : rows) all += r.second.ns, launches += r.second.count;
    const char* path = std::getenv("PRECIS_KERNEL_TRACE");
    FILE* out = path && *path ? std::fopen(path, "w") : nullptr;
    if (!out) out = stderr;
    std::fprintf(out, "%llu kernel launches, %.3f ms of kernel time over %.3f ms from the first to the last\n\n",
                 static_cast<unsigned long long>(launches), all / 1e6,
                 last_end > first_start ? (last_end - first_start) / 1e6 : 0.0);
    std::fprintf(out, "| kernel | launches | total ms | mean us | share |\n|---|---:|---:|---:|---:|\n");
    for (const auto& [name, t] : rows)
        std::fprintf(out, "| `%s` | %llu | %.3f | %.2f | %.1f%% |\n", name.c_str(),
                     static_cast<unsigned long long>(t.count), t.ns / 1e6, t.ns / 1e3 / double(t.count),
                     all ? 100.0 * double(t.ns) / double(all) : 0.0);
    if (out != stderr) std::fclose(out);
}

void at_exit() {
    if (!cupti.flush_all) return;
    cupti.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    std::lock_guard<std::mutex> lock(mu);
    write_table();
}

__attribute__((constructor)) void start() {
    void* lib = nullptr;
    for (const char* name : {"libcupti.so", "libcupti.so.13", "libcupti.so.12"})
        if ((lib = dlopen(name, RTLD_NOW | RTLD_GLOBAL))) break;
    if (!lib) {
        std::fprintf(stderr, "precis-kernel-trace: CUPTI (libcupti.so) not found: not tracing\n");
        return;
    }
    cupti.register_callbacks = reinterpret_cast<RegisterCallbacks>(dlsym(lib, "cuptiActivityRegisterCallbacks"));
    cupti.enable = reinterpret_cast<Enable>(dlsym(lib, "cuptiActivityEnable"));
    cupti.flush_all = reinterpret_cast<FlushAll>(dlsym(lib, "cuptiActivityFlushAll"));
    cupti.next_record = reinterpret_cast<NextRecord>(dlsym(lib, "cuptiActivityGetNextRecord"));
    if (!cupti.register_callbacks || !cupti.enable || !cupti.flush_all || !cupti.next_record ||
        cupti.register_callbacks(buffer_requested, buffer_completed) != CUPTI_SUCCESS ||
        cupti.enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS) {
        std::fprintf(stderr, "precis-kernel-trace: CUPTI refused the kernel activity (no GPU?): not tracing\n");
        cupti.flush_all = nullptr;
        return;
    }
    std::atexit(at_exit);
}

}  // namespace
