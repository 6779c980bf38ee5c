#include "engine/model/bart_weights.h"

#include <cstring>
#include <random>

#include "engine/core/checked.h"
#include "engine/io/checkpoint.h"

namespace precis {

namespace {

class Gatherer {
public:
    Gatherer(const WeightMap& map, const std::string& where) : map_(map), where_(where) {}

    Tensor get(const std::string& name, const Shape& shape) const {
        if (!map_.has(name))
            throw Error("model " + where_ + " has no tensor '" + name + "' that its config requires");
        const Tensor& t = map_.get(name);
        Shape got = t.shape();
        // final_logits_bias is stored [1, V]; biases occasionally with a leading 1.
        if (shape_numel(got) == shape_numel(shape) && got != shape && got.size() != shape.size()) got = shape;
        if (got != shape)
            throw Error("model " + where_ + ": tensor '" + name + "' has shape " + shape_str(t.shape()) +
                        ", expected " + shape_str(shape));
        if (t.dtype() == DType::F32) return t.reshape(shape);  // zero-copy view of the checkpoint
        check(t.dtype() == DType::F16 || t.dtype() == DType::BF16,
              "model " + where_ + ": tensor '" + name + "' has unsupported dtype " + dtype_name(t.dtype()));
        return t.to_f32().reshape(shape);
    }

    LinearWeights linear(const std::string& prefix, int64_t out, int64_t in) const {
        LinearWeights l;
        l.weight = get(prefix + ".weight", {out, in});
        if (map_.has(prefix + ".bias")) l.bias = get(prefix + ".bias", {out});
        return l;
    }

    LayerNormWeights norm(const std::string& prefix, int64_t d) const {
        return {get(prefix + ".weight", {d}), get(prefix + ".bias", {d})};
    }

    AttentionWeights attention(const std::string& prefix, int64_t d) const {
        return {linear(prefix + ".q_proj", d, d), linear(prefix + ".k_proj", d, d), linear(prefix + ".v_proj", d, d),
                linear(prefix + ".out_proj", d, d)};
    }

