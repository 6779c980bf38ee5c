// pytorch_model.bin (torch.save zip + restricted pickle): the fixture loads to the same
// tensors as the safetensors copy; forbidden globals and opcodes are refused without
// executing anything; storage offsets and strides are honoured.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "engine/io/checkpoint.h"
#include "engine/io/torch_pickle.h"
#include "tests/support/fixtures.h"
#include "tests/support/hostile_inputs.h"

namespace fs = std::filesystem;
using namespace precis;
using precis::test::make_zip;

namespace {

std::string read_bytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}
void write_bytes(const fs::path& p, const std::string& bytes) {
    std::ofstream out(p, std::ios::binary);
    out.write(bytes.data(), std::streamsize(bytes.size()));
}

void put(std::string& s, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) s.push_back(char((v >> (8 * i)) & 0xff));
}

// The same with every size and offset moved to zip64 fields, as torch writes archives
// over 4 GiB.
std::string make_zip64(const std::vector<std::pair<std::string, std::string>>& files) {
    std::string out, cd;
    for (const auto& [name, data] : files) {
        const uint64_t local = out.size();
        put(out, 0x04034b50, 4);
        put(out, 45, 2);
        put(out, 0, 2);
        put(out, 0, 2);
        put(out, 0, 4);
        put(out, 0, 4);
        put(out, 0xffffffff, 4);
        put(out, 0xffffffff, 4);
        put(out, name.size(), 2);
        put(out, 20, 2);
        out += name;
        put(out, 1, 2);
        put(out, 16, 2);
        put(out, data.size(), 8);
        put(out, data.size(), 8);
        out += data;
        put(cd, 0x02014b50, 4);
        put(cd, 45, 2);
        put(cd, 45, 2);
        put(cd, 0, 2);
        put(cd, 0, 2);
        put(cd, 0, 4);
        put(cd, 0, 4);
        put(cd, 0xffffffff, 4);
        put(cd, 0xffffffff, 4);
        put(cd, name.size(), 2);
        put(cd, 28, 2);
        put(cd, 0, 2);
        put(cd, 0, 2);
        put(cd, 0, 2);
        put(cd, 0, 4);
        put(cd, 0xffffffff, 4);
        cd += name;
        put(cd, 1, 2);
        put(cd, 24, 2);
        put(cd, data.size(), 8);
        put(cd, data.size(), 8);
        put(cd, local, 8);
    }
    const uint64_t cd_offset = out.size();
    out += cd;
    const uint64_t z64 = out.size();
    put(out, 0x06064b50, 4);
    put(out, 44, 8);
    put(out, 45, 2);
    put(out, 45, 2);
    put(out, 0, 4);
    put(out, 0, 4);
    put(out, files.size(), 8);
    put(out, files.size(), 8);
    put(out, cd.size(), 8);
    put(out, cd_offset, 8);
    put(out, 0x07064b50, 4);
    put(out, 0, 4);
    put(out, z64, 8);
    put(out, 1, 4);
    put(out, 0x06054b50, 4);
    put(out, 0, 4);
    put(out, 0xffff, 2);
    put(out, 0xffff, 2);
    put(out, 0xffffffff, 4);
    put(out, 0xffffffff, 4);
    put(out, 0, 2);
    return out;
}

// Tiny pickle assembler for protocol-2 state dicts.
struct Pickle {
    std::string b = std::string("\x80\x02", 2);
    Pickle& op(char c) { b.push_back(c); return *this; }
    Pickle& global(const std::string& module, const std::string& name) {
        b += 'c' + module + '\n' + name + '\n';
        return *this;
    }
    Pickle& str(const std::string& s) {
        b.push_back('X');
        put(b, s.size(), 4);
        b += s;
        return *this;
    }
    Pickle& i1(int v) { b.push_back('K'); b.push_back(char(v)); return *this; }
    Pickle& mark() { return op('('); }
    Pickle& tuple() { return op('t'); }
    Pickle& reduce() { return op('R'); }
    Pickle& empty_tuple() { return op(')'); }
    Pickle& ordered_dict() { return global("collections", "OrderedDict").empty_tuple().reduce(); }
    // Pushes _rebuild_tensor_v2(storage(key, numel), offset, size, stride, False, OrderedDict()).
    Pickle& tensor(const std::string& key, int numel, int offset, std::vector<int> size, std::vector<int> stride) {
        global("torch._utils", "_rebuild_tensor_v2").mark();
        mark().str("storage").global("torch", "FloatStorage").str(key).str("cpu").i1(numel).tuple().op('Q');
        i1(offset);
        mark();
        for (int s : size) i1(s);
        tuple();
        mark();
        for (int s : stride) i1(s);
        tuple();
        op('\x89').ordered_dict().tuple().reduce();
        return *this;
    }
    std::string done() { return b + "."; }
};

