// Quantized weights cached beside the model (engine/model/weight_cache.h): the first int8
// or fp16 load writes the cache, later loads map it and get the very same weights, a
// changed or damaged cache is rebuilt, and an unwritable model folder falls back.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/io/safetensors.h"
#include "engine/model/model.h"
#include "engine/model/weight_cache.h"
#include "tests/support/fixtures.h"

namespace precis::test {
namespace {

namespace fs = std::filesystem;

// A writable copy of a fixture model (the fixtures are read in place and never written).
fs::path copy_model(const std::string& fixture, const std::string& scratch) {
    const fs::path dir = scratch_dir(scratch) / fixture;
    fs::copy(fixtures_dir() / "models" / fixture, dir, fs::copy_options::recursive);
    fs::permissions(dir, fs::perms::owner_all, fs::perm_options::add);
    for (const auto& e : fs::directory_iterator(dir)) fs::permissions(e.path(), fs::perms::owner_write, fs::perm_options::add);
    return dir;
}

LoadOptions cached(ComputeType t, const fs::path& fallback = {}) {
    LoadOptions o;
    o.compute_type = t;
    o.cache_quantized_weights = true;
    o.weight_cache_fallback = fallback;
    return o;
}

std::vector<fs::path> cache_files(const fs::path& dir) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (const auto& e : fs::recursive_directory_iterator(dir, ec))
        if (e.path().extension() == ".safetensors" && e.path().parent_path().filename() != dir.filename())
            out.push_back(e.path());
    return out;
}

bool same_bytes(const Tensor& a, const Tensor& b) {
    if (a.defined() != b.defined()) return false;
    if (!a.defined()) return true;
    return a.dtype() == b.dtype() && a.shape() == b.shape() && std::memcmp(a.raw(), b.raw(), a.nbytes()) == 0;
}

void expect_same_linear(const LinearWeights& a, const LinearWeights& b, const std::string& what) {
    EXPECT_TRUE(same_bytes(a.weight, b.weight)) << what;
    EXPECT_TRUE(same_bytes(a.scales, b.scales)) << what;
    EXPECT_TRUE(same_bytes(a.bias, b.bias)) << what;
}

void expect_same_weights(const BartWeights& a, const BartWeights& b) {
    EXPECT_EQ(a.compute_type, b.compute_type);
    EXPECT_TRUE(same_bytes(a.shared, b.shared));
    EXPECT_TRUE(same_bytes(a.encoder_positions, b.encoder_positions));
    EXPECT_TRUE(same_bytes(a.global_embeddings, b.global_embeddings));
    EXPECT_TRUE(same_bytes(a.final_logits_bias, b.final_logits_bias));
    expect_same_linear(a.lm_head, b.lm_head, "lm_head");
    ASSERT_EQ(a.encoder_layers.size(), b.encoder_layers.size());
    for (size_t i = 0; i < a.encoder_layers.size(); ++i) {
        expect_same_linear(a.encoder_layers[i].self_attn.q, b.encoder_layers[i].self_attn.q, "encoder q");
        expect_same_linear(a.encoder_layers[i].fc2, b.encoder_layers[i].fc2, "encoder fc2");
        EXPECT_TRUE(same_bytes(a.encoder_layers[i].final_norm.gamma, b.encoder_layers[i].final_norm.gamma));
    }
    ASSERT_EQ(a.decoder_layers.size(), b.decoder_layers.size());
    for (size_t i = 0; i < a.decoder_layers.size(); ++i) {
        expect_same_linear(a.decoder_layers[i].cross_attn.v, b.decoder_layers[i].cross_attn.v, "decoder cross v");
        expect_same_linear(a.decoder_layers[i].fc1, b.decoder_layers[i].fc1, "decoder fc1");
    }
}

bool mapped(const fs::path& file) {
    std::ifstream maps("/proc/self/maps");
    std::stringstream all;
    all << maps.rdbuf();
    return all.str().find(fs::canonical(file).string()) != std::string::npos;
}

std::string joined(const std::vector<std::string>& notes) {
    std::string s;
    for (const std::string& n : notes) s += n + "\n";
    return s;
}

class WeightCache : public ::testing::TestWithParam<ComputeType> {};

TEST_P(WeightCache, SecondLoadMapsTheCacheAndHoldsTheSameWeights) {
    const fs::path dir = copy_model("lsg-norm", "weight-cache-second");
    auto uncached = Model::load(dir, [] { LoadOptions o; o.compute_type = GetParam(); return o; }());
    EXPECT_TRUE(cache_files(dir).empty()) << "caching is off unless asked";

    const auto first = Model::load(dir, cached(GetParam()));
    ASSERT_EQ(first->load_notes().size(), 1u) << joined(first->load_notes());
    EXPECT_NE(first->load_notes()[0].find("weights cached in"), std::string::npos) << first->load_notes()[0];
    const std::vector<fs::path> files = cache_files(dir);
    ASSERT_EQ(files.size(), 1u);
    EXPECT_EQ(files[0].parent_path(), dir / ".precis-cache");
    EXPECT_EQ(files[0].filename().string().rfind(std::string(compute_type_name(GetParam())) + "-", 0), 0u);

    const auto second = Model::load(dir, cached(GetParam()));
    EXPECT_TRUE(second->load_notes().empty()) << joined(second->load_notes());
    expect_same_weights(uncached->weights(), second->weights());
    expect_same_weights(first->weights(), second->weights());
    // The cached loads hold views of the cache; only the uncached load mapped the float32
    // checkpoint (its biases and norms are views into it).
    EXPECT_TRUE(mapped(dir / "model.safetensors"));
    uncached.reset();
    EXPECT_FALSE(mapped(dir / "model.safetensors"));
    EXPECT_TRUE(mapped(files[0]));
}

TEST_P(WeightCache, ChangedCheckpointGetsANewCacheAndTheOldOneGoes) {
    const fs::path dir = copy_model("bart-tiny", "weight-cache-changed");
    Model::load(dir, cached(GetParam()));
    const std::vector<fs::path> before = cache_files(dir);
    ASSERT_EQ(before.size(), 1u);
    fs::last_write_time(dir / "model.safetensors", fs::last_write_time(dir / "model.safetensors") + std::chrono::seconds(5));
    const auto reloaded = Model::load(dir, cached(GetParam()));
    const std::vector<fs::path> after = cache_files(dir);
    ASSERT_EQ(after.size(), 1u);
    EXPECT_NE(after[0], before[0]);
    EXPECT_NE(joined(reloaded->load_notes()).find("weights cached in"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(ComputeTypes, WeightCache, ::testing::Values(ComputeType::Int8, ComputeType::Fp16Weights),
                         [](const auto& info) { return info.param == ComputeType::Int8 ? "Int8" : "Fp16Weights"; });

TEST(WeightCacheFiles, DamagedCacheIsReportedRemovedAndRebuilt) {
    const fs::path dir = copy_model("bart-tiny", "weight-cache-damaged");
    const auto reference = Model::load(dir, cached(ComputeType::Int8));
    const fs::path file = cache_files(dir).at(0);
    {  // its first half under its name (written beside and renamed: `reference` still maps the old file)
        std::ifstream in(file, std::ios::binary);
        std::string half(size_t(fs::file_size(file) / 2), '\0');
        in.read(half.data(), std::streamsize(half.size()));
        std::ofstream(file.string() + ".half", std::ios::binary) << half;
        fs::rename(file.string() + ".half", file);
    }

    const auto rebuilt = Model::load(dir, cached(ComputeType::Int8));
    const std::string notes = joined(rebuilt->load_notes());
    EXPECT_NE(notes.find("ignored the damaged weight cache " + file.string()), std::string::npos) << notes;
    EXPECT_NE(notes.find("weights cached in"), std::string::npos) << notes;
    expect_same_weights(reference->weights(), rebuilt->weights());
    EXPECT_TRUE(Model::load(dir, cached(ComputeType::Int8))->load_notes().empty());
}

TEST(WeightCacheFiles, CacheMissingATensorIsRebuiltNotTrusted) {
    const fs::path dir = copy_model("bart-tiny", "weight-cache-missing");
    const auto reference = Model::load(dir, cached(ComputeType::Int8));
    const fs::path file = cache_files(dir).at(0);
    SafetensorsFile f = read_safetensors(file);
    std::vector<std::pair<std::string, Tensor>> kept;
    for (auto& [name, t] : f.tensors)
        if (name != "model.decoder.layers.0.fc1.weight_scale") kept.emplace_back(name, t.clone());
    f.tensors.clear();
    write_safetensors(file, kept, f.metadata);

    const auto rebuilt = Model::load(dir, cached(ComputeType::Int8));
    const std::string notes = joined(rebuilt->load_notes());
    EXPECT_NE(notes.find("fc1.weight_scale"), std::string::npos) << notes;
    expect_same_weights(reference->weights(), rebuilt->weights());
}

TEST(WeightCacheFiles, UnwritableModelFolderCachesInTheFallback) {
    const fs::path dir = copy_model("bart-tiny", "weight-cache-fallback");
    std::ofstream(dir / ".precis-cache") << "a file where the cache folder would go\n";
    const fs::path fallback = scratch_dir("weight-cache-fallback-root");
    const auto first = Model::load(dir, cached(ComputeType::Int8, fallback));
    ASSERT_EQ(cache_files(fallback).size(), 1u) << joined(first->load_notes());
    const auto second = Model::load(dir, cached(ComputeType::Int8, fallback));
    EXPECT_TRUE(second->load_notes().empty()) << joined(second->load_notes());
    expect_same_weights(first->weights(), second->weights());
}

TEST(WeightCacheFiles, NowhereToWriteStillLoadsAndSaysWhy) {
    const fs::path dir = copy_model("bart-tiny", "weight-cache-nowhere");
    std::ofstream(dir / ".precis-cache") << "not a folder\n";
    const fs::path blocked = scratch_dir("weight-cache-nowhere-root") / "file";
    std::ofstream(blocked) << "not a folder either\n";
    const auto m = Model::load(dir, cached(ComputeType::Int8, blocked));
    const std::string notes = joined(m->load_notes());
    EXPECT_NE(notes.find("could not cache the int8 weights"), std::string::npos) << notes;
    EXPECT_EQ(m->compute_type(), ComputeType::Int8);
}

TEST(WeightCacheFiles, Float32IsNeverCached) {
    const fs::path dir = copy_model("bart-tiny", "weight-cache-fp32");
    const auto m = Model::load(dir, cached(ComputeType::Fp32));
    EXPECT_TRUE(m->load_notes().empty());
    EXPECT_FALSE(fs::exists(dir / ".precis-cache"));
}

TEST(WeightCacheFiles, EachLsgConversionHasItsOwnCache) {
    const fs::path dir = copy_model("bart-tiny", "weight-cache-convert");
    LoadOptions a = cached(ComputeType::Int8);
    a.convert_to_lsg = true;
    a.lsg.block_size = 16;
    LoadOptions b = a;
    b.lsg.num_global_tokens = 4;
    const auto first = Model::load(dir, a);
    const auto other = Model::load(dir, b);
    EXPECT_EQ(cache_files(dir).size(), 2u);
    EXPECT_TRUE(Model::load(dir, a)->load_notes().empty());
    expect_same_weights(first->weights(), Model::load(dir, a)->weights());
    EXPECT_TRUE(other->config().is_lsg);
}

}  // namespace
}  // namespace precis::test

namespace precis::test {
namespace {

// N array tasks loading one model from a shared folder: the one holding
// "<cache>.writing" writes the cache; a task that finds it held keeps its own weights
// instead of writing the same file at the same time; a lock left by a killed writer
// (older than 30 minutes) is taken over.
TEST(WeightCacheFiles, ACacheBeingWrittenByAnotherProcessIsNotWrittenAgain) {
    const fs::path dir = copy_model("bart-tiny", "weight-cache-lock");
    const WeightCacheLocation where = weight_cache_location(dir, ComputeType::Int8, "", {});
    fs::create_directories(dir / ".precis-cache");
    const fs::path lock = dir / ".precis-cache" / (where.file_name + ".writing");
    std::ofstream(lock) << "";
    const auto waiting = Model::load(dir, cached(ComputeType::Int8));
    EXPECT_TRUE(cache_files(dir).empty());
    EXPECT_NE(joined(waiting->load_notes()).find("another process is writing the weight cache"), std::string::npos)
        << joined(waiting->load_notes());
    EXPECT_TRUE(fs::exists(lock)) << "another process's lock is left alone";

    fs::last_write_time(lock, fs::file_time_type::clock::now() - std::chrono::minutes(31));
    const auto took_over = Model::load(dir, cached(ComputeType::Int8));
    EXPECT_EQ(cache_files(dir).size(), 1u);
    EXPECT_FALSE(fs::exists(lock));
    EXPECT_NE(joined(took_over->load_notes()).find("weights cached in"), std::string::npos);
}

}  // namespace
}  // namespace precis::test
