// safetensors reading and writing: round trips, the fixture models, and malformed files
// that must give a precis::Error naming the file (never a crash).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <string>

#include "engine/io/safetensors.h"
#include "tests/support/fixtures.h"

namespace fs = std::filesystem;
using namespace precis;

namespace {

void write_bytes(const fs::path& p, const std::string& bytes) {
    std::ofstream out(p, std::ios::binary);
    out.write(bytes.data(), std::streamsize(bytes.size()));
}

std::string read_bytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// A file with the given JSON header and `data_bytes` zero bytes of data.
std::string raw_file(const std::string& header, size_t data_bytes, uint64_t declared_len = UINT64_MAX) {
    uint64_t n = declared_len == UINT64_MAX ? header.size() : declared_len;
    std::string out(8, '\0');
    for (int i = 0; i < 8; ++i) out[size_t(i)] = char((n >> (8 * i)) & 0xff);
    return out + header + std::string(data_bytes, '\0');
}

// Expects read_safetensors(path) to throw a precis::Error whose message contains the path
// and every one of `needles`.
void expect_error(const fs::path& p, std::initializer_list<const char*> needles) {
    try {
        read_safetensors(p);
        FAIL() << "no error for " << p;
    } catch (const Error& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find(p.string()), std::string::npos) << msg;
        for (const char* n : needles) EXPECT_NE(msg.find(n), std::string::npos) << "missing '" << n << "' in: " << msg;
    }
}

bool same_bytes(const Tensor& a, const Tensor& b) {
    return a.dtype() == b.dtype() && a.shape() == b.shape() && std::memcmp(a.raw(), b.raw(), a.nbytes()) == 0;
}

}  // namespace

TEST(Safetensors, RoundTripKeepsEveryDtypeShapeValueAndMetadata) {
    const fs::path dir = test::scratch_dir("st-roundtrip");
    Tensor f32 = Tensor::from_floats({2, 3}, {1.5f, -2.f, 3.25f, 0.f, -0.f, 1e-30f});
    Tensor f16 = Tensor::from_floats({3}, {1.f, -0.5f, 65504.f}).to(DType::F16);
    Tensor bf16 = Tensor::from_floats({1, 2}, {3.f, -1e20f}).to(DType::BF16);
    Tensor i64 = Tensor::from_ints({4}, {0, -1, int64_t(1) << 40, 7});
    Tensor i32c = Tensor::empty(DType::I32, {2});
    i32c.data<int32_t>()[0] = 5;
    i32c.data<int32_t>()[1] = -6;
    Tensor u8 = Tensor::empty(DType::U8, {3});
    for (int i = 0; i < 3; ++i) u8.data<uint8_t>()[i] = uint8_t(250 + i);
    Tensor scalar = Tensor::from_floats({}, {42.f});
    Tensor empty = Tensor::empty(DType::F32, {0, 4});
    const std::vector<std::pair<std::string, Tensor>> in = {
        {"a.f32", f32}, {"b.f16", f16}, {"c.bf16", bf16}, {"d.i64", i64},
        {"e.i32", i32c}, {"f.u8", u8}, {"g.scalar", scalar}, {"h.empty", empty}};
    const fs::path p = dir / "x.safetensors";
    write_safetensors(p, in, {{"format", "pt"}, {"who", "test"}});

    const std::string bytes = read_bytes(p);
    uint64_t n = 0;
    std::memcpy(&n, bytes.data(), 8);
    EXPECT_EQ(n % 8, 0u) << "header must be padded to a multiple of 8";

    SafetensorsFile f = read_safetensors(p);
    ASSERT_EQ(f.tensors.size(), in.size());
    for (const auto& [name, t] : in) {
        ASSERT_TRUE(f.tensors.count(name)) << name;
        EXPECT_TRUE(same_bytes(f.tensors.at(name), t)) << name;
    }
    EXPECT_EQ(f.metadata.at("format"), "pt");
    EXPECT_EQ(f.metadata.at("who"), "test");
    // Nothing but the file itself is left in the folder (the temporary was renamed).
    EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
}

TEST(Safetensors, TensorsStayValidAfterTheFileObjectIsGone) {
    Tensor kept;
    {
        SafetensorsFile f = read_safetensors(test::fixtures_dir() / "models/bart-tiny/model.safetensors");
        kept = f.tensors.at("final_logits_bias");
    }
    ASSERT_EQ(kept.shape(), (Shape{1, 1000}));
    volatile float sum = 0;
    for (float v : kept.to_float_vector()) sum = sum + v;  // touches the mapped memory
    SUCCEED();
}

