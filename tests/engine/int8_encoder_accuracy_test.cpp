// Encoder states of a random bart-base-shaped encoder (6 layers, d 768, 12 heads, FFN 3072)
// with int8 and fp16 weights against float32, full attention and LSG: the fixtures are
// 2-layer d-64 models, so this is where the int8 GEMM's activation rounding meets the
// real width of the products. The vocabulary is cut to 1000 tokens: it changes nothing
// in the encoder but the time to build the embedding table.
//
// Bounds, with the reasoning: each int8 linear layer adds about 1.7% relative error
// (int8_gemm_test), and post-LN layers renormalize it rather than let it grow, so the
// states stay within a few percent; fp16 rounding is ~3e-4 per product. Measured on this
// machine: int8 2.1% (full and LSG alike), fp16 2.6e-4. The bounds leave room for other
// seeds without letting a broken kernel (errors of order 1) through.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "engine/attention/attention.h"
#include "engine/backend/backend.h"
#include "engine/model/encoder.h"
#include "engine/model/model.h"
#include "tests/support/numeric.h"

namespace precis::test {
namespace {

ModelConfig base_shape(bool lsg) {
    ModelConfig c;
    c.vocab_size = 1000;
    c.d_model = 768;
    c.encoder_layers = 6;
    c.decoder_layers = 1;  // never run here: one layer keeps building the random weights cheap
    c.encoder_heads = c.decoder_heads = 12;
    c.encoder_ffn_dim = c.decoder_ffn_dim = 3072;
    c.architecture = lsg ? "LSGBartForConditionalGeneration" : "BartForConditionalGeneration";
    c.is_lsg = lsg;
    c.max_position_embeddings = 1024;
    c.lsg.block_size = 128;
    c.lsg.sparse_block_size = 128;
    c.lsg.sparsity_factor = 4;
    c.lsg.sparsity_type = SparsityType::Norm;
    return c;
}

double relative_error(const Tensor& a, const Tensor& b) { return normalized_error(a.to_float_vector(), b.to_float_vector()); }

Tensor encode(const ModelConfig& cfg, ComputeType type, const std::vector<int64_t>& ids) {
    auto model = Model::from_parts(cfg, BartWeights::random(cfg, 77, type), nullptr, GenerationConfig{}, "random-base");
    auto backend = make_cpu_backend();
    EncoderOutput out = run_encoder(*model, *backend, {ids}, {}, native_attention_options(*model), RunCallbacks{});
    return out.rows.at(0).memory;
}

class BaseShapeEncoder : public ::testing::TestWithParam<bool> {};

TEST_P(BaseShapeEncoder, Int8AndFp16StatesStayCloseToFloat32) {
    set_cpu_threads(2);
    const bool lsg = GetParam();
    const ModelConfig cfg = base_shape(lsg);
    std::mt19937 rng(3);
    std::vector<int64_t> ids(512);
    for (int64_t& id : ids) id = 4 + int64_t(rng() % 990);
    ids.front() = cfg.bos_token_id;
    ids.back() = cfg.eos_token_id;
    const Tensor f32 = encode(cfg, ComputeType::Fp32, ids);
    const double i8 = relative_error(encode(cfg, ComputeType::Int8, ids), f32);
    const double f16 = relative_error(encode(cfg, ComputeType::Fp16Weights, ids), f32);
    std::printf("bart-base shape, %s, 512 tokens: encoder states relative error int8 %.2e, fp16-weights %.2e\n",
                lsg ? "LSG" : "full attention", i8, f16);
    EXPECT_LT(i8, 5e-2);
    EXPECT_GT(i8, 0.0);
    EXPECT_LT(f16, 2e-3);
}

INSTANTIATE_TEST_SUITE_P(FullAndLsg, BaseShapeEncoder, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? std::string("lsg") : std::string("full"); });

}  // namespace
}  // namespace precis::test
