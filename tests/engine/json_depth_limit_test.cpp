// JSON read from a model folder is refused with one clear error when it nests deeper
// than 512 levels, before nlohmann's recursive DOM code can overflow the stack: config.json,
// generation_config.json, tokenizer.json, vocab.json, a shard index and a safetensors header.
#include <gtest/gtest.h>

#include <cstring>

#include "engine/core/error.h"
#include "engine/io/checkpoint.h"
#include "engine/io/json_file.h"
#include "engine/io/safetensors.h"
#include "engine/config/config.h"
#include "engine/model/model.h"
#include "engine/tokenizer/tokenizer.h"
#include "tests/support/fixtures.h"
#include "tests/support/hostile_inputs.h"

namespace fs = std::filesystem;
using namespace precis;
using namespace precis::test;

namespace {

constexpr size_t kDeep = 100000;

void expect_too_deep(const std::string& message, const std::string& names) {
    EXPECT_NE(message.find("more than 512 levels deep"), std::string::npos) << message;
    EXPECT_NE(message.find(names), std::string::npos) << message;
}

fs::path model_copy(const std::string& name) {
    const fs::path dir = scratch_dir(name) / "model";
    fs::copy(fixtures_dir() / "models/bart-tiny", dir, fs::copy_options::recursive);
    return dir;
}

}  // namespace

TEST(JsonDepthLimit, BracketsInsideStringsDoNotCountAndModestNestingPasses) {
    EXPECT_NO_THROW(check_json_depth("{\"a\": \"" + std::string(5000, '[') + "\"}", "test"));
    EXPECT_NO_THROW(check_json_depth("{\"a\": \"\\\"[[[\"}", "test"));
    EXPECT_NO_THROW(parse_json_text(deep_json(512), "test"));
    expect_too_deep(error_within([] { parse_json_text(deep_json(513), "the test text"); }), "the test text");
}

TEST(JsonDepthLimit, DeepConfigJsonIsOneClearError) {
    const fs::path dir = model_copy("deep-config");
    write_file(dir / "config.json", json_object_with_deep_value("d_model", kDeep));
    expect_too_deep(error_within([&] { parse_model_config(dir / "config.json"); }), "config.json");
    expect_too_deep(error_within([&] { Model::load(dir); }), "config.json");
}

TEST(JsonDepthLimit, DeepGenerationConfigIsOneClearError) {
    const fs::path dir = model_copy("deep-generation-config");
    write_file(dir / "generation_config.json", json_object_with_deep_value("num_beams", kDeep));
    expect_too_deep(error_within([&] { Model::load(dir); }), "generation_config.json");
}

TEST(JsonDepthLimit, DeepTokenizerJsonAndVocabJsonAreOneClearError) {
    const fs::path dir = scratch_dir("deep-tokenizer");
    write_file(dir / "tokenizer.json", json_object_with_deep_value("model", kDeep));
    expect_too_deep(error_within([&] { load_tokenizer(dir); }), "tokenizer.json");
    fs::remove(dir / "tokenizer.json");
    write_file(dir / "vocab.json", deep_json(kDeep));
    write_file(dir / "merges.txt", "#version: 0.2\n");
    expect_too_deep(error_within([&] { load_tokenizer(dir); }), "vocab.json");
}

TEST(JsonDepthLimit, DeepShardIndexIsOneClearError) {
    const fs::path dir = model_copy("deep-index");
    fs::remove(dir / "model.safetensors");
    write_file(dir / "model.safetensors.index.json", json_object_with_deep_value("weight_map", kDeep));
    expect_too_deep(error_within([&] { load_checkpoint(dir); }), "model.safetensors.index.json");
}

TEST(JsonDepthLimit, DeepSafetensorsHeaderIsOneClearError) {
    const fs::path file = scratch_dir("deep-safetensors") / "model.safetensors";
    const std::string header = json_object_with_deep_value("x", kDeep);
    std::string bytes(8, '\0');
    for (int i = 0; i < 8; ++i) bytes[size_t(i)] = char((uint64_t(header.size()) >> (8 * i)) & 0xff);
    write_file(file, bytes + header);
    expect_too_deep(error_within([&] { read_safetensors(file); }), "model.safetensors");
}
