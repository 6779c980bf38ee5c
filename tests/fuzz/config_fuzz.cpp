// libFuzzer target: config.json and generation_config.json parsing (depth check, nlohmann,
// every key's validation).
#include <nlohmann/json.hpp>

#include "engine/core/error.h"
#include "engine/io/json_file.h"
#include "engine/config/config.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    precis::ModelConfig cfg;
    try {
        cfg = precis::model_config_from_json(precis::parse_json_text(text, "fuzz config"), "fuzz config");
    } catch (const precis::Error&) {
        cfg = precis::ModelConfig();
        cfg.vocab_size = 1000;
    }
    precis::fuzz::write_input("generation_config.json", data, size);
    try {
        precis::load_generation_config(precis::fuzz::scratch(), cfg);
    } catch (const precis::Error&) {
    }
    return 0;
}