TEST(Safetensors, ReadsTheFixtureModelWithExpectedNamesAndShapes) {
    SafetensorsFile f = read_safetensors(test::fixtures_dir() / "models/bart-tiny/model.safetensors");
    EXPECT_EQ(f.tensors.size(), 92u);
    EXPECT_EQ(f.metadata.at("format"), "pt");
    EXPECT_EQ(f.tensors.at("model.shared.weight").shape(), (Shape{1000, 32}));
    EXPECT_EQ(f.tensors.at("model.encoder.embed_positions.weight").shape(), (Shape{130, 32}));
    EXPECT_EQ(f.tensors.at("model.decoder.layers.1.fc1.weight").shape(), (Shape{64, 32}));
    EXPECT_EQ(f.tensors.at("model.shared.weight").dtype(), DType::F32);
    EXPECT_FALSE(f.tensors.count("lm_head.weight"));
}

TEST(Safetensors, RewritingAFixtureGivesIdenticalTensors) {
    const fs::path dir = test::scratch_dir("st-rewrite");
    SafetensorsFile f = read_safetensors(test::fixtures_dir() / "models/lsg-norm/model.safetensors");
    std::vector<std::pair<std::string, Tensor>> v(f.tensors.begin(), f.tensors.end());
    write_safetensors(dir / "m.safetensors", v, f.metadata);
    SafetensorsFile g = read_safetensors(dir / "m.safetensors");
    ASSERT_EQ(g.tensors.size(), f.tensors.size());
    for (const auto& [name, t] : f.tensors) EXPECT_TRUE(same_bytes(g.tensors.at(name), t)) << name;
}

TEST(Safetensors, WritingReportsBytesAndACancelLeavesNoFile) {
    const fs::path dir = test::scratch_dir("st-cancel");
    // 3 chunks' worth of floats in two tensors.
    const int64_t n = int64_t(3 * kByteProgressChunk / 4 / 2);
    const std::vector<std::pair<std::string, Tensor>> tensors = {{"a", Tensor::empty(DType::F32, {n})},
                                                                 {"b", Tensor::empty(DType::F32, {n})}};
    std::vector<uint64_t> seen;
    ByteProgress counting;
    counting.progress = [&](uint64_t done, uint64_t total) {
        EXPECT_EQ(total, uint64_t(2 * n * 4));
        seen.push_back(done);
    };
    write_safetensors(dir / "whole.safetensors", tensors, {}, &counting);
    ASSERT_GE(seen.size(), 3u);
    EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
    EXPECT_EQ(seen.back(), uint64_t(2 * n * 4));

    int reports = 0;
    ByteProgress cancelling;
    cancelling.progress = [&](uint64_t, uint64_t) { ++reports; };
    cancelling.should_abort = [&] { return reports == 2; };
    EXPECT_THROW(write_safetensors(dir / "cut.safetensors", tensors, {}, &cancelling), Cancelled);
    EXPECT_EQ(reports, 2);
    std::vector<std::string> left;
    for (const auto& e : fs::directory_iterator(dir)) left.push_back(e.path().filename().string());
    EXPECT_EQ(left, std::vector<std::string>{"whole.safetensors"});  // no cut file, no temporary
}

TEST(Safetensors, TruncatedFileIsRejectedNamingFileAndTensor) {
    const fs::path dir = test::scratch_dir("st-trunc");
    const std::string good = read_bytes(test::fixtures_dir() / "models/bart-tiny/model.safetensors");
    write_bytes(dir / "cut.safetensors", good.substr(0, good.size() - 100));
    expect_error(dir / "cut.safetensors", {"beyond"});
    write_bytes(dir / "tiny.safetensors", good.substr(0, 5));
    expect_error(dir / "tiny.safetensors", {"too short"});
    write_bytes(dir / "headercut.safetensors", good.substr(0, 500));
    expect_error(dir / "headercut.safetensors", {"header"});
    write_bytes(dir / "empty.safetensors", "");
    expect_error(dir / "empty.safetensors", {"too short"});
}

TEST(Safetensors, HeaderLengthLargerThanTheFileIsRejected) {
    const fs::path p = test::scratch_dir("st-len") / "x.safetensors";
    write_bytes(p, raw_file("{}      ", 0, uint64_t(1) << 40));
    expect_error(p, {"header of 1099511627776 bytes"});
}

TEST(Safetensors, OffsetsOutOfRangeAreRejected) {
    const fs::path p = test::scratch_dir("st-range") / "x.safetensors";
    write_bytes(p, raw_file(R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[8,24]}})", 16));
    expect_error(p, {"'w'", "beyond"});
}

