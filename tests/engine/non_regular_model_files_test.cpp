// Every model file is refused with one clear error naming it when it is not a regular
// file: a FIFO (which would block the reader forever) or a symlink to /dev/zero (which
// never ends). Each case must return promptly; a hang fails the test instead of the suite.
#include <gtest/gtest.h>

#include "engine/core/error.h"
#include "engine/io/checkpoint.h"
#include "engine/io/regular_file.h"
#include "engine/config/config.h"
#include "engine/model/model.h"
#include "engine/tokenizer/sentencepiece_tokenizer.h"
#include "engine/tokenizer/tokenizer.h"
#include "tests/support/fixtures.h"
#include "tests/support/hostile_inputs.h"

namespace fs = std::filesystem;
using namespace precis;
using namespace precis::test;

namespace {

fs::path model_copy(const std::string& name, const std::string& fixture = "bart-tiny") {
    const fs::path dir = scratch_dir(name) / "model";
    fs::copy(fixtures_dir() / "models" / fixture, dir, fs::copy_options::recursive);
    return dir;
}

enum class Kind { Fifo, DevZero };

// Replaces dir/file with a FIFO or a symlink to /dev/zero; returns the FIFO to release.
fs::path make_hostile(const fs::path& path, Kind kind) {
    std::error_code ec;
    fs::remove(path, ec);
    if (kind == Kind::Fifo) {
        make_fifo(path);
        return path;
    }
    fs::create_symlink("/dev/zero", path);
    return {};
}

void expect_refused(const std::function<void()>& load, const fs::path& file, Kind kind) {
    const std::string msg = error_within(load, kind == Kind::Fifo ? file : fs::path());
    EXPECT_NE(msg.find(file.filename().string()), std::string::npos) << msg;
    EXPECT_NE(msg.find(kind == Kind::Fifo ? "named pipe (FIFO)" : "character device"), std::string::npos) << msg;
    EXPECT_NE(msg.find("not a regular file"), std::string::npos) << msg;
}

class NonRegularModelFiles : public ::testing::TestWithParam<Kind> {};

}  // namespace

TEST_P(NonRegularModelFiles, ConfigAndGenerationConfigAreRefused) {
    for (const char* name : {"config.json", "generation_config.json"}) {
        const fs::path dir = model_copy(std::string("nonreg-") + name);
        const fs::path file = make_hostile(dir / name, GetParam());
        expect_refused([&] { Model::load(dir); }, dir / name, GetParam());
        (void)file;
    }
}

TEST_P(NonRegularModelFiles, SafetensorsShardIndexAndPickleWeightsAreRefused) {
    {
        const fs::path dir = model_copy("nonreg-st");
        make_hostile(dir / "model.safetensors", GetParam());
        expect_refused([&] { load_checkpoint(dir); }, dir / "model.safetensors", GetParam());
    }
    {
        const fs::path dir = model_copy("nonreg-index");
        fs::remove(dir / "model.safetensors");
        make_hostile(dir / "model.safetensors.index.json", GetParam());
        expect_refused([&] { load_checkpoint(dir); }, dir / "model.safetensors.index.json", GetParam());
    }
    {
        const fs::path dir = model_copy("nonreg-shard");
        fs::rename(dir / "model.safetensors", dir / "shard-1.safetensors");
        write_file(dir / "model.safetensors.index.json", R"({"weight_map": {"model.shared.weight": "shard-2.safetensors"}})");
        make_hostile(dir / "shard-2.safetensors", GetParam());
        expect_refused([&] { load_checkpoint(dir); }, dir / "shard-2.safetensors", GetParam());
    }
    {
        const fs::path dir = model_copy("nonreg-bin", "bart-tiny-bin");
        make_hostile(dir / "pytorch_model.bin", GetParam());
        expect_refused([&] { load_checkpoint(dir); }, dir / "pytorch_model.bin", GetParam());
    }
}

TEST_P(NonRegularModelFiles, TokenizerFilesAreRefused) {
    for (const char* name : {"tokenizer.json", "vocab.json", "merges.txt"}) {
        const fs::path dir = scratch_dir(std::string("nonreg-tok-") + name);
        for (const char* f : {"vocab.json", "merges.txt"})
            fs::copy_file(fixtures_dir() / "tokenizer/bart" / f, dir / f);
        make_hostile(dir / name, GetParam());
        expect_refused([&] { load_tokenizer(dir); }, dir / name, GetParam());
    }
    const fs::path dir = scratch_dir("nonreg-spm");
    make_hostile(dir / "spm.model", GetParam());
    expect_refused([&] { load_tokenizer(dir); }, dir / "spm.model", GetParam());
    expect_refused([&] { SentencePieceTokenizer t(dir / "spm.model"); }, dir / "spm.model", GetParam());
}

INSTANTIATE_TEST_SUITE_P(FifoAndDevZero, NonRegularModelFiles, ::testing::Values(Kind::Fifo, Kind::DevZero),
                         [](const auto& info) { return info.param == Kind::Fifo ? "Fifo" : "DevZeroSymlink"; });

TEST(RegularFile, ReadRefusesFilesOverTheLimitAndNamesTheSizes) {
    const fs::path file = scratch_dir("regular-limit") / "big.json";
    write_file(file, std::string(2000, ' '));
    const std::string msg = error_within([&] { read_regular_file(file, "the file 'big.json'", 1000); });
    EXPECT_NE(msg.find("the file 'big.json' is 2.0 KB; the limit for it is 1.0 KB"), std::string::npos) << msg;
    EXPECT_EQ(read_regular_file(file, "x", 2000).size(), 2000u);
}
