// load_tokenizer: which file it picks, and the errors for broken or missing files.
#include <gtest/gtest.h>

#include <fstream>

#include "engine/core/error.h"
#include "engine/tokenizer/tokenizer.h"
#include "tests/support/fixtures.h"

namespace precis {
namespace {

namespace fs = std::filesystem;

fs::path bart_dir() { return test::fixtures_dir() / "tokenizer" / "bart"; }

void write(const fs::path& file, const std::string& text) {
    std::ofstream out(file, std::ios::binary);
    out << text;
}

// Runs load_tokenizer(dir), which must throw precis::Error; returns the message.
std::string load_error(const fs::path& dir) {
    try {
        load_tokenizer(dir);
    } catch (const Error& e) {
        return e.what();
    }
    ADD_FAILURE() << "load_tokenizer(" << dir << ") did not throw";
    return {};
}

::testing::AssertionResult mentions(const std::string& message, const std::string& part) {
    if (message.find(part) != std::string::npos) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "\"" << message << "\" does not mention \"" << part << "\"";
}

TEST(TokenizerLoad, MissingFolderNamesTheFolder) {
    const fs::path dir = test::scratch_dir("tok-missing") / "no-such-model";
    const std::string msg = load_error(dir);
    EXPECT_TRUE(mentions(msg, dir.string()));
    EXPECT_TRUE(mentions(msg, "does not exist"));
}

TEST(TokenizerLoad, EmptyFolderSaysWhichFilesWereExpected) {
    const fs::path dir = test::scratch_dir("tok-empty");
    const std::string msg = load_error(dir);
    EXPECT_TRUE(mentions(msg, dir.string()));
    EXPECT_TRUE(mentions(msg, "tokenizer.json"));
    EXPECT_TRUE(mentions(msg, "merges.txt"));
    EXPECT_TRUE(mentions(msg, ".model"));
}

TEST(TokenizerLoad, TokenizerJsonThatIsNotJsonNamesTheFile) {
    const fs::path dir = test::scratch_dir("tok-notjson");
    write(dir / "tokenizer.json", "this is { not json");
    const std::string msg = load_error(dir);
    EXPECT_TRUE(mentions(msg, (dir / "tokenizer.json").string()));
    EXPECT_TRUE(mentions(msg, "not valid JSON"));
}

TEST(TokenizerLoad, TokenizerJsonWithWrongStructureNamesTheFileAndProblem) {
    const fs::path dir = test::scratch_dir("tok-structure");
    const fs::path file = dir / "tokenizer.json";
    write(file, "[1, 2, 3]");
    EXPECT_TRUE(mentions(load_error(dir), file.string()));
    write(file, R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}})");
    EXPECT_TRUE(mentions(load_error(dir), "ByteLevel"));
    write(file, R"({"pre_tokenizer": {"type": "ByteLevel"}, "model": {"type": "BPE", "vocab": {"a": "zero"}, "merges": []}})");
    EXPECT_TRUE(mentions(load_error(dir), "model.vocab"));
    write(file, R"({"pre_tokenizer": {"type": "ByteLevel"}, "model": {"type": "BPE", "vocab": {"a": 0}, "merges": [7]}})");
    EXPECT_TRUE(mentions(load_error(dir), "merge 0"));
    write(file, R"({"model": {"type": "Unigram", "vocab": []}})");
    const std::string msg = load_error(dir);
    EXPECT_TRUE(mentions(msg, file.string()));
    EXPECT_TRUE(mentions(msg, "Unigram"));
}

TEST(TokenizerLoad, TokenizerJsonWithWrongValueTypesNamesTheFile) {
    const fs::path dir = test::scratch_dir("tok-types");
    const fs::path file = dir / "tokenizer.json";
    write(file, R"({"pre_tokenizer": {"type": "ByteLevel"}, "model": {"type": "BPE", "vocab": {"a": 0}, "merges": []},)"
                R"( "added_tokens": [{"id": 0, "content": "a", "lstrip": "yes"}]})");
    const std::string msg = load_error(dir);
    EXPECT_TRUE(mentions(msg, file.string()));
    EXPECT_TRUE(mentions(msg, "malformed"));
}

TEST(TokenizerLoad, PathThatIsAFileIsNotAFolder) {
    const fs::path dir = test::scratch_dir("tok-file");
    write(dir / "tokenizer.json", "{}");
    EXPECT_TRUE(mentions(load_error(dir / "tokenizer.json"), "is not a folder"));
}

TEST(TokenizerLoad, VocabWithoutMergesNamesTheMissingFile) {
    const fs::path dir = test::scratch_dir("tok-nomerges");
    fs::copy_file(bart_dir() / "vocab.json", dir / "vocab.json");
    const std::string msg = load_error(dir);
    EXPECT_TRUE(mentions(msg, "no merges.txt"));
    EXPECT_TRUE(mentions(msg, dir.string()));
}

TEST(TokenizerLoad, VocabJsonThatIsNotJsonNamesTheFile) {
    const fs::path dir = test::scratch_dir("tok-badvocab");
    write(dir / "vocab.json", "{\"a\": 0,");
    fs::copy_file(bart_dir() / "merges.txt", dir / "merges.txt");
    EXPECT_TRUE(mentions(load_error(dir), (dir / "vocab.json").string()));
}

TEST(TokenizerLoad, MalformedMergesLineNamesFileAndLine) {
    const fs::path dir = test::scratch_dir("tok-badmerges");
    write(dir / "vocab.json", R"({"a": 0, "b": 1, "ab": 2})");
    write(dir / "merges.txt", "#version: 0.2\na b\nab\n");
    const std::string msg = load_error(dir);
    EXPECT_TRUE(mentions(msg, (dir / "merges.txt").string()));
    EXPECT_TRUE(mentions(msg, "line 3"));
}

TEST(TokenizerLoad, PrefersTokenizerJsonOverVocabAndMerges) {
    const fs::path dir = test::scratch_dir("tok-prefer");
    fs::copy_file(bart_dir() / "tokenizer.json", dir / "tokenizer.json");
    write(dir / "vocab.json", "broken");
    write(dir / "merges.txt", "broken");
    const auto tok = load_tokenizer(dir);
    EXPECT_EQ(tok->encode("Hello world"), (std::vector<int64_t>{0, 31414, 232, 2}));
}

TEST(TokenizerLoad, CorruptSentencepieceModelNamesTheFile) {
    const fs::path dir = test::scratch_dir("tok-badspm");
    write(dir / "spm.model", "not a protobuf");
    const std::string msg = load_error(dir);
    EXPECT_TRUE(mentions(msg, (dir / "spm.model").string()));
}

TEST(TokenizerLoad, SeveralUnconventionalSentencepieceModelsAreAmbiguous) {
    const fs::path dir = test::scratch_dir("tok-twospm");
    write(dir / "a.model", "x");
    write(dir / "b.model", "x");
    const std::string msg = load_error(dir);
    EXPECT_TRUE(mentions(msg, "a.model, b.model"));
}

}  // namespace
}  // namespace precis
