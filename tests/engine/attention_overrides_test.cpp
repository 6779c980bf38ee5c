// Run-time overrides (the paper's Appendix C): an LSG model run with another sparsity
// type / block size gives exactly what a model saved with those settings gives; and
// position extrapolation tiles the tables as the conversion does.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "engine/backend/backend.h"
#include "engine/model/encoder.h"
#include "engine/model/model.h"
#include "tests/support/fixtures.h"

namespace precis::test {
namespace {

namespace fs = std::filesystem;

std::vector<std::vector<int64_t>> random_ids(int rows, int len, uint32_t seed) {
    std::vector<std::vector<int64_t>> ids(static_cast<size_t>(rows), std::vector<int64_t>(static_cast<size_t>(len)));
    uint32_t x = seed;
    for (auto& r : ids) {
        for (auto& v : r) v = 4 + int64_t((x = x * 1664525u + 1013904223u) >> 8) % 990;
        r.front() = 0;
        r.back() = 2;
    }
    return ids;
}

TEST(AttentionOverrides, NormModelRunAsPoolingWithAnotherBlockSizeEqualsAModelSavedThatWay) {
    set_cpu_threads(2);
    const fs::path src = fixtures_dir() / "models/lsg-norm";
    const fs::path saved = scratch_dir("override") / "lsg-pooling-b32";
    fs::create_directories(saved);
    nlohmann::json cfg = nlohmann::json::parse(std::ifstream(src / "config.json"));
    cfg["sparsity_type"] = "pooling";
    cfg["block_size"] = 32;
    std::ofstream(saved / "config.json") << cfg.dump(2);
    fs::copy_file(src / "model.safetensors", saved / "model.safetensors");

    auto original = Model::load(src, {.load_tokenizer = false});
    auto resaved = Model::load(saved, {.load_tokenizer = false});
    AttentionOptions overridden = native_attention_options(*original);
    overridden.lsg.sparsity_type = SparsityType::Pooling;
    overridden.lsg.block_size = 32;

    auto backend = make_cpu_backend();
    for (int len : {70, 128, 200}) {
        SCOPED_TRACE(len);
        const auto ids = random_ids(1, len, uint32_t(len));
        EncoderOutput a = run_encoder(*original, *backend, ids, {}, overridden, {});
        EncoderOutput b = run_encoder(*resaved, *backend, ids, {}, native_attention_options(*resaved), {});
        EXPECT_EQ(a.rows[0].sparse_path, len > 64);
        EXPECT_LE(tolerance_excess(a.rows[0].memory, b.rows[0].memory, 0, 0), 0.0) << "must be bit-identical";
        // And the override really changed something compared with the saved norm settings.
        if (len > 64) {
            EncoderOutput c = run_encoder(*original, *backend, ids, {}, native_attention_options(*original), {});
            EXPECT_GT(tolerance_excess(a.rows[0].memory, c.rows[0].memory, 1e-4, 1e-4), 0.0);
        }
    }
}

TEST(AttentionOverrides, ExtrapolationTilesThePositionTablesBeyondTheSavedLength) {
    const fs::path src = fixtures_dir() / "models/lsg-norm";
    auto base = Model::load(src, {.load_tokenizer = false});
    LoadOptions lo;
    lo.load_tokenizer = false;
    lo.max_positions = 2048;
    auto longer = Model::load(src, lo);
    const int saved = base->max_input_tokens();
    ASSERT_EQ(longer->max_input_tokens(), 2048);
    const int64_t d = base->config().d_model;
    const float* a = base->weights().encoder_positions.data<float>();
    const float* b = longer->weights().encoder_positions.data<float>();
    for (int j : {0, 1, saved - 1, saved, saved + 5, 2047}) {
        for (int64_t c = 0; c < d; ++c) ASSERT_EQ(b[(2 + j) * d + c], a[(2 + j % saved) * d + c]) << "position " << j;
    }
    // A 1,500-token input now runs through the sparse path instead of being refused.
    auto backend = make_cpu_backend();
    const auto ids = random_ids(1, 1500, 7);
    EXPECT_THROW(run_encoder(*base, *backend, ids, {}, native_attention_options(*base), {}), Error);
    EncoderOutput out = run_encoder(*longer, *backend, ids, {}, native_attention_options(*longer), {});
    EXPECT_EQ(out.rows[0].memory.dim(0), 1 + 1500);
}

TEST(AttentionOverrides, PlainBartRunsWithLsgAttentionAfterInMemoryConversion) {
    LoadOptions lo;
    lo.load_tokenizer = false;
    lo.convert_to_lsg = true;
    lo.max_positions = 1024;
    lo.lsg.block_size = 16;
    lo.lsg.sparse_block_size = 16;
    lo.lsg.sparsity_factor = 2;
    auto model = Model::load(fixtures_dir() / "models/bart-tiny", lo);
    EXPECT_TRUE(model->config().is_lsg);
    EXPECT_EQ(model->native_attention(), EncoderAttention::Lsg);
    auto backend = make_cpu_backend();
    EncoderOutput out = run_encoder(*model, *backend, random_ids(1, 300, 3), {}, native_attention_options(*model), {});
    EXPECT_TRUE(out.rows[0].sparse_path);
    EXPECT_EQ(out.rows[0].memory.dim(0), 1 + 300);
}

}  // namespace
}  // namespace precis::test
