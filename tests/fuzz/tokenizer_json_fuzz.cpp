// libFuzzer target: tokenizer.json loading, then encoding and decoding a fixed text with
// whatever tokenizer it describes.
#include "engine/core/error.h"
#include "engine/tokenizer/tokenizer.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    precis::fuzz::write_input("tokenizer.json", data, size);
    try {
        auto tok = precis::load_tokenizer(precis::fuzz::scratch());
        const auto ids = tok->encode("Hello world <mask> caf\xC3\xA9 \xF0\x9F\x93\x9A  \n tabs\t", true);
        tok->decode(ids, false);
        tok->decode({0, 1, 2, -1, 1 << 30}, true);
    } catch (const precis::Error&) {
    }
    return 0;
}
