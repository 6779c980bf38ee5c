#pragma once
// The weights of a BART / LSG-BART model, gathered by name from a checkpoint and
// held as float32 (half-precision checkpoints are widened once at load time), except the
// linear layers' matrices, which a compute type other than fp32 stores as int8 + scales
// or fp16 (quantized once at load, one matrix at a time).
#include <optional>
#include <string>
#include <vector>

#include "engine/backend/backend.h"
#include "engine/core/tensor.h"
#include "engine/model/compute_type.h"
#include "engine/config/config.h"

namespace precis {

class WeightMap;

struct LinearWeights {
    Tensor weight;  // [out, in]: F32, or I8 / F16 (see compute_type.h)
    Tensor scales;  // [out] F32, I8 only: W[o, :] = weight[o, :] * scales[o]
    Tensor bias;    // [out]
    int64_t out() const { return weight.dim(0); }
    int64_t in() const { return weight.dim(1); }
    const float* w() const {
        check(weight.dtype() == DType::F32, "linear weights are quantized; use ref()");
        return weight.data<float>();
    }
    const float* b() const { return bias.defined() ? bias.data<float>() : nullptr; }
    WeightRef ref() const;
    // A copy of `w` ([out, in], F32/F16/BF16) stored as the compute type asks.
    static Tensor stored_as(const Tensor& w, ComputeType t, Tensor* scales);
    // This layer's matrix stored as `t` (a no-op for fp32 or when already done).
    void store_as(ComputeType t);
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
    Tensor shared;                  // [V, D] fp32 token embeddings, also the (tied) lm_head; empty
                                    // for int8, whose lm_head holds the table
    Tensor encoder_positions;       // [max_pos + 2, D]
    Tensor decoder_positions;       // [max_pos + 2, D]
    Tensor global_embeddings;       // [512, D], LSG only
    Tensor final_logits_bias;       // [V] (zeros when absent)
    LayerNormWeights encoder_embedding_norm, decoder_embedding_norm;
    std::vector<EncoderLayerWeights> encoder_layers;
    std::vector<DecoderLayerWeights> decoder_layers;
    std::optional<ClassificationHeadWeights> classification_head;
    // The LM head: shared^T with final_logits_bias. For fp32 `lm_head.weight` is `shared`
    // itself (same memory); other compute types store it here in their format, and int8
    // drops `shared`: its token embeddings are read from this matrix, so the vocabulary is
    // held once, in int8 (154 MB -> 39 MB at bart-base's 50265 x 768).
    LinearWeights lm_head;
    // The token embedding table as stored (shared, or the quantized lm_head).
    WeightRef token_embeddings() const;
    ComputeType compute_type = ComputeType::Fp32;

    // Gathers and checks every tensor the config implies; errors name `where` and the tensor.
    // Linear layers are stored as `compute` one at a time, so the peak stays near the result.
    static BartWeights from_map(const WeightMap& map, const ModelConfig& cfg, const std::string& where,
                                ComputeType compute = ComputeType::Fp32);
    // The same from a weight cache (weight_cache.h) whose linear layers are already stored
    // as `compute` (int8 with "<name>.weight_scale", or fp16) and whose LM head is
    // "lm_head.*": every tensor stays a view of the mapped file.
    static BartWeights from_cache(const WeightMap& map, const ModelConfig& cfg, const std::string& where,
                                  ComputeType compute);
    // Random weights of the right shapes (for `precis bench --shape ...`), seeded; the
    // same seed gives the same fp32 values whatever the compute type.
    static BartWeights random(const ModelConfig& cfg, uint64_t seed, ComputeType compute = ComputeType::Fp32);

    // Every linear layer (and the LM head) stored as `t`; fp32 -> int8/fp16 only.
    void store_as(ComputeType t);
    // lm_head from `shared` and final_logits_bias, stored as `t` (then `shared` is dropped
    // if `t` is int8).
    void tie_lm_head(ComputeType t);
    // Bytes held by the linear layers' matrices (+ scales), the LM head included.
    size_t linear_weight_bytes() const;

    // Tiles the position tables to `max_positions` rows after the offset of 2
    // (lsg-spec section 5 step 3); no-op when already that long. Throws precis::Error
    // when `max_positions` exceeds kMaxPositionsLimit or the tables would not fit in the
    // memory available now.
    void extend_positions(int max_positions);
};

}  // namespace precis
