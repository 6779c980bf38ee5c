// Sizes taken from files and flags are checked before anything is allocated: element
// counts that overflow int64, position tables larger than the machine's memory, token ids
// near INT32_MAX, and empty vocabularies are each one clear error.
#include <gtest/gtest.h>

#include <limits>

#include "engine/core/checked.h"
#include "engine/core/error.h"
#include "engine/core/tensor.h"
#include "engine/model/model.h"
#include "engine/tokenizer/tokenizer.h"
#include "tests/support/fixtures.h"
#include "tests/support/hostile_inputs.h"

namespace fs = std::filesystem;
using namespace precis;
using namespace precis::test;

namespace {

std::string error_of(const std::function<void()>& fn) { return error_within(fn); }

void expect_contains(const std::string& msg, const std::string& what) {
    EXPECT_NE(msg.find(what), std::string::npos) << "missing '" << what << "' in: " << msg;
}

// A tokenizer.json with the fixture's byte-level settings and the given vocab/added tokens.
std::string tokenizer_json(const std::string& vocab, const std::string& added = "[]") {
    return R"({"added_tokens": )" + added + R"(, "normalizer": null,
      "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true},
      "post_processor": null, "decoder": {"type": "ByteLevel"},
      "model": {"type": "BPE", "vocab": )" + vocab + R"(, "merges": []}})";
}

}  // namespace

TEST(SizeLimits, ShapeElementCountOverflowIsAnErrorNotUndefinedBehaviour) {
    const int64_t big = int64_t(1) << 40;
    expect_contains(error_of([&] { shape_numel({big, big}); }), "more elements than 64-bit integers can count");
    expect_contains(error_of([&] { Tensor::empty(DType::F32, {big, big}); }), "[1099511627776, 1099511627776]");
    expect_contains(error_of([&] { Tensor::empty(DType::F32, {int64_t(1) << 60, 4}); }), "more bytes");
    expect_contains(error_of([&] { Tensor::view(DType::I64, {int64_t(1) << 62}, nullptr, nullptr); }), "more bytes");
    EXPECT_EQ(shape_numel({big, big, 0}), 0);
    expect_contains(error_of([] { checked_mul(int64_t(1) << 62, int64_t(4), "the table"); }),
                    "the table overflows 64-bit integers");
}

TEST(SizeLimits, MemoryNeedsAreComparedWithWhatTheMachineHasFree) {
    const uint64_t free = available_memory_bytes();
    ASSERT_GT(free, 0u) << "/proc/meminfo has no MemAvailable";
    EXPECT_NO_THROW(require_memory(1024, "a small table"));
    const std::string msg = error_of([&] { require_memory(free * 4, "the big table"); });
    expect_contains(msg, "the big table needs " + human_bytes(free * 4) + "; this machine has ");
    expect_contains(msg, " free");
    EXPECT_EQ(human_bytes(9'800'000'000), "9.8 GB");
    EXPECT_EQ(human_bytes(512'000'000), "512 MB");
    EXPECT_EQ(human_bytes(7), "7 bytes");
}

TEST(SizeLimits, MaxPositionsBeyondTheLimitOrTheMachineIsRefusedBeforeAllocating) {
    const fs::path dir = fixtures_dir() / "models/bart-tiny";
    LoadOptions o;
    o.max_positions = kMaxPositionsLimit + 1;
    expect_contains(error_of([&] { Model::load(dir, o); }), "the limit is 16777216");
    // Within the limit but, with a wide enough table, more than any test machine has: the
    // fixture's d_model is 32, so 16M positions need 2 x 16M x 32 x 4 bytes = 4.3 GB. Only
    // assert when that exceeds the free memory here.
    o.max_positions = kMaxPositionsLimit;
    if (available_memory_bytes() < uint64_t(4'300'000'000)) {
        const std::string msg = error_of([&] { Model::load(dir, o); });
        expect_contains(msg, "extending the position tables to 16777216 positions needs 4.3 GB; this machine has");
    }
}

TEST(SizeLimits, TokenIdsFarBeyondTheVocabularyAreRefused) {
    const fs::path dir = scratch_dir("tok-huge-id");
    write_file(dir / "tokenizer.json", tokenizer_json(R"({"a": 0, "b": 2147483646})"));
    std::string msg = error_of([&] { load_tokenizer(dir); });
    expect_contains(msg, "tokenizer.json");
    expect_contains(msg, "has the id 2147483646, far beyond its 2 tokens");
    write_file(dir / "tokenizer.json",
               tokenizer_json(R"({"a": 0, "b": 1})",
                              R"([{"id": 2147483000, "content": "<big>", "special": true}])"));
    msg = error_of([&] { load_tokenizer(dir); });
    expect_contains(msg, "\"<big>\" has the id 2147483000");
    // A few unused ids are fine.
    write_file(dir / "tokenizer.json", tokenizer_json(R"({"a": 0, "b": 5})"));
    EXPECT_EQ(load_tokenizer(dir)->vocab_size(), 6);
}

TEST(SizeLimits, EmptyVocabularyIsRefused) {
    const fs::path dir = scratch_dir("tok-empty-vocab");
    write_file(dir / "tokenizer.json", tokenizer_json("{}"));
    expect_contains(error_of([&] { load_tokenizer(dir); }), "its vocabulary is empty");
    fs::remove(dir / "tokenizer.json");
    write_file(dir / "vocab.json", "{}");
    write_file(dir / "merges.txt", "#version: 0.2\n");
    const std::string msg = error_of([&] { load_tokenizer(dir); });
    expect_contains(msg, "vocab.json");
    expect_contains(msg, "its vocabulary is empty");
}
