#pragma once
// The weights of a BART / LSG-BART model, gathered by name from a checkpoint and
// held as float32 (half-precision checkpoints are widened once at load time).
#include <optional>
#include <string>
#include <vector>

#include "engine/core/tensor.h"
#include "engine/model/config.h"

namespace precis {

class WeightMap;

struct LinearWeights {
    Tensor weight;  // [out, in]
    Tensor bias;    // [out]
    int64_t out() const { return weight.dim(0); }
    int64_t in() const { return weight.dim(1); }
    const float* w() const { return weight.data<float>(); }
    const float* b() const { return bias.defined() ? bias.data<float>() : nullptr; }
};

struct LayerNormWeights {
    Tensor gamma, beta;
    const float* g() const { return gamma.data<float>(); }
    const float* b() const { return beta.data<float>(); }
};

struct AttentionWeights {
    LinearWeights q, k, v, out;
};

struct EncoderLayerWeights {
    AttentionWeights self_attn;
    LayerNormWeights self_attn_norm;
    LinearWeights fc1, fc2;
    LayerNormWeights final_norm;
};

struct DecoderLayerWeights {
    AttentionWeights self_attn;
    LayerNormWeights self_attn_norm;
    AttentionWeights cross_attn;
    LayerNormWeights cross_attn_norm;
    LinearWeights fc1, fc2;
    LayerNormWeights final_norm;
};

struct ClassificationHeadWeights {
    LinearWeights dense, out_proj;
};

struct BartWeights {
    Tensor shared;                  // [V, D], also the (tied) lm_head
    Tensor encoder_positions;       // [max_pos + 2, D]
    Tensor decoder_positions;       // [max_pos + 2, D]
    Tensor global_embeddings;       // [512, D], LSG only
    Tensor final_logits_bias;       // [V] (zeros when absent)
    LayerNormWeights encoder_embedding_norm, decoder_embedding_norm;
    std::vector<EncoderLayerWeights> encoder_layers;
    std::vector<DecoderLayerWeights> decoder_layers;
    std::optional<ClassificationHeadWeights> classification_head;

    // Gathers and checks every tensor the config implies; errors name `where` and the tensor.
    static BartWeights from_map(const WeightMap& map, const ModelConfig& cfg, const std::string& where);
    // Random weights of the right shapes (for `precis bench --shape ...`), seeded.
    static BartWeights random(const ModelConfig& cfg, uint64_t seed);

    // Tiles the position tables to `max_positions` rows after the offset of 2
    // (lsg-spec section 5 step 3); no-op when already that long. Throws precis::Error
    // when `max_positions` exceeds kMaxPositionsLimit or the tables would not fit in the
    // memory available now.
    void extend_positions(int max_positions);
};

}  // namespace precis
