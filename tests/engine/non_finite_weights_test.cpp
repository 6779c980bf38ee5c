// Weights holding NaN or infinity are refused when the checkpoint loads, naming the file
// and the tensor, in every float type a checkpoint can store (F32, F16, BF16) and from
// both safetensors and pickled checkpoints.
#include <gtest/gtest.h>

#include "engine/core/error.h"
#include "engine/io/checkpoint.h"
#include "engine/io/safetensors.h"
#include "tests/support/fixtures.h"
#include "tests/support/hostile_inputs.h"

namespace fs = std::filesystem;
using namespace precis;
using namespace precis::test;

namespace {

// The fixture model with element `at` of tensor `name` replaced by `bits` after converting
// the tensor to `dtype`.
fs::path damaged_model(const std::string& label, const std::string& name, DType dtype, uint32_t bits, int64_t at) {
    const fs::path dir = scratch_dir(label) / "model";
    fs::create_directories(dir);
    for (const char* f : {"config.json", "generation_config.json"})
        fs::copy_file(fixtures_dir() / "models/bart-tiny" / f, dir / f);
    SafetensorsFile st = read_safetensors(fixtures_dir() / "models/bart-tiny/model.safetensors");
    std::vector<std::pair<std::string, Tensor>> out;
    for (auto& [n, t] : st.tensors) {
        Tensor copy = n == name ? t.to(dtype) : t;
        if (n == name) {
            if (dtype == DType::F32) copy.data<uint32_t>()[at] = bits;
            else copy.data<uint16_t>()[at] = uint16_t(bits);
        }
        out.emplace_back(n, copy);
    }
    write_safetensors(dir / "model.safetensors", out);
    return dir;
}

void expect_refused(const fs::path& dir, const std::string& tensor, int64_t at) {
    const std::string msg = error_within([&] { load_checkpoint(dir); });
    EXPECT_NE(msg.find(dir.string()), std::string::npos) << msg;
    EXPECT_NE(msg.find("NaN or infinite value in tensor '" + tensor + "' (element " + std::to_string(at)),
              std::string::npos)
        << msg;
}

}  // namespace

TEST(NonFiniteWeights, NaNInFloat32WeightsIsRefusedNamingTheTensorAndElement) {
    const std::string t = "model.encoder.layers.0.fc1.weight";
    expect_refused(damaged_model("nan-f32", t, DType::F32, 0x7fc00000u, 37), t, 37);
}

TEST(NonFiniteWeights, InfinityInFloat16AndBFloat16WeightsIsRefused) {
    const std::string t = "model.decoder.layers.1.self_attn.k_proj.weight";
    expect_refused(damaged_model("inf-f16", t, DType::F16, 0x7c00u, 5), t, 5);
    expect_refused(damaged_model("ninf-bf16", t, DType::BF16, 0xff80u, 1000), t, 1000);
}

TEST(NonFiniteWeights, LastElementOfALargeTensorIsFoundToo) {
    const std::string t = "model.shared.weight";
    const int64_t n = read_safetensors(fixtures_dir() / "models/bart-tiny/model.safetensors").tensors.at(t).numel();
    expect_refused(damaged_model("nan-last", t, DType::F32, 0xff800001u, n - 1), t, n - 1);
}

TEST(NonFiniteWeights, TheUndamagedFixturesLoad) {
    EXPECT_NO_THROW(load_checkpoint(fixtures_dir() / "models/bart-tiny"));
    EXPECT_NO_THROW(load_checkpoint(fixtures_dir() / "models/bart-tiny-bin"));
}
