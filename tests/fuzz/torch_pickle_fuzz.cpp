// libFuzzer target: the zip reader and the restricted unpickler. The first byte picks the
// mode: even, the input is a whole pytorch_model.bin; odd, the rest is data.pkl, wrapped
// in a torch.save-style archive with one 64-byte storage "0".
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/io/torch_pickle.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

void put(std::string& s, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) s.push_back(char((v >> (8 * i)) & 0xff));
}

std::string stored_zip(const std::vector<std::pair<std::string, std::string>>& files) {
    std::string out, cd;
    for (const auto& [name, data] : files) {
        const uint64_t local = out.size();
        put(out, 0x04034b50, 4), put(out, 20, 2), put(out, 0, 2), put(out, 0, 2), put(out, 0, 8);
        put(out, data.size(), 4), put(out, data.size(), 4), put(out, name.size(), 2), put(out, 0, 2);
        out += name + data;
        put(cd, 0x02014b50, 4), put(cd, 20, 2), put(cd, 20, 2), put(cd, 0, 2), put(cd, 0, 2), put(cd, 0, 8);
        put(cd, data.size(), 4), put(cd, data.size(), 4), put(cd, name.size(), 2), put(cd, 0, 6);
        put(cd, 0, 2), put(cd, 0, 4), put(cd, local, 4);
        cd += name;
    }
    const uint64_t cd_offset = out.size();
    out += cd;
    put(out, 0x06054b50, 4), put(out, 0, 4), put(out, files.size(), 2), put(out, files.size(), 2);
    put(out, cd.size(), 4), put(out, cd_offset, 4), put(out, 0, 2);
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    std::string file;
    if (data[0] % 2 == 0) {
        file.assign(reinterpret_cast<const char*>(data + 1), size - 1);
    } else {
        file = stored_zip({{"archive/data.pkl", std::string(reinterpret_cast<const char*>(data + 1), size - 1)},
                           {"archive/data/0", std::string(64, '\0')}});
    }
    const auto path = precis::fuzz::write_input("pytorch_model.bin",
                                                reinterpret_cast<const uint8_t*>(file.data()), file.size());
    try {
        auto tensors = precis::read_torch_checkpoint(path);
        volatile uint8_t sink = 0;
        for (const auto& [name, t] : tensors)
            if (t.nbytes()) sink ^= static_cast<const uint8_t*>(t.raw())[t.nbytes() - 1];
    } catch (const precis::Error&) {
    }
    return 0;
}
