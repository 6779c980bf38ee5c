// --dtype auto on the GPU (kernels/runner/cuda_runner.cpp): a model whose encoder output
// passes fp16's range (its last LayerNorm scaled to 1e5; fp16 stops at 65504) is detected,
// said once, and encoded again in bf16, finite; an explicit --dtype fp16 is left as asked.
// A model whose decoder alone overflows (a decoder LayerNorm scaled the same way) makes the
// search's scores NaN: auto generates again in bf16, an explicit fp16 goes to the CPU.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "engine/backend/backend.h"
#include "engine/generate/generation.h"
#include "engine/generate/model_runner.h"
#include "engine/io/checkpoint.h"
#include "engine/io/safetensors.h"
#include "engine/model/encoder.h"
#include "engine/model/model.h"
#include "kernels/backend_factory.h"
#include "kernels/device_query.h"
#include "tests/kernels/cuda/cuda_test_support.h"
#include "tests/support/fixtures.h"

namespace precis {
namespace {

namespace fs = std::filesystem;

// bart-tiny with one LayerNorm's gain (the encoder's last by default) multiplied by 1e5.
fs::path overflowing_model(const std::string& norm = "model.encoder.layers.1.final_layer_norm.weight") {
    const fs::path src = test::fixtures_dir() / "models/bart-tiny";
    const fs::path dir = test::scratch_dir("fp16-overflow") / ("bart-tiny-loud-" + norm.substr(6, 7));
    fs::create_directories(dir);
    fs::copy_file(src / "config.json", dir / "config.json", fs::copy_options::overwrite_existing);
    fs::copy_file(src / "generation_config.json", dir / "generation_config.json", fs::copy_options::overwrite_existing);
    std::vector<std::pair<std::string, Tensor>> out;
    for (const auto& [name, t] : load_checkpoint(src)) {
        if (name == norm) {
            Tensor loud = Tensor::empty(DType::F32, t.shape());
            for (int64_t i = 0; i < t.numel(); ++i) loud.data<float>()[i] = t.data<float>()[i] * 1e5f;
            out.emplace_back(name, loud);
        } else if (name != "lm_head.weight" && name != "model.encoder.embed_tokens.weight" &&
                   name != "model.decoder.embed_tokens.weight") {
            out.emplace_back(name, t);
        }
    }
    write_safetensors(dir / "model.safetensors", out);
    return dir;
}

struct Encoded {
    bool finite = true;
    std::vector<std::string> notices;
    std::string device;
};

Encoded encode_with(const Model& model, Backend& backend, int times) {
    Encoded e;
    RunCallbacks cb;
    cb.on_notice = [&](const std::string& line) { e.notices.push_back(line); };
    const std::vector<int64_t> ids = {0, 31, 7, 99, 12, 5, 64, 2};
    for (int i = 0; i < times; ++i) {
        const EncoderOutput out = run_encoder(model, backend, {ids}, {{}}, AttentionOptions{}, cb);
        const Tensor& m = out.rows[0].host_memory();
        for (int64_t k = 0; k < m.numel(); ++k) e.finite = e.finite && std::isfinite(m.data<float>()[k]);
    }
    e.device = backend.name();
    return e;
}

TEST(CudaPrecisionFallback, AutoMovesAnOverflowingModelToBf16OnceAndSaysSo) {
    PRECIS_REQUIRE_GPU();
    if (cuda::current_device_capability() < 80) GTEST_SKIP() << "bf16 needs compute capability 8.0";
    auto model = Model::load(overflowing_model(), {.load_tokenizer = false});
    BackendChoice gpu = make_backend({.device = "cuda", .dtype = "auto", .model_bytes = 0, .cpu_threads = 2});
    ASSERT_NE(gpu.backend->runner(), nullptr);
    EXPECT_NE(gpu.device.find("(fp16)"), std::string::npos) << gpu.device;
    const Encoded e = encode_with(*model, *gpu.backend, 2);
    ASSERT_EQ(e.notices.size(), 1u) << "said once, also over two inputs";
    EXPECT_NE(e.notices[0].find("overflow fp16"), std::string::npos) << e.notices[0];
    EXPECT_NE(e.notices[0].find("bf16"), std::string::npos) << e.notices[0];
    EXPECT_NE(e.device.find("(bf16)"), std::string::npos) << "the library records what ran: " << e.device;
    EXPECT_TRUE(e.finite);
    EXPECT_NE(gpu.backend->runner(), nullptr) << "it stayed on the GPU";
}

TEST(CudaPrecisionFallback, AnExplicitFp16IsLeftAsAsked) {
    PRECIS_REQUIRE_GPU();
    auto model = Model::load(overflowing_model(), {.load_tokenizer = false});
    BackendChoice gpu = make_backend({.device = "cuda", .dtype = "fp16", .model_bytes = 0, .cpu_threads = 2});
    ASSERT_NE(gpu.backend->runner(), nullptr);
    const Encoded e = encode_with(*model, *gpu.backend, 1);
    EXPECT_TRUE(e.notices.empty());
    EXPECT_NE(e.device.find("(fp16)"), std::string::npos) << e.device;
    EXPECT_FALSE(e.finite) << "the model is built to overflow fp16";
}

struct Generated {
    std::vector<int64_t> ids;
    std::vector<std::string> notices;
    std::string device;
};

Generated generate_with(const Model& model, Backend& backend) {
    Generated g;
    RunCallbacks cb;
    cb.on_notice = [&](const std::string& line) { g.notices.push_back(line); };
    const std::vector<int64_t> ids = {0, 31, 7, 99, 12, 5, 64, 2};
    const EncoderOutput out = run_encoder(model, backend, {ids}, {{}}, AttentionOptions{}, cb);
    GenerationConfig cfg = model.generation_config();
    cfg.num_beams = 2;
    g.ids = generate(model, backend, out, cfg, cb).sequences[0];
    g.device = backend.name();
    return g;
}

const char* kDecoderNorm = "model.decoder.layers.0.final_layer_norm.weight";

TEST(CudaPrecisionFallback, AutoGeneratesAgainInBf16WhenTheDecoderOverflows) {
    PRECIS_REQUIRE_GPU();
    if (cuda::current_device_capability() < 80) GTEST_SKIP() << "bf16 needs compute capability 8.0";
    auto model = Model::load(overflowing_model(kDecoderNorm), {.load_tokenizer = false});
    BackendChoice gpu = make_backend({.device = "cuda", .dtype = "auto", .model_bytes = 0, .cpu_threads = 2});
    ASSERT_NE(gpu.backend->runner(), nullptr);
    const Generated g = generate_with(*model, *gpu.backend);
    ASSERT_EQ(g.notices.size(), 1u) << "said once";
    EXPECT_NE(g.notices[0].find("overflow fp16"), std::string::npos) << g.notices[0];
    EXPECT_NE(g.device.find("(bf16)"), std::string::npos) << g.device;
    EXPECT_NE(gpu.backend->runner(), nullptr) << "it stayed on the GPU";
    for (int64_t id : g.ids) EXPECT_TRUE(id >= 0 && id < model->config().vocab_size) << id;
}

TEST(CudaPrecisionFallback, AnExplicitFp16WhoseDecoderOverflowsGoesToTheCpuAndSaysWhy) {
    PRECIS_REQUIRE_GPU();
    auto model = Model::load(overflowing_model(kDecoderNorm), {.load_tokenizer = false});
    BackendChoice gpu = make_backend({.device = "cuda", .dtype = "fp16", .model_bytes = 0, .cpu_threads = 2});
    ASSERT_NE(gpu.backend->runner(), nullptr);
    const Generated g = generate_with(*model, *gpu.backend);
    ASSERT_FALSE(g.notices.empty());
    EXPECT_NE(g.notices.back().find("not finite"), std::string::npos) << g.notices.back();
    EXPECT_EQ(gpu.backend->runner(), nullptr) << "the run went on on the CPU";
    ASSERT_GT(g.ids.size(), 1u);
    for (int64_t id : g.ids) EXPECT_TRUE(id >= 0 && id < model->config().vocab_size) << id;
}

}  // namespace
}  // namespace precis
