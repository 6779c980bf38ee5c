// Importing a model folder into the user's models: BART is converted to LSG, LSG is
// copied, a cancel at any point or a bad folder leaves nothing behind, and a half-done
// import is never offered as the default model.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "app/paths.h"
#include "app/worker/model_import.h"
#include "engine/core/error.h"
#include "engine/config/config.h"
#include "tests/support/fixtures.h"

namespace precis::test {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> entries_of(const fs::path& dir) {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

std::string file_bytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class ModelImport : public ::testing::Test {
protected:
    void SetUp() override {
        scratch_ = scratch_dir("model-import");
        root_ = scratch_ / "models";
    }
    // The fixture LSG model plus a 20 MiB extra file, so the copy takes several chunks.
    fs::path large_lsg_source() { return padded_fixture_model("lsg-norm", scratch_ / "lsg-big", 20u << 20); }
    fs::path scratch_, root_;
    EngineSettings settings_;
};

TEST_F(ModelImport, ConvertsBartIntoAnLsgFolderWithTheUsersLsgSettings) {
    settings_.lsg_override = true;
    settings_.block_size = 32;
    settings_.sparsity_type = SparsityType::Pooling;
    settings_.max_positions = 2048;
    const ImportedModel m =
        import_model_folder(fixtures_dir() / "models" / "bart-tiny", root_, settings_, ByteProgress{});
    EXPECT_TRUE(m.converted);
    EXPECT_EQ(m.dir, root_ / "bart-tiny-lsg");
    const ModelConfig cfg = parse_model_config(m.dir / "config.json");
    EXPECT_TRUE(cfg.is_lsg);
    EXPECT_EQ(cfg.lsg.block_size, 32);
    EXPECT_EQ(cfg.lsg.sparsity_type, SparsityType::Pooling);
    EXPECT_EQ(cfg.max_position_embeddings, 2048);
    EXPECT_TRUE(fs::exists(m.dir / "model.safetensors"));
    EXPECT_TRUE(m.message.contains("2048 positions")) << m.message.toStdString();
    EXPECT_EQ(entries_of(root_), std::vector<std::string>{"bart-tiny-lsg"});
}

TEST_F(ModelImport, CopiesAnLsgModelAsItIsAndNeverOverwrites) {
    const fs::path src = fixtures_dir() / "models" / "lsg-norm";
    const ImportedModel first = import_model_folder(src, root_, settings_, ByteProgress{});
    const ImportedModel second = import_model_folder(src, root_, settings_, ByteProgress{});
    EXPECT_FALSE(first.converted);
    EXPECT_EQ(first.dir, root_ / "lsg-norm");
    EXPECT_EQ(second.dir, root_ / "lsg-norm-2");
    for (const auto& e : fs::directory_iterator(src))
        EXPECT_EQ(file_bytes(first.dir / e.path().filename()), file_bytes(e.path())) << e.path();
    EXPECT_EQ(entries_of(root_), (std::vector<std::string>{"lsg-norm", "lsg-norm-2"}));
}

TEST_F(ModelImport, AWeightCacheInTheSourceIsNotCopied) {
    const fs::path src = scratch_ / "lsg-norm";
    fs::copy(fixtures_dir() / "models" / "lsg-norm", src, fs::copy_options::recursive);
    fs::permissions(src, fs::perms::owner_all, fs::perm_options::add);
    fs::create_directory(src / ".precis-cache");
    std::ofstream(src / ".precis-cache" / "int8-plain-0123456789abcdef.safetensors") << "cached weights";
    const ImportedModel m = import_model_folder(src, root_, settings_, ByteProgress{});
    EXPECT_TRUE(fs::exists(m.dir / "model.safetensors"));
    EXPECT_FALSE(fs::exists(m.dir / ".precis-cache"));
}

TEST_F(ModelImport, ReportsBytesWhileCopying) {
    const fs::path src = large_lsg_source();
    uint64_t last_done = 0, last_total = 0;
    int reports = 0;
    ByteProgress progress;
    progress.progress = [&](uint64_t done, uint64_t total) {
        EXPECT_GE(done, last_done);
        last_done = done;
        last_total = total;
        ++reports;
    };
    import_model_folder(src, root_, settings_, progress);
    EXPECT_GE(reports, 3);
    EXPECT_EQ(last_done, last_total);
    EXPECT_GT(last_total, uint64_t(20) << 20);
}

TEST_F(ModelImport, CancelMidCopyLeavesNothingBehind) {
    const fs::path src = large_lsg_source();
    int reports = 0;
    ByteProgress progress;
    progress.progress = [&](uint64_t, uint64_t) { ++reports; };
    progress.should_abort = [&] { return reports >= 1; };  // after the first chunk is written
    EXPECT_THROW(import_model_folder(src, root_, settings_, progress), Cancelled);
    EXPECT_EQ(reports, 1);
    EXPECT_TRUE(entries_of(root_).empty());
}

TEST_F(ModelImport, CancelDuringConversionLeavesNothingBehind) {
    ByteProgress progress;
    progress.should_abort = [] { return true; };
    EXPECT_THROW(import_model_folder(fixtures_dir() / "models" / "bart-tiny", root_, settings_, progress), Cancelled);
    EXPECT_TRUE(entries_of(root_).empty());
}

TEST_F(ModelImport, AFolderWithoutConfigIsOneErrorNamingIt) {
    const fs::path not_a_model = scratch_ / "photos";
    fs::create_directories(not_a_model);
    try {
        import_model_folder(not_a_model, root_, settings_, ByteProgress{});
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(not_a_model.string()), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("config.json"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(entries_of(root_).empty());
}

TEST_F(ModelImport, AnUnfinishedImportIsNeverTheDefaultModel) {
    const fs::path data = scratch_ / "data";
    const fs::path models = data / "precis" / "models";
    fs::create_directories(models / ".a-model.partial-123");
    std::ofstream(models / ".a-model.partial-123" / "config.json") << "{}";
    fs::create_directories(models / "b-model");
    std::ofstream(models / "b-model" / "config.json") << "{}";
    const char* old = std::getenv("XDG_DATA_HOME");
    const std::string saved = old ? old : "";
    setenv("XDG_DATA_HOME", data.c_str(), 1);
    const fs::path chosen = user_default_model();
    if (old) setenv("XDG_DATA_HOME", saved.c_str(), 1); else unsetenv("XDG_DATA_HOME");
    EXPECT_EQ(chosen, models / "b-model");
}

// With no default chosen, the fallback is the first installed summarizer by name: a
// classifier before it in the list (downloaded first, say) is passed over, and with only
// classifiers installed there is no default and summaries are extractive.
TEST_F(ModelImport, AClassifierIsNeverTheFallbackDefaultModel) {
    const fs::path data = scratch_ / "data";
    const fs::path models = data / "precis" / "models";
    fs::create_directories(models / "a-classifier");
    fs::copy_file(fixtures_dir() / "models" / "bart-tiny-cls" / "config.json", models / "a-classifier" / "config.json");
    const char* old = std::getenv("XDG_DATA_HOME");
    const std::string saved = old ? old : "";
    const char* old_hf = std::getenv("HF_HUB_CACHE");
    const std::string saved_hf = old_hf ? old_hf : "";
    const char* old_config = std::getenv("XDG_CONFIG_HOME");
    const std::string saved_config = old_config ? old_config : "";
    setenv("XDG_DATA_HOME", data.c_str(), 1);
    setenv("HF_HUB_CACHE", (scratch_ / "no-hf-cache").c_str(), 1);
    setenv("XDG_CONFIG_HOME", (scratch_ / "config").c_str(), 1);  // no default chosen
    const fs::path only_classifier = user_default_model();
    fs::create_directories(models / "b-summarizer");
    fs::copy_file(fixtures_dir() / "models" / "bart-tiny" / "config.json", models / "b-summarizer" / "config.json");
    const fs::path with_summarizer = user_default_model();
    if (old) setenv("XDG_DATA_HOME", saved.c_str(), 1); else unsetenv("XDG_DATA_HOME");
    if (old_hf) setenv("HF_HUB_CACHE", saved_hf.c_str(), 1); else unsetenv("HF_HUB_CACHE");
    if (old_config) setenv("XDG_CONFIG_HOME", saved_config.c_str(), 1); else unsetenv("XDG_CONFIG_HOME");
    EXPECT_EQ(only_classifier, fs::path()) << "a classifier became the default for summaries";
    EXPECT_EQ(with_summarizer, models / "b-summarizer");
}

}  // namespace
}  // namespace precis::test
