// libFuzzer target: the safetensors header and tensor table (read_safetensors), then every
// tensor's bytes touched, as a load would.
#include "engine/core/error.h"
#include "engine/io/safetensors.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const auto path = precis::fuzz::write_input("model.safetensors", data, size);
    try {
        precis::SafetensorsFile f = precis::read_safetensors(path);
        volatile uint8_t sink = 0;
        for (const auto& [name, t] : f.tensors)
            if (t.nbytes()) sink ^= static_cast<const uint8_t*>(t.raw())[t.nbytes() - 1];
    } catch (const precis::Error&) {
    }
    return 0;
}