std::string floats_bytes(const std::vector<float>& v) {
    return std::string(reinterpret_cast<const char*>(v.data()), v.size() * 4);
}

void expect_error(const fs::path& p, std::initializer_list<const char*> needles) {
    try {
        read_torch_checkpoint(p);
        FAIL() << "no error for " << p;
    } catch (const Error& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find(p.string()), std::string::npos) << msg;
        for (const char* n : needles) EXPECT_NE(msg.find(n), std::string::npos) << "missing '" << n << "' in: " << msg;
    }
}

}  // namespace

TEST(TorchCheckpoint, FixtureBinHas95KeysWithTiedWeightsSharingOneStorage) {
    auto t = read_torch_checkpoint(test::fixtures_dir() / "models/bart-tiny-bin/pytorch_model.bin");
    EXPECT_EQ(t.size(), 95u);
    const void* shared = t.at("model.shared.weight").raw();
    EXPECT_EQ(t.at("lm_head.weight").raw(), shared);
    EXPECT_EQ(t.at("model.encoder.embed_tokens.weight").raw(), shared);
    EXPECT_EQ(t.at("model.decoder.embed_tokens.weight").raw(), shared);
    EXPECT_EQ(t.at("model.encoder.embed_positions.weight").shape(), (Shape{130, 32}));
    EXPECT_EQ(t.at("final_logits_bias").shape(), (Shape{1, 1000}));
}

TEST(TorchCheckpoint, BinAndSafetensorsFoldersLoadBitIdenticalTensors) {
    WeightMap bin = load_checkpoint(test::fixtures_dir() / "models/bart-tiny-bin");
    WeightMap st = load_checkpoint(test::fixtures_dir() / "models/bart-tiny");
    EXPECT_EQ(bin.names(), st.names());  // ties resolved on both sides: 95 names
    EXPECT_EQ(st.size(), 95u);
    for (const std::string& name : st.names()) {
        ASSERT_TRUE(bin.has(name)) << name;
        const Tensor& a = bin.get(name);
        const Tensor& b = st.get(name);
        ASSERT_EQ(a.dtype(), b.dtype()) << name;
        ASSERT_EQ(a.shape(), b.shape()) << name;
        EXPECT_EQ(std::memcmp(a.raw(), b.raw(), a.nbytes()), 0) << name;
    }
}

TEST(TorchCheckpoint, ForbiddenGlobalInHandBuiltPickleIsRefusedAndNothingRuns) {
    const fs::path dir = test::scratch_dir("pt-evil");
    const fs::path marker = dir / "pwned";
    const std::string pkl =
        Pickle().global("os", "system").mark().str("touch " + marker.string()).tuple().reduce().done();
    const fs::path bin = dir / "evil.bin";
    write_bytes(bin, make_zip({{"evil/data.pkl", pkl}, {"evil/version", "3\n"}}));
    expect_error(bin, {"'os.system'", "refusing"});
    EXPECT_FALSE(fs::exists(marker));

    // The same attempt through STACK_GLOBAL (protocol 4 style).
    std::string p4 = "\x80\x04";
    p4 += "\x8c\x08" "builtins" "\x8c\x04" "eval" "\x93";
    p4 += "\x8c\x05" "1 + 1" "\x85" "R.";
    write_bytes(bin, make_zip({{"evil/data.pkl", p4}}));
    expect_error(bin, {"'builtins.eval'"});
}

