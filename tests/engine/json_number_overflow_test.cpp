// A JSON number too large for a double (1e999) is an out_of_range error in nlohmann, not a
// parse_error: it must become our one-sentence error like any other bad JSON, not escape
// as an uncaught exception that aborts the process (found by tests/fuzz/config_fuzz).
#include <gtest/gtest.h>

#include <fstream>

#include "engine/core/error.h"
#include "engine/io/json_file.h"
#include "engine/config/config.h"
#include "tests/support/fixtures.h"

namespace precis {
namespace {

TEST(JsonNumberOverflow, HugeNumberIsOneClearErrorNamingTheFile) {
    try {
        parse_json_text(R"({"activation_dropout": 0.5E2225555, "d_model": 16})", "config.json of the model");
        ADD_FAILURE() << "a number beyond double was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("config.json of the model is not valid JSON"), std::string::npos) << e.what();
    }
}

TEST(JsonNumberOverflow, GenerationConfigWithAHugeNumberIsRefusedNotFatal) {
    const auto dir = test::scratch_dir("json-number-overflow");
    std::ofstream(dir / "generation_config.json") << R"({"max_length": 1e999})";
    ModelConfig cfg;
    cfg.vocab_size = 1000;
    EXPECT_THROW(load_generation_config(dir, cfg), Error);
}

}  // namespace
}  // namespace precis
