// The automatic compute type: fp32 whenever it fits, int8 with a notice when it does not.
#include <gtest/gtest.h>

#include "engine/model/bart_weights.h"
#include "engine/model/compute_type_choice.h"

namespace precis::test {
namespace {

ModelConfig small_config(bool lsg) {
    ModelConfig c;
    c.vocab_size = 300;
    c.d_model = 32;
    c.encoder_layers = 2;
    c.decoder_layers = 3;
    c.encoder_heads = c.decoder_heads = 4;
    c.encoder_ffn_dim = 64;
    c.decoder_ffn_dim = 48;
    c.max_position_embeddings = 64;
    c.is_lsg = lsg;
    return c;
}

// Every float a random model of the config holds (the LM head is the tied embedding).
uint64_t held_floats(const BartWeights& w) {
    auto n = [](const Tensor& t) { return t.defined() ? uint64_t(t.numel()) : 0; };
    auto lin = [&](const LinearWeights& l) { return n(l.weight) + n(l.bias); };
    auto att = [&](const AttentionWeights& a) { return lin(a.q) + lin(a.k) + lin(a.v) + lin(a.out); };
    auto norm = [&](const LayerNormWeights& l) { return n(l.gamma) + n(l.beta); };
    uint64_t f = n(w.shared) + n(w.encoder_positions) + n(w.decoder_positions) + n(w.global_embeddings) +
                 n(w.final_logits_bias) + norm(w.encoder_embedding_norm) + norm(w.decoder_embedding_norm);
    for (const auto& l : w.encoder_layers)
        f += att(l.self_attn) + norm(l.self_attn_norm) + lin(l.fc1) + lin(l.fc2) + norm(l.final_norm);
    for (const auto& l : w.decoder_layers)
        f += att(l.self_attn) + norm(l.self_attn_norm) + att(l.cross_attn) + norm(l.cross_attn_norm) + lin(l.fc1) +
             lin(l.fc2) + norm(l.final_norm);
    return f;
}

TEST(ComputeTypeChoice, CountsExactlyTheBytesOfTheFloat32Weights) {
    for (bool lsg : {false, true}) {
        const ModelConfig c = small_config(lsg);
        EXPECT_EQ(fp32_weight_bytes(c), held_floats(BartWeights::random(c, 1)) * 4) << (lsg ? "LSG" : "BART");
    }
}

TEST(ComputeTypeChoice, KeepsFp32WhenItFitsAndWhenFreeMemoryIsUnknown) {
    const ModelConfig c = small_config(false);
    const uint64_t needed = fp32_weight_bytes(c) + fp32_weight_bytes(c) / 4;
    for (uint64_t available : {needed, needed * 10, uint64_t(0)}) {
        const ComputeTypeChoice choice = choose_compute_type(c, available);
        EXPECT_EQ(choice.type, ComputeType::Fp32) << available;
        EXPECT_TRUE(choice.notice.empty());
    }
}

TEST(ComputeTypeChoice, ChoosesInt8WithANoticeWhenFp32WouldNotFit) {
    const ModelConfig c = small_config(true);
    const uint64_t needed = fp32_weight_bytes(c) + fp32_weight_bytes(c) / 4;
    const ComputeTypeChoice choice = choose_compute_type(c, needed - 1);
    EXPECT_EQ(choice.type, ComputeType::Int8);
    EXPECT_NE(choice.notice.find("int8"), std::string::npos) << choice.notice;
    EXPECT_NE(choice.notice.find("--compute-type fp32"), std::string::npos) << choice.notice;
}

}  // namespace
}  // namespace precis::test
