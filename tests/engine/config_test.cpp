// config.json / generation_config.json parsing: every fixture config, and the errors for
// missing keys, wrong types, absurd values and LSG constraint violations.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>

#include <nlohmann/json.hpp>

#include "engine/config/config.h"
#include "tests/support/fixtures.h"

namespace fs = std::filesystem;
using namespace precis;
using nlohmann::json;

namespace {

json fixture_config(const std::string& model) {
    std::ifstream in(test::fixtures_dir() / "models" / model / "config.json");
    return json::parse(in);
}

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

// Writes `j` as config.json in a scratch folder and returns the parse error ("" if none).
std::string config_error(const json& j, const std::string& name) {
    const fs::path p = test::scratch_dir("cfg-" + name) / "config.json";
    std::ofstream(p) << j.dump();
    std::string msg = error_of([&] { parse_model_config(p); });
    if (!msg.empty()) {
        EXPECT_NE(msg.find(p.string()), std::string::npos) << "message does not name the file: " << msg;
    }
    return msg;
}

void expect_has(const std::string& msg, std::initializer_list<const char*> needles) {
    EXPECT_FALSE(msg.empty()) << "expected an error";
    for (const char* n : needles) EXPECT_NE(msg.find(n), std::string::npos) << "missing '" << n << "' in: " << msg;
}

}  // namespace

TEST(Config, EveryFixtureConfigParses) {
    int count = 0;
    for (const auto& e : fs::directory_iterator(test::fixtures_dir() / "models")) {
        const std::string name = e.path().filename().string();
        SCOPED_TRACE(name);
        ModelConfig c = parse_model_config(e.path() / "config.json");
        ++count;
        const bool lsg = name.rfind("lsg-", 0) == 0 || name == "bart-tiny-to-lsg";
        EXPECT_EQ(c.is_lsg, lsg);
        EXPECT_EQ(c.is_classifier, name.find("-cls") != std::string::npos);
        EXPECT_EQ(c.encoder_layers, 2);
        EXPECT_EQ(c.decoder_layers, 2);
        EXPECT_EQ(c.encoder_heads, 4);
        EXPECT_EQ(c.activation, "gelu");
        EXPECT_EQ(c.max_position_embeddings, lsg ? 512 : 128);
        EXPECT_EQ(c.vocab_size, name == "bart-tiny-realvocab" ? 50265 : 1000);
        EXPECT_EQ(c.id2label, (std::vector<std::string>{"LABEL_0", "LABEL_1", "LABEL_2"}));
        if (!lsg) continue;
        const LsgSettings& l = c.lsg;
        EXPECT_EQ(l.block_size, 16);
        EXPECT_EQ(l.sparse_block_size, 16);
        EXPECT_EQ(l.sparsity_factor, name.find("-sf4") != std::string::npos ? 4 : 2);
        EXPECT_EQ(l.num_global_tokens, name == "lsg-norm-g4" ? 4 : name == "bart-tiny-to-lsg" ? 2 : 1);
        EXPECT_EQ(l.pass_global_tokens_to_decoder, name != "lsg-norm-nopass");
        EXPECT_EQ(l.mask_first_token, name == "lsg-norm-maskfirst");
        EXPECT_TRUE(l.adaptive);
        EXPECT_TRUE(l.pool_with_global);
        EXPECT_EQ(l.lsh_num_pre_rounds, 1);
        std::string type = name.substr(4);
        if (name == "bart-tiny-to-lsg") type = "norm";
        type = type.substr(0, type.find('-'));
        EXPECT_EQ(sparsity_type_name(l.sparsity_type), type);
    }
    EXPECT_EQ(count, 22);
}

TEST(Config, BartTinyValuesAndTokenIds) {
    ModelConfig c = parse_model_config(test::fixtures_dir() / "models/bart-tiny/config.json");
    EXPECT_EQ(c.architecture, "BartForConditionalGeneration");
    EXPECT_EQ(c.d_model, 32);
    EXPECT_EQ(c.encoder_head_dim(), 8);
    EXPECT_EQ(c.encoder_ffn_dim, 64);
    EXPECT_FALSE(c.scale_embedding);
    EXPECT_EQ(c.pad_token_id, 1);
    EXPECT_EQ(c.bos_token_id, 0);
    EXPECT_EQ(c.eos_token_id, 2);
    EXPECT_EQ(c.decoder_start_token_id, 2);
    EXPECT_EQ(c.forced_bos_token_id, 0);
    EXPECT_EQ(c.forced_eos_token_id, 2);
    EXPECT_EQ(c.problem_type, "");
}

TEST(Config, MissingKeyErrorNamesFileAndKey) {
    for (const char* key : {"d_model", "vocab_size", "encoder_layers", "decoder_attention_heads", "encoder_ffn_dim",
                            "max_position_embeddings"}) {
        json j = fixture_config("bart-tiny");
        j.erase(key);
        expect_has(config_error(j, "missing"), {key, "missing"});
    }
}