    bool has(const std::string& name) const { return map_.has(name); }

private:
    const WeightMap& map_;
    std::string where_;
};

Tensor tile_positions(const Tensor& table, int max_positions) {
    const int64_t rows = table.dim(0), d = table.dim(1);
    const int64_t old_positions = rows - 2;
    Tensor out = Tensor::empty(DType::F32, {int64_t(max_positions) + 2, d});
    const float* src = table.data<float>();
    float* dst = out.data<float>();
    std::memcpy(dst, src, size_t(2 * d) * sizeof(float));
    for (int64_t j = 0; j < max_positions; ++j)
        std::memcpy(dst + (2 + j) * d, src + (2 + j % old_positions) * d, size_t(d) * sizeof(float));
    return out;
}

}  // namespace

BartWeights BartWeights::from_map(const WeightMap& map, const ModelConfig& cfg, const std::string& where) {
    Gatherer g(map, where);
    const int64_t D = cfg.d_model, V = cfg.vocab_size, P = cfg.max_position_embeddings + 2;
    BartWeights w;
    w.shared = g.get("model.shared.weight", {V, D});
    w.encoder_positions = g.get("model.encoder.embed_positions.weight", {P, D});
    w.decoder_positions = g.get("model.decoder.embed_positions.weight", {P, D});
    w.encoder_embedding_norm = g.norm("model.encoder.layernorm_embedding", D);
    w.decoder_embedding_norm = g.norm("model.decoder.layernorm_embedding", D);
    if (cfg.is_lsg) w.global_embeddings = g.get("model.encoder.global_embeddings.weight", {512, D});
    if (g.has("final_logits_bias"))
        w.final_logits_bias = g.get("final_logits_bias", {V});
    else
        w.final_logits_bias = Tensor::zeros(DType::F32, {V});
    for (int i = 0; i < cfg.encoder_layers; ++i) {
        const std::string p = "model.encoder.layers." + std::to_string(i);
        EncoderLayerWeights l;
        l.self_attn = g.attention(p + ".self_attn", D);
        l.self_attn_norm = g.norm(p + ".self_attn_layer_norm", D);
        l.fc1 = g.linear(p + ".fc1", cfg.encoder_ffn_dim, D);
        l.fc2 = g.linear(p + ".fc2", D, cfg.encoder_ffn_dim);
        l.final_norm = g.norm(p + ".final_layer_norm", D);
        w.encoder_layers.push_back(std::move(l));
    }
    for (int i = 0; i < cfg.decoder_layers; ++i) {
        const std::string p = "model.decoder.layers." + std::to_string(i);
        DecoderLayerWeights l;
        l.self_attn = g.attention(p + ".self_attn", D);
        l.self_attn_norm = g.norm(p + ".self_attn_layer_norm", D);
        l.cross_attn = g.attention(p + ".encoder_attn", D);
        l.cross_attn_norm = g.norm(p + ".encoder_attn_layer_norm", D);
        l.fc1 = g.linear(p + ".fc1", cfg.decoder_ffn_dim, D);
        l.fc2 = g.linear(p + ".fc2", D, cfg.decoder_ffn_dim);
        l.final_norm = g.norm(p + ".final_layer_norm", D);
        w.decoder_layers.push_back(std::move(l));
    }
    if (cfg.is_classifier) {
        const int64_t labels = int64_t(cfg.id2label.size());
        check(labels > 0, "model " + where + " is a classifier but its config names no labels");
        w.classification_head = ClassificationHeadWeights{g.linear("classification_head.dense", D, D),
                                                          g.linear("classification_head.out_proj", labels, D)};
    }
    return w;
}

BartWeights BartWeights::random(const ModelConfig& cfg, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> normal(0.f, 0.02f);
    auto rand = [&](Shape s, float scale = 1.f) {
        Tensor t = Tensor::empty(DType::F32, std::move(s));
        float* p = t.data<float>();
        for (int64_t i = 0; i < t.numel(); ++i) p[i] = normal(rng) * scale;
        return t;
    };
    auto ones = [&](int64_t n) {
        Tensor t = Tensor::empty(DType::F32, {n});
        std::fill(t.data<float>(), t.data<float>() + n, 1.f);
        return t;
    };
    auto linear = [&](int64_t out, int64_t in) { return LinearWeights{rand({out, in}), rand({out})}; };
    auto norm = [&](int64_t d) { return LayerNormWeights{ones(d), Tensor::zeros(DType::F32, {d})}; };
    auto attention = [&](int64_t d) { return AttentionWeights{linear(d, d), linear(d, d), linear(d, d), linear(d, d)}; };
    const int64_t D = cfg.d_model, V = cfg.vocab_size, P = cfg.max_position_embeddings + 2;
    BartWeights w;
    w.shared = rand({V, D});
    w.encoder_positions = rand({P, D});
    w.decoder_positions = rand({P, D});
    w.encoder_embedding_norm = norm(D);
    w.decoder_embedding_norm = norm(D);
    if (cfg.is_lsg) w.global_embeddings = rand({512, D});
    w.final_logits_bias = Tensor::zeros(DType::F32, {V});
    for (int i = 0; i < cfg.encoder_layers; ++i)
        w.encoder_layers.push_back({attention(D), norm(D), linear(cfg.encoder_ffn_dim, D),
                                    linear(D, cfg.encoder_ffn_dim), norm(D)});
    for (int i = 0; i < cfg.decoder_layers; ++i)
        w.decoder_layers.push_back({attention(D), norm(D), attention(D), norm(D), linear(cfg.decoder_ffn_dim, D),
                                    linear(D, cfg.decoder_ffn_dim), norm(D)});
    return w;
}

void BartWeights::extend_positions(int max_positions) {
    if (encoder_positions.dim(0) - 2 >= max_positions) return;
    if (max_positions > kMaxPositionsLimit)
        throw Error("cannot extend the position tables to " + std::to_string(max_positions) +
                    " positions: the limit is " + std::to_string(kMaxPositionsLimit));
    // Both tables, in float32, before anything is allocated.
    const std::string what = "extending the position tables to " + std::to_string(max_positions) + " positions";
    const uint64_t per_table =
        checked_mul(checked_mul(uint64_t(max_positions) + 2, uint64_t(encoder_positions.dim(1)), what), uint64_t(4), what);
    require_memory(checked_mul(per_table, uint64_t(2), what), what);
    encoder_positions = tile_positions(encoder_positions, max_positions);
    decoder_positions = tile_positions(decoder_positions, max_positions);
}

}  // namespace precis