TEST(TorchCheckpoint, ForbiddenGlobalPatchedIntoTheRealBinIsRefused) {
    const fs::path dir = test::scratch_dir("pt-patch");
    std::string bytes = read_bytes(test::fixtures_dir() / "models/bart-tiny-bin/pytorch_model.bin");
    const std::string from = "collections\nOrderedDict\n", to = "subprocess\ncheck_output\n";
    ASSERT_EQ(from.size(), to.size());
    const size_t at = bytes.find(from);
    ASSERT_NE(at, std::string::npos);
    bytes.replace(at, from.size(), to);
    write_bytes(dir / "pytorch_model.bin", bytes);
    expect_error(dir / "pytorch_model.bin", {"'subprocess.check_output'"});
    // Through the folder loader too.
    EXPECT_THROW(load_checkpoint(dir), Error);

    // torch.storage._load_from_bytes would unpickle nested bytes: also refused.
    const std::string nested =
        Pickle().global("torch.storage", "_load_from_bytes").mark().op('C').op('\x01').op('x').tuple().reduce().done();
    write_bytes(dir / "pytorch_model.bin", make_zip({{"archive/data.pkl", nested}}));
    expect_error(dir / "pytorch_model.bin", {"'torch.storage._load_from_bytes'"});
}

TEST(TorchCheckpoint, ObjectBuildingOpcodesAreRefused) {
    const fs::path bin = test::scratch_dir("pt-op") / "x.bin";
    // INST 'collections OrderedDict' would build an object without GLOBAL.
    write_bytes(bin, make_zip({{"x/data.pkl", std::string("\x80\x02(icollections\nOrderedDict\n.", 29)}}));
    expect_error(bin, {"opcode 0x69"});
    // NEWOBJ.
    write_bytes(bin, make_zip({{"x/data.pkl", Pickle().ordered_dict().empty_tuple().op('\x81').done()}}));
    expect_error(bin, {"opcode 0x81"});
}