TEST(Safetensors, OverlappingTensorsAreRejected) {
    const fs::path p = test::scratch_dir("st-overlap") / "x.safetensors";
    write_bytes(p, raw_file(R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},)"
                            R"("b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})",
                            16));
    expect_error(p, {"overlapping", "'a'", "'b'"});
}

TEST(Safetensors, ByteSpanThatDisagreesWithTheShapeIsRejected) {
    const fs::path p = test::scratch_dir("st-size") / "x.safetensors";
    write_bytes(p, raw_file(R"({"w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,16]}})", 16));
    expect_error(p, {"'w'", "needs 24"});
}

TEST(Safetensors, OffsetsThatEndBeforeTheyBeginAreRejected) {
    const fs::path p = test::scratch_dir("st-rev") / "x.safetensors";
    write_bytes(p, raw_file(R"({"w":{"dtype":"U8","shape":[0],"data_offsets":[8,0]}})", 16));
    expect_error(p, {"'w'", "end before"});
}

TEST(Safetensors, UnknownDtypeIsRejected) {
    const fs::path p = test::scratch_dir("st-dtype") / "x.safetensors";
    write_bytes(p, raw_file(R"({"w":{"dtype":"F64","shape":[2],"data_offsets":[0,16]}})", 16));
    expect_error(p, {"'w'", "F64"});
}

TEST(Safetensors, NonJsonAndNonObjectHeadersAreRejected) {
    const fs::path dir = test::scratch_dir("st-json");
    write_bytes(dir / "a.safetensors", raw_file("{\"w\": [1, 2", 0));
    expect_error(dir / "a.safetensors", {"not valid JSON"});
    write_bytes(dir / "b.safetensors", raw_file("[1, 2, 3]", 0));
    expect_error(dir / "b.safetensors", {"not a JSON object"});
    write_bytes(dir / "c.safetensors", raw_file(R"({"w": 5})", 0));
    expect_error(dir / "c.safetensors", {"'w'"});
    write_bytes(dir / "d.safetensors", raw_file(R"({"w":{"dtype":"F32","shape":[-1],"data_offsets":[0,0]}})", 0));
    expect_error(dir / "d.safetensors", {"'w'", "shape"});
    write_bytes(dir / "e.safetensors", raw_file(R"({"__metadata__":{"k":1}})", 0));
    expect_error(dir / "e.safetensors", {"__metadata__"});
}

TEST(Safetensors, MissingFileIsAClearError) {
    expect_error(test::scratch_dir("st-missing") / "nope.safetensors", {"cannot open"});
}

TEST(Safetensors, WriteFailureNamesTheFileAndLeavesNothingBehind) {
    const fs::path dir = test::scratch_dir("st-wfail");
    const fs::path p = dir / "no-such-folder" / "x.safetensors";
    try {
        write_safetensors(p, {{"a", Tensor::from_floats({1}, {1.f})}});
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos) << e.what();
    }
    EXPECT_THROW(write_safetensors(dir / "dup.safetensors",
                                   {{"a", Tensor::from_floats({1}, {1.f})}, {"a", Tensor::from_floats({1}, {2.f})}}),
                 Error);
    EXPECT_FALSE(fs::exists(dir / "dup.safetensors"));
}

TEST(Safetensors, OverwritingReplacesTheFileWhole) {
    const fs::path p = test::scratch_dir("st-over") / "x.safetensors";
    write_safetensors(p, {{"a", Tensor::from_floats({3}, {1.f, 2.f, 3.f})}});
    write_safetensors(p, {{"b", Tensor::from_floats({1}, {9.f})}});
    SafetensorsFile f = read_safetensors(p);
    ASSERT_EQ(f.tensors.size(), 1u);
    EXPECT_EQ(f.tensors.at("b").to_float_vector(), std::vector<float>{9.f});
}

TEST(Safetensors, RandomCorruptionOfTheHeaderGivesErrorsNeverCrashes) {
    const fs::path dir = test::scratch_dir("st-fuzz");
    const std::string good = read_bytes(test::fixtures_dir() / "models/bart-tiny/model.safetensors");
    uint64_t state = 99;
    auto next = [&] {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return state >> 33;
    };
    int errors = 0;
    for (int round = 0; round < 300; ++round) {
        std::string bad = good;
        for (int k = 0; k < 2; ++k) bad[next() % 9824] = char("0123456789[]{},:\"-e."[next() % 20]);
        write_bytes(dir / "x.safetensors", bad);
        try {
            read_safetensors(dir / "x.safetensors");
        } catch (const Error&) {
            ++errors;
        }
    }
    EXPECT_GT(errors, 0);
}
