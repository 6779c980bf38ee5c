// Model folders: which weight files are found, shards with an index, tied weights, and
// the errors for folders without weights or tensors.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <functional>

#include <nlohmann/json.hpp>

#include "engine/io/checkpoint.h"
#include "engine/io/safetensors.h"
#include "tests/support/fixtures.h"

namespace fs = std::filesystem;
using namespace precis;

namespace {

bool same_bytes(const Tensor& a, const Tensor& b) {
    return a.dtype() == b.dtype() && a.shape() == b.shape() && std::memcmp(a.raw(), b.raw(), a.nbytes()) == 0;
}

void write_text(const fs::path& p, const std::string& s) { std::ofstream(p, std::ios::binary) << s; }

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST(Checkpoint, SafetensorsFolderLoadsAndTiesAliasTheSharedEmbedding) {
    WeightMap w = load_checkpoint(test::fixtures_dir() / "models/bart-tiny");
    EXPECT_EQ(w.size(), 95u);
    const void* shared = w.get("model.shared.weight").raw();
    EXPECT_EQ(w.get("lm_head.weight").raw(), shared);
    EXPECT_EQ(w.get("model.encoder.embed_tokens.weight").raw(), shared);
    EXPECT_EQ(w.get("model.decoder.embed_tokens.weight").raw(), shared);
}

TEST(Checkpoint, SharedEmbeddingIsRecoveredFromEmbedTokensWhenMissing) {
    const fs::path dir = test::scratch_dir("ck-tie");
    Tensor emb = Tensor::from_floats({2, 2}, {1, 2, 3, 4});
    write_safetensors(dir / "model.safetensors", {{"model.decoder.embed_tokens.weight", emb}});
    WeightMap w = load_checkpoint(dir);
    EXPECT_TRUE(same_bytes(w.get("model.shared.weight"), emb));
    EXPECT_EQ(w.get("model.encoder.embed_tokens.weight").raw(), w.get("model.decoder.embed_tokens.weight").raw());
    EXPECT_EQ(w.get("lm_head.weight").raw(), w.get("model.shared.weight").raw());
}

TEST(Checkpoint, UntiedLmHeadIsKept) {
    const fs::path dir = test::scratch_dir("ck-untied");
    write_safetensors(dir / "model.safetensors", {{"model.shared.weight", Tensor::from_floats({1, 2}, {1, 2})},
                                                  {"lm_head.weight", Tensor::from_floats({1, 2}, {5, 6})}});
    WeightMap w = load_checkpoint(dir);
    EXPECT_EQ(w.get("lm_head.weight").to_float_vector(), (std::vector<float>{5, 6}));
}

TEST(Checkpoint, ShardedSafetensorsWithAnIndexLoad) {
    const fs::path dir = test::scratch_dir("ck-shards");
    SafetensorsFile whole = read_safetensors(test::fixtures_dir() / "models/bart-tiny/model.safetensors");
    std::vector<std::pair<std::string, Tensor>> a, b;
    nlohmann::json index = {{"metadata", {{"total_size", 0}}}, {"weight_map", nlohmann::json::object()}};
    size_t i = 0;
    for (const auto& [name, t] : whole.tensors) {
        const bool first = i++ % 2 == 0;
        (first ? a : b).emplace_back(name, t);
        index["weight_map"][name] = first ? "model-00001-of-00002.safetensors" : "model-00002-of-00002.safetensors";
    }
    write_safetensors(dir / "model-00001-of-00002.safetensors", a);
    write_safetensors(dir / "model-00002-of-00002.safetensors", b);
    write_text(dir / "model.safetensors.index.json", index.dump(2));
    WeightMap w = load_checkpoint(dir);
    EXPECT_EQ(w.size(), 95u);
    for (const auto& [name, t] : whole.tensors) EXPECT_TRUE(same_bytes(w.get(name), t)) << name;
}

TEST(Checkpoint, ShardedBinWithAnIndexLoads) {
    const fs::path dir = test::scratch_dir("ck-binshards");
    fs::copy_file(test::fixtures_dir() / "models/bart-tiny-bin/pytorch_model.bin", dir / "pytorch_model-00001-of-00001.bin");
    nlohmann::json index = {{"weight_map", {{"model.shared.weight", "pytorch_model-00001-of-00001.bin"},
                                            {"final_logits_bias", "pytorch_model-00001-of-00001.bin"}}}};
    write_text(dir / "pytorch_model.bin.index.json", index.dump());
    WeightMap w = load_checkpoint(dir);
    WeightMap ref = load_checkpoint(test::fixtures_dir() / "models/bart-tiny");
    EXPECT_EQ(w.size(), 95u);
    EXPECT_TRUE(same_bytes(w.get("model.encoder.layers.1.fc2.weight"), ref.get("model.encoder.layers.1.fc2.weight")));
}

TEST(Checkpoint, BadShardIndexesAreRejectedClearly) {
    const fs::path dir = test::scratch_dir("ck-badindex");
    write_safetensors(dir / "s1.safetensors", {{"a", Tensor::from_floats({1}, {1})}});
    write_text(dir / "model.safetensors.index.json", R"({"weight_map": {"a": "../s1.safetensors"}})");
    EXPECT_NE(error_of([&] { load_checkpoint(dir); }).find("not a file name inside the model folder"), std::string::npos);
    write_text(dir / "model.safetensors.index.json", R"({"weight_map": {"a": "s2.safetensors"}})");
    EXPECT_NE(error_of([&] { load_checkpoint(dir); }).find("missing"), std::string::npos);
    write_text(dir / "model.safetensors.index.json", R"({"weight_map": {"b": "s1.safetensors"}})");
    EXPECT_NE(error_of([&] { load_checkpoint(dir); }).find("lacks tensor 'b'"), std::string::npos);
    write_text(dir / "model.safetensors.index.json", "{not json");
    EXPECT_NE(error_of([&] { load_checkpoint(dir); }).find("not a valid JSON object"), std::string::npos);
}

TEST(Checkpoint, FolderWithoutWeightsOrMissingFolderIsAClearError) {
    const fs::path dir = test::scratch_dir("ck-empty");
    write_text(dir / "config.json", "{}");
    std::string msg = error_of([&] { load_checkpoint(dir); });
    EXPECT_NE(msg.find(dir.string()), std::string::npos) << msg;
    EXPECT_NE(msg.find("has no weights"), std::string::npos) << msg;
    msg = error_of([&] { load_checkpoint(dir / "nope"); });
    EXPECT_NE(msg.find("does not exist"), std::string::npos) << msg;
}

TEST(Checkpoint, MissingTensorErrorNamesFolderAndTensor) {
    WeightMap w = load_checkpoint(test::fixtures_dir() / "models/bart-tiny");
    const std::string msg = error_of([&] { w.get("model.encoder.global_embeddings.weight"); });
    EXPECT_NE(msg.find("models/bart-tiny"), std::string::npos) << msg;
    EXPECT_NE(msg.find("has no tensor 'model.encoder.global_embeddings.weight'"), std::string::npos) << msg;
    EXPECT_FALSE(w.has("model.encoder.global_embeddings.weight"));
    EXPECT_EQ(w.find("nope"), nullptr);
}