TEST(TorchCheckpoint, StorageOffsetsStridesAndSharedStoragesAreHonoured) {
    const fs::path bin = test::scratch_dir("pt-strides") / "x.bin";
    Pickle p;
    p.ordered_dict().mark();
    p.str("whole").tensor("0", 6, 0, {2, 3}, {3, 1});
    p.str("tail").tensor("0", 6, 2, {4}, {1});              // offset into the same storage
    p.str("transposed").tensor("0", 6, 0, {3, 2}, {1, 3});  // non-contiguous: copied
    p.str("column").tensor("0", 6, 1, {2, 1}, {3, 7});      // size-1 dim with any stride: contiguous
    p.op('u');
    write_bytes(bin, make_zip({{"x/data.pkl", p.done()}, {"x/data/0", floats_bytes({0, 1, 2, 3, 4, 5})}}));
    auto t = read_torch_checkpoint(bin);
    ASSERT_EQ(t.size(), 4u);
    EXPECT_EQ(t.at("whole").to_float_vector(), (std::vector<float>{0, 1, 2, 3, 4, 5}));
    EXPECT_EQ(t.at("tail").to_float_vector(), (std::vector<float>{2, 3, 4, 5}));
    EXPECT_EQ(static_cast<const float*>(t.at("tail").raw()), static_cast<const float*>(t.at("whole").raw()) + 2);
    EXPECT_EQ(t.at("transposed").shape(), (Shape{3, 2}));
    EXPECT_EQ(t.at("transposed").to_float_vector(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
    EXPECT_EQ(t.at("column").to_float_vector(), (std::vector<float>{1, 4}));

    // The same archive with data not aligned to 4 bytes: copied, same values.
    write_bytes(bin, make_zip({{"x/data.pkl", p.done()}, {"x/data/0", floats_bytes({0, 1, 2, 3, 4, 5})}}, 0, false));
    auto u = read_torch_checkpoint(bin);
    EXPECT_EQ(u.at("tail").to_float_vector(), (std::vector<float>{2, 3, 4, 5}));
    EXPECT_EQ(u.at("transposed").to_float_vector(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
}

TEST(TorchCheckpoint, TensorReachingPastItsStorageIsRefused) {
    const fs::path bin = test::scratch_dir("pt-oob") / "x.bin";
    Pickle p;
    p.ordered_dict().mark().str("w").tensor("0", 6, 4, {2, 3}, {3, 1}).op('u');
    write_bytes(bin, make_zip({{"x/data.pkl", p.done()}, {"x/data/0", floats_bytes({0, 1, 2, 3, 4, 5})}}));
    expect_error(bin, {"past the end of its storage"});
    // A storage whose data entry is shorter than its declared size.
    Pickle q;
    q.ordered_dict().mark().str("w").tensor("0", 60, 0, {6}, {1}).op('u');
    write_bytes(bin, make_zip({{"x/data.pkl", q.done()}, {"x/data/0", floats_bytes({0, 1, 2, 3, 4, 5})}}));
    expect_error(bin, {"storage '0'"});
}

TEST(TorchCheckpoint, CompressedNonZipTruncatedAndLegacyFilesGiveClearErrors) {
    const fs::path dir = test::scratch_dir("pt-bad");
    write_bytes(dir / "deflate.bin", make_zip({{"x/data.pkl", Pickle().ordered_dict().done()}}, 8));
    expect_error(dir / "deflate.bin", {"compressed", "x/data.pkl"});
    write_bytes(dir / "text.bin", std::string(100, 'a'));
    expect_error(dir / "text.bin", {"not a zip"});
    write_bytes(dir / "legacy.bin", std::string("\x80\x02\x8a\x0a", 4) + std::string(40, '\0'));
    expect_error(dir / "legacy.bin", {"legacy"});
    write_bytes(dir / "nopickle.bin", make_zip({{"x/version", "3\n"}}));
    expect_error(dir / "nopickle.bin", {"data.pkl"});
    const std::string good = read_bytes(test::fixtures_dir() / "models/bart-tiny-bin/pytorch_model.bin");
    for (size_t cut : {size_t(10), good.size() / 2, good.size() - 30}) {
        write_bytes(dir / "cut.bin", good.substr(0, cut));
        EXPECT_THROW(read_torch_checkpoint(dir / "cut.bin"), Error) << cut;
    }
    // A pickle cut short inside an opcode.
    std::string pk = Pickle().ordered_dict().mark().str("w").done();
    write_bytes(dir / "short.bin", make_zip({{"x/data.pkl", pk.substr(0, pk.size() - 4)}}));
    expect_error(dir / "short.bin", {"truncated pickle"});
    // A pickle that is not a state dict.
    write_bytes(dir / "list.bin", make_zip({{"x/data.pkl", Pickle().op(']').done()}}));
    expect_error(dir / "list.bin", {"not a state dict"});
}

TEST(TorchCheckpoint, RandomCorruptionOfThePickleGivesErrorsNeverCrashes) {
    const fs::path dir = test::scratch_dir("pt-fuzz");
    const std::string good = read_bytes(test::fixtures_dir() / "models/bart-tiny-bin/pytorch_model.bin");
    const size_t pkl_begin = good.find('\x80');  // the pickle is the first entry
    ASSERT_LT(pkl_begin, size_t(200));
    uint64_t state = 12345;
    auto next = [&] {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return state >> 33;
    };
    int errors = 0;
    for (int round = 0; round < 300; ++round) {
        std::string bad = good;
        for (int k = 0; k < 3; ++k) bad[pkl_begin + next() % 15000] = char(next());
        write_bytes(dir / "x.bin", bad);
        try {
            read_torch_checkpoint(dir / "x.bin");
        } catch (const Error&) {
            ++errors;
        }
    }
    EXPECT_GT(errors, 0);
}

TEST(TorchCheckpoint, ExpandedViewLargerThanItsStorageIsRefused) {
    const fs::path bin = test::scratch_dir("pt-expand") / "x.bin";
    Pickle p;
    p.ordered_dict().mark().str("w").tensor("0", 2, 0, {100, 100}, {0, 0}).op('u');
    write_bytes(bin, make_zip({{"x/data.pkl", p.done()}, {"x/data/0", floats_bytes({1, 2})}}));
    expect_error(bin, {"expanded view"});
}

TEST(TorchCheckpoint, Zip64ArchivesAreRead) {
    const fs::path bin = test::scratch_dir("pt-zip64") / "x.bin";
    Pickle p;
    p.ordered_dict().mark().str("w").tensor("0", 4, 0, {2, 2}, {2, 1}).op('u');
    write_bytes(bin, make_zip64({{"big/data.pkl", p.done()}, {"big/data/0", floats_bytes({1, 2, 3, 4})}}));
    auto t = read_torch_checkpoint(bin);
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(t.at("w").to_float_vector(), (std::vector<float>{1, 2, 3, 4}));
}
