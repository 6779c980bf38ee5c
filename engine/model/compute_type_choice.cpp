#include "engine/model/compute_type_choice.h"

#include "engine/core/checked.h"

namespace precis {

uint64_t fp32_weight_bytes(const ModelConfig& cfg) {
    const uint64_t D = uint64_t(cfg.d_model), V = uint64_t(cfg.vocab_size);
    const uint64_t P = uint64_t(cfg.max_position_embeddings) + 2;
    const uint64_t Fe = uint64_t(cfg.encoder_ffn_dim), Fd = uint64_t(cfg.decoder_ffn_dim);
    // A linear layer [out, in] with its bias; a LayerNorm's gamma and beta.
    auto linear = [](uint64_t out, uint64_t in) { return out * in + out; };
    const uint64_t attention = 4 * linear(D, D), norm = 2 * D;
    uint64_t floats = V * D + 2 * P * D + V + 2 * norm;  // tied embedding / LM head, positions, logits bias
    if (cfg.is_lsg) floats += 512 * D;                    // global embeddings
    floats += uint64_t(cfg.encoder_layers) * (attention + linear(Fe, D) + linear(D, Fe) + 2 * norm);
    floats += uint64_t(cfg.decoder_layers) * (2 * attention + linear(Fd, D) + linear(D, Fd) + 3 * norm);
    return floats * sizeof(float);
}

ComputeTypeChoice choose_compute_type(const ModelConfig& cfg, uint64_t available_bytes) {
    const uint64_t weights = fp32_weight_bytes(cfg), needed = weights + weights / 4;
    if (available_bytes == 0 || needed <= available_bytes) return {};
    return {ComputeType::Int8, "the model needs about " + human_bytes(needed) + " in fp32 but only " +
                                   human_bytes(available_bytes) +
                                   " of memory is free, so it runs with int8 weights (--compute-type fp32 to insist)"};
}

}  // namespace precis