TEST(Config, WrongTypesAreRejected) {
    json j = fixture_config("bart-tiny");
    j["d_model"] = "32";
    expect_has(config_error(j, "type1"), {"d_model", "integer"});
    j = fixture_config("bart-tiny");
    j["encoder_layers"] = 2.5;
    expect_has(config_error(j, "type2"), {"encoder_layers", "integer"});
    j = fixture_config("bart-tiny");
    j["scale_embedding"] = 1;
    expect_has(config_error(j, "type3"), {"scale_embedding"});
    j = fixture_config("lsg-norm");
    j["adaptive"] = "yes";
    expect_has(config_error(j, "type4"), {"adaptive"});
    j = fixture_config("bart-tiny");
    j["id2label"] = {{"zero", "A"}};
    expect_has(config_error(j, "type5"), {"id2label"});
}

TEST(Config, AbsurdValuesAreRejected) {
    json j = fixture_config("bart-tiny");
    j["encoder_attention_heads"] = 5;
    expect_has(config_error(j, "heads"), {"d_model 32", "encoder_attention_heads 5"});
    j = fixture_config("bart-tiny");
    j["vocab_size"] = 0;
    expect_has(config_error(j, "vocab"), {"vocab_size"});
    j = fixture_config("bart-tiny");
    j["decoder_layers"] = -1;
    expect_has(config_error(j, "layers"), {"decoder_layers"});
    j = fixture_config("bart-tiny");
    j["d_model"] = int64_t(1) << 40;
    expect_has(config_error(j, "huge"), {"d_model"});
    j = fixture_config("bart-tiny");
    j["activation_function"] = "relu";
    expect_has(config_error(j, "act"), {"activation_function", "relu"});
    j = fixture_config("bart-tiny");
    j["eos_token_id"] = 1000;
    expect_has(config_error(j, "eos"), {"eos_token_id"});
    j = fixture_config("bart-tiny");
    j["model_type"] = "t5";
    expect_has(config_error(j, "t5"), {"model_type", "t5"});
}

TEST(Config, NotJsonIsRejectedNamingTheFile) {
    const fs::path dir = test::scratch_dir("cfg-notjson");
    std::ofstream(dir / "config.json") << "{\"d_model\": 32,";
    expect_has(error_of([&] { parse_model_config(dir / "config.json"); }), {"config.json", "not valid JSON"});
    expect_has(error_of([&] { parse_model_config(dir / "missing.json"); }), {"missing.json"});
}

TEST(Config, LsgConstraintViolationsAreRejected) {
    struct Case { const char* key; json value; const char* needle; };
    const Case cases[] = {
        {"sparsity_factor", 3, "does not divide block_size"},
        {"block_size", 0, "block_size must be positive"},
        {"sparsity_factor", 0, "sparsity_factor must be positive"},
        {"sparse_block_size", -1, "must not be negative"},
        {"sparsity_type", "fancy", "fancy"},
        {"sparsity_type", 3, "sparsity_type"},
        {"lsh_num_pre_rounds", -1, "lsh_num_pre_rounds"},
    };
    for (const Case& c : cases) {
        json j = fixture_config("lsg-norm");
        j[c.key] = c.value;
        SCOPED_TRACE(c.key);
        expect_has(config_error(j, "lsg"), {c.needle});
    }
    // p = B/f odd and not 1.
    json j = fixture_config("lsg-norm");
    j["block_size"] = 24;
    j["sparse_block_size"] = 24;
    j["sparsity_factor"] = 8;
    expect_has(config_error(j, "podd"), {"even or exactly 1"});
    // 4 SB <= 3 p.
    j = fixture_config("lsg-pooling");
    j["block_size"] = 64;
    j["sparse_block_size"] = 16;
    j["sparsity_factor"] = 2;
    expect_has(config_error(j, "sb"), {"too small"});
    // norm: the chunk min(B, SB) must divide B.
    j = fixture_config("lsg-norm");
    j["block_size"] = 16;
    j["sparse_block_size"] = 12;
    expect_has(config_error(j, "chunk"), {"must divide block_size"});
    // ... which pooling does not need.
    j = fixture_config("lsg-pooling");
    j["sparse_block_size"] = 12;
    EXPECT_EQ(config_error(j, "pool-ok"), "");
    // sparse part off: the sparse constraints do not apply.
    j = fixture_config("lsg-none");
    j["sparsity_factor"] = 3;
    EXPECT_EQ(config_error(j, "none-ok"), "");
}

TEST(Config, NumGlobalTokensIsClampedLikeTheReference) {
    json j = fixture_config("lsg-norm");
    j["num_global_tokens"] = 1000;
    ModelConfig c = model_config_from_json(j, "test");
    EXPECT_EQ(c.lsg.num_global_tokens, 512);
    j["num_global_tokens"] = 0;
    EXPECT_EQ(model_config_from_json(j, "test").lsg.num_global_tokens, 1);
}

