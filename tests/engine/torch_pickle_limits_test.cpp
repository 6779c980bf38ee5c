// The restricted unpickler against hostile pickles: nesting a million levels deep (with
// the stack, with MARKs, through the memo), a list that holds itself, a flood of stack
// objects, and tensor shapes whose element count overflows int64. Each is one clear error,
// never a stack overflow, a leak (run under ASan) or undefined behaviour (UBSan).
#include <gtest/gtest.h>

#include <sys/resource.h>

#include "engine/core/error.h"
#include "engine/io/torch_pickle.h"
#include "tests/support/fixtures.h"
#include "tests/support/hostile_inputs.h"

namespace fs = std::filesystem;
using namespace precis;
using namespace precis::test;

namespace {

std::string load_error(const std::string& name, const std::string& pickle,
                       const std::vector<std::pair<std::string, std::string>>& storages = {}) {
    const fs::path bin = scratch_dir(name) / "pytorch_model.bin";
    write_file(bin, torch_zip(pickle, storages));
    const std::string msg = error_within([&] { read_torch_checkpoint(bin); });
    EXPECT_NE(msg.find(bin.string()), std::string::npos) << msg;
    return msg;
}

void expect_contains(const std::string& msg, const std::string& what) {
    EXPECT_NE(msg.find(what), std::string::npos) << "missing '" << what << "' in: " << msg;
}

std::string pickle_v2(const std::string& body) { return std::string("\x80\x02", 2) + body + "."; }

}  // namespace

TEST(TorchPickleLimits, MillionDeepListBuiltOnTheStackIsRefused) {
    expect_contains(load_error("pickle-deep-stack", deep_list_pickle(1000000)), "more than 100000 objects on its stack");
}

TEST(TorchPickleLimits, ThousandsDeepListAppendedInPlaceIsRefusedAsTooDeep) {
    // 50 000 lists fit on the stack; appending them into each other nests too deep.
    expect_contains(load_error("pickle-deep-appends", deep_list_pickle(50000)), "nested more than 1000 levels deep");
}

TEST(TorchPickleLimits, MillionDeepMarksAsPythonWritesNestedListsAreRefused) {
    expect_contains(load_error("pickle-deep-marks", deep_marked_list_pickle(1000000)), "nested more than 1000 levels deep");
}

TEST(TorchPickleLimits, NestingThroughTheMemoWithAShortStackIsRefused) {
    // l0 = []; then repeatedly: push a fresh list, memoize it, append it to the previous one,
    // and fetch it back from the memo: the stack never holds more than two lists.
    std::string body = "]";
    body += std::string("q\x00", 2);
    for (uint32_t i = 1; i <= 5000; ++i) {
        body += "]";
        body += 'r';
        for (int b = 0; b < 4; ++b) body += char((i >> (8 * b)) & 0xff);
        body += "a0";  // APPEND into the previous list, POP it
        body += 'j';
        for (int b = 0; b < 4; ++b) body += char((i >> (8 * b)) & 0xff);
    }
    // The result is a list, not a state dict: either error is a clean refusal.
    const std::string msg = load_error("pickle-deep-memo", pickle_v2(body));
    EXPECT_TRUE(msg.find("not a state dict") != std::string::npos || msg.find("malformed") != std::string::npos) << msg;
}

TEST(TorchPickleLimits, ListContainingItselfIsRefusedWithoutLeakingOrRecursing) {
    expect_contains(load_error("pickle-cycle", self_containing_list_pickle()), "holds a list, not a state dict");
    // Appending a list to itself over and over grows its height until the limit.
    std::string body = std::string("]q\x00", 3);
    for (int i = 0; i < 2000; ++i) body += std::string("h\x00" "a", 3);
    expect_contains(load_error("pickle-cycle-deep", pickle_v2(body)), "nested more than 1000 levels deep");
}

TEST(TorchPickleLimits, TensorShapeWhoseElementCountOverflowsIsRefused) {
    // _rebuild_tensor_v2(storage, 0, (2**40, 2**40, 2**40), (1, 1, 1), False, OrderedDict())
    auto long8 = [](uint64_t v) {
        std::string s("\x8a\x08", 2);
        for (int b = 0; b < 8; ++b) s += char((v >> (8 * b)) & 0xff);
        return s;
    };
    auto text = [](const std::string& s) { return "X" + std::string(1, char(s.size())) + std::string(3, '\0') + s; };
    auto tensor_pickle = [&](const std::vector<uint64_t>& dims) {
        std::string p = "ccollections\nOrderedDict\n)R(" + text("w");
        p += "ctorch._utils\n_rebuild_tensor_v2\n(";
        p += "(" + text("storage") + "ctorch\nFloatStorage\n" + text("0") + text("cpu") + "K\x04tQ";
        p += std::string("K\x00", 2);
        p += "(";
        for (uint64_t d : dims) p += long8(d);
        p += "t(";
        for (size_t i = 0; i < dims.size(); ++i) p += std::string("K\x01", 2);
        p += "t\x89" "ccollections\nOrderedDict\n)RtR";
        p += "u";
        return pickle_v2(p);
    };
    const std::string storage(16, '\0');
    const uint64_t big = uint64_t(1) << 40;
    expect_contains(load_error("pickle-shape-overflow", tensor_pickle({big, big, big}), {{"0", storage}}),
                    "overflows 64-bit integers");
    // With a zero dimension the tensor is empty, however large the others are.
    const fs::path bin = scratch_dir("pickle-shape-zero") / "pytorch_model.bin";
    write_file(bin, torch_zip(tensor_pickle({big, big, 0}), {{"0", storage}}));
    auto tensors = read_torch_checkpoint(bin);
    ASSERT_EQ(tensors.count("w"), 1u);
    EXPECT_EQ(tensors.at("w").numel(), 0);
}

TEST(TorchPickleLimits, MillionDeepPickleStaysUnderTwoHundredMegabytes) {
    const fs::path bin = scratch_dir("pickle-deep-memory") / "pytorch_model.bin";
    write_file(bin, torch_zip(deep_list_pickle(1000000)));
    rusage before{};
    getrusage(RUSAGE_SELF, &before);
    error_within([&] { read_torch_checkpoint(bin); });
    rusage after{};
    getrusage(RUSAGE_SELF, &after);
    // ru_maxrss is the process's peak in KiB: the load may not have added 200 MB to it.
    EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 200 * 1024) << "peak grew by " << (after.ru_maxrss - before.ru_maxrss) << " KiB";
}