TEST(Config, LsgSettingsValidateNamesWhere) {
    LsgSettings s;
    EXPECT_NO_THROW(s.validate("defaults"));
    s.sparsity_factor = 5;
    expect_has(error_of([&] { s.validate("--sparsity-factor"); }), {"--sparsity-factor", "5"});
    s = LsgSettings();
    s.num_global_tokens = 0;
    expect_has(error_of([&] { s.validate("x"); }), {"num_global_tokens"});
}

TEST(Config, SparsityTypeNamesRoundTrip) {
    for (const char* n : {"none", "norm", "pooling", "stride", "block_stride", "bos_pooling", "lsh"})
        EXPECT_STREQ(sparsity_type_name(parse_sparsity_type(n)), n);
    expect_has(error_of([] { parse_sparsity_type("Norm"); }), {"\"Norm\""});
}

TEST(Config, ClassifierLabelsAndProblemType) {
    json j = fixture_config("bart-tiny-cls");
    j["id2label"] = {{"1", "positive"}, {"0", "negative"}};
    j["problem_type"] = "single_label_classification";
    ModelConfig c = model_config_from_json(j, "test");
    EXPECT_TRUE(c.is_classifier);
    EXPECT_EQ(c.id2label, (std::vector<std::string>{"negative", "positive"}));
    EXPECT_EQ(c.problem_type, "single_label_classification");
    j.erase("id2label");
    j["num_labels"] = 2;
    EXPECT_EQ(model_config_from_json(j, "test").id2label, (std::vector<std::string>{"LABEL_0", "LABEL_1"}));
    j["id2label"] = {{"0", "a"}, {"2", "c"}};
    expect_has(error_of([&] { model_config_from_json(j, "test"); }), {"id2label"});
}

TEST(Config, GenerationConfigFromTheFixtureFile) {
    const fs::path dir = test::fixtures_dir() / "models/bart-tiny";
    ModelConfig m = parse_model_config(dir / "config.json");
    GenerationConfig g = load_generation_config(dir, m);
    EXPECT_EQ(g.num_beams, 1);
    EXPECT_EQ(g.max_length, 20);
    EXPECT_FALSE(g.max_new_tokens.has_value());
    EXPECT_EQ(g.decoder_start_token_id, 2);
    EXPECT_EQ(g.forced_bos_token_id, 0);
    EXPECT_EQ(g.forced_eos_token_id, 2);
    EXPECT_EQ(g.pad_token_id, 1);
    EXPECT_DOUBLE_EQ(g.length_penalty, 1.0);
}

TEST(Config, GenerationConfigFallsBackToConfigJsonKeys) {
    const fs::path dir = test::scratch_dir("gen-fallback");
    json j = fixture_config("bart-tiny");
    j["num_beams"] = 4;
    j["max_length"] = 142;
    j["min_length"] = 56;
    j["length_penalty"] = 2.0;
    j["no_repeat_ngram_size"] = 3;
    j["early_stopping"] = true;
    std::ofstream(dir / "config.json") << j.dump();
    ModelConfig m = parse_model_config(dir / "config.json");
    GenerationConfig g = load_generation_config(dir, m);
    EXPECT_EQ(g.num_beams, 4);
    EXPECT_EQ(g.max_length, 142);
    EXPECT_EQ(g.min_length, 56);
    EXPECT_DOUBLE_EQ(g.length_penalty, 2.0);
    EXPECT_EQ(g.no_repeat_ngram_size, 3);
    EXPECT_TRUE(g.early_stopping);
    EXPECT_EQ(g.forced_bos_token_id, 0);
    EXPECT_EQ(g.forced_eos_token_id, 2);
}

TEST(Config, GenerationConfigFileWinsAndIsValidated) {
    const fs::path dir = test::scratch_dir("gen-file");
    json j = fixture_config("bart-tiny");
    j["num_beams"] = 4;
    std::ofstream(dir / "config.json") << j.dump();
    std::ofstream(dir / "generation_config.json") << R"({"max_new_tokens": 30, "eos_token_id": [2, 3], "early_stopping": "never"})";
    ModelConfig m = parse_model_config(dir / "config.json");
    GenerationConfig g = load_generation_config(dir, m);
    EXPECT_EQ(g.num_beams, 1);  // not taken from config.json when the generation file exists
    EXPECT_EQ(g.max_new_tokens.value_or(-1), 30);
    EXPECT_EQ(g.eos_token_id, 2);
    EXPECT_FALSE(g.early_stopping);
    EXPECT_EQ(g.forced_bos_token_id, -1);  // unset in the file: no forced BOS (HF semantics)
    EXPECT_EQ(g.decoder_start_token_id, 2);
    std::ofstream(dir / "generation_config.json") << R"({"num_beams": 0})";
    expect_has(error_of([&] { load_generation_config(dir, m); }), {"generation_config.json", "num_beams"});
    // No files at all: the model's values and HF defaults.
    const fs::path none = test::scratch_dir("gen-none");
    GenerationConfig d = load_generation_config(none, m);
    EXPECT_EQ(d.max_length, 20);
    EXPECT_EQ(d.forced_eos_token_id, 2);
}
