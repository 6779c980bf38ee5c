#include "engine/model/bart_weights.h"

#include <algorithm>
#include <cstring>

#include "engine/backend/lowp_linear.h"
#include "engine/core/checked.h"
#include "engine/core/normal_draws.h"
#include "engine/io/checkpoint.h"

namespace precis {

namespace {

class Gatherer {
public:
    Gatherer(const WeightMap& map, const std::string& where) : map_(map), where_(where) {}

    ComputeType compute_ = ComputeType::Fp32;
    bool prequantized_ = false;  // the map is a weight cache: matrices already as compute_

    // The checkpoint's tensor, shape-checked, in its own dtype (F32/F16/BF16).
    Tensor raw(const std::string& name, const Shape& shape) const {
        if (!map_.has(name))
            throw Error("model " + where_ + " has no tensor '" + name + "' that its config requires");
        const Tensor& t = map_.get(name);
        if (t.shape() != shape)
            throw Error("model " + where_ + ": tensor '" + name + "' has shape " + shape_str(t.shape()) +
                        ", expected " + shape_str(shape));
        check(t.dtype() == DType::F32 || t.dtype() == DType::F16 || t.dtype() == DType::BF16,
              "model " + where_ + ": tensor '" + name + "' has unsupported dtype " + dtype_name(t.dtype()));
        return t;
    }

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
        if (prequantized_) {
            l.weight = stored(prefix + ".weight", {out, in});
            if (compute_ == ComputeType::Int8) l.scales = get(prefix + ".weight_scale", {out});
        } else if (compute_ != ComputeType::Fp32) {  // straight from the checkpoint's dtype, no fp32 copy
            l.weight = LinearWeights::stored_as(raw(prefix + ".weight", {out, in}), compute_, &l.scales);
        } else {
            l.weight = get(prefix + ".weight", {out, in});
        }
        if (map_.has(prefix + ".bias")) l.bias = get(prefix + ".bias", {out});
        return l;
    }

    // A matrix of a weight cache, which must already be in the compute type's dtype.
    Tensor stored(const std::string& name, const Shape& shape) const {
        if (!map_.has(name)) throw Error("weight cache " + where_ + " has no tensor '" + name + "'");
        const Tensor& t = map_.get(name);
        const DType want = compute_ == ComputeType::Int8 ? DType::I8 : DType::F16;
        if (t.shape() != shape || t.dtype() != want)
            throw Error("weight cache " + where_ + ": tensor '" + name + "' is " + dtype_name(t.dtype()) + " " +
                        shape_str(t.shape()) + ", expected " + dtype_name(want) + " " + shape_str(shape));
        return t;
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

namespace {

BartWeights gather(const Gatherer& g, const ModelConfig& cfg, const std::string& where, ComputeType compute) {
    const int64_t D = cfg.d_model, V = cfg.vocab_size, P = cfg.max_position_embeddings + 2;
    BartWeights w;
    if (g.prequantized_) {  // the LM head as stored; fp16-weights keeps float32 lookups beside it
        w.lm_head = g.linear("lm_head", V, D);
        check(w.lm_head.bias.defined(), "weight cache " + where + " has no tensor 'lm_head.bias'");
        w.final_logits_bias = w.lm_head.bias;
        if (compute == ComputeType::Fp16Weights) w.shared = g.get("model.shared.weight", {V, D});
    } else {
        w.shared = g.get("model.shared.weight", {V, D});
        if (g.has("final_logits_bias"))
            w.final_logits_bias = g.get("final_logits_bias", {V});
        else
            w.final_logits_bias = Tensor::zeros(DType::F32, {V});
        w.tie_lm_head(compute);  // first: a float32 copy of a half-precision table is freed at once
    }
    w.encoder_positions = g.get("model.encoder.embed_positions.weight", {P, D});
    w.decoder_positions = g.get("model.decoder.embed_positions.weight", {P, D});
    w.encoder_embedding_norm = g.norm("model.encoder.layernorm_embedding", D);
    w.decoder_embedding_norm = g.norm("model.decoder.layernorm_embedding", D);
    if (cfg.is_lsg) w.global_embeddings = g.get("model.encoder.global_embeddings.weight", {512, D});
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
    w.compute_type = compute;
    return w;
}

}  // namespace

BartWeights BartWeights::from_map(const WeightMap& map, const ModelConfig& cfg, const std::string& where,
                                  ComputeType compute) {
    Gatherer g(map, where);
    g.compute_ = compute;
    return gather(g, cfg, where, compute);
}

BartWeights BartWeights::from_cache(const WeightMap& map, const ModelConfig& cfg, const std::string& where,
                                    ComputeType compute) {
    check(compute != ComputeType::Fp32, "float32 weights are never cached");
    Gatherer g(map, where);
    g.compute_ = compute;
    g.prequantized_ = true;
    return gather(g, cfg, where, compute);
}

BartWeights BartWeights::random(const ModelConfig& cfg, uint64_t seed, ComputeType compute) {
    NormalDraws normal(seed);
    auto rand = [&](Shape s) {
        Tensor t = Tensor::empty(DType::F32, std::move(s));
        normal.fill(t.data<float>(), t.numel(), 0.02f);
        return t;
    };
    auto ones = [&](int64_t n) {
        Tensor t = Tensor::empty(DType::F32, {n});
        std::fill(t.data<float>(), t.data<float>() + n, 1.f);
        return t;
    };
    auto linear = [&](int64_t out, int64_t in) {
        LinearWeights l{rand({out, in}), {}, rand({out})};
        l.store_as(compute);  // one fp32 matrix alive at a time
        return l;
    };
    auto norm = [&](int64_t d) { return LayerNormWeights{ones(d), Tensor::zeros(DType::F32, {d})}; };
    auto attention = [&](int64_t d) { return AttentionWeights{linear(d, d), linear(d, d), linear(d, d), linear(d, d)}; };
    const int64_t D = cfg.d_model, V = cfg.vocab_size, P = cfg.max_position_embeddings + 2;
    BartWeights w;
    w.shared = rand({V, D});
    w.final_logits_bias = Tensor::zeros(DType::F32, {V});
    w.tie_lm_head(compute);
    w.encoder_positions = rand({P, D});
    w.decoder_positions = rand({P, D});
    w.encoder_embedding_norm = norm(D);
    w.decoder_embedding_norm = norm(D);
    if (cfg.is_lsg) w.global_embeddings = rand({512, D});
    for (int i = 0; i < cfg.encoder_layers; ++i)
        w.encoder_layers.push_back({attention(D), norm(D), linear(cfg.encoder_ffn_dim, D),
                                    linear(D, cfg.encoder_ffn_dim), norm(D)});
    for (int i = 0; i < cfg.decoder_layers; ++i)
        w.decoder_layers.push_back({attention(D), norm(D), attention(D), norm(D), linear(cfg.decoder_ffn_dim, D),
                                    linear(D, cfg.decoder_ffn_dim), norm(D)});
    w.compute_type = compute;
    return w;
}

void BartWeights::tie_lm_head(ComputeType t) {
    lm_head = LinearWeights{shared, {}, final_logits_bias};
    lm_head.store_as(t);
    // fp16-weights keeps the float32 table for the lookups: fp16 rounding of the input
    // embeddings flips LSG's norm-based key choices on the fixtures (lsg-norm: 0.11 off),
    // and fp16-weights promises the fixtures' tolerance. int8 promises less and saves more.
    if (t == ComputeType::Int8) shared = Tensor();
}

WeightRef BartWeights::token_embeddings() const {
    return shared.defined() ? WeightRef{WeightFormat::F32, shared.raw(), nullptr} : lm_head.ref();
}

WeightRef LinearWeights::ref() const {
    switch (weight.dtype()) {
        case DType::F32: return {WeightFormat::F32, weight.raw(), nullptr};
        case DType::I8: return {WeightFormat::I8, weight.raw(), scales.data<float>()};
        case DType::F16: return {WeightFormat::F16, weight.raw(), nullptr};
        default: throw Error(std::string("linear weights of dtype ") + dtype_name(weight.dtype()) + " cannot be used");
    }
}

Tensor LinearWeights::stored_as(const Tensor& w, ComputeType t, Tensor* scales) {
    check(w.rank() == 2, "linear weights must be a matrix");
    const int64_t out = w.dim(0), in = w.dim(1);
    switch (t) {
        case ComputeType::Fp32: return w.dtype() == DType::F32 ? w : w.to_f32();
        case ComputeType::Fp16Weights: return w.dtype() == DType::F16 ? w : w.to(DType::F16);
        case ComputeType::Int8: {
            Tensor q = Tensor::empty(DType::I8, {out, in});
            *scales = Tensor::empty(DType::F32, {out});
            if (w.dtype() == DType::F32) {
                quantize_rows_int8(w.data<float>(), out, in, q.data<int8_t>(), scales->data<float>());
            } else {  // half-precision checkpoints: widen a block of rows at a time
                constexpr int64_t kBlock = 256;
                std::vector<float> rows(size_t(std::min(out, kBlock) * in));
                for (int64_t r0 = 0; r0 < out; r0 += kBlock) {
                    const int64_t n = std::min(kBlock, out - r0);
                    const uint16_t* src = w.data<uint16_t>() + r0 * in;
                    for (int64_t i = 0; i < n * in; ++i)
                        rows[size_t(i)] = w.dtype() == DType::F16 ? half_to_float(src[i]) : bf16_to_float(src[i]);
                    quantize_rows_int8(rows.data(), n, in, q.data<int8_t>() + r0 * in, scales->data<float>() + r0);
                }
            }
            return q;
        }
    }
    return w;
}

void LinearWeights::store_as(ComputeType t) {
    if (t == ComputeType::Fp32 || !weight.defined()) return;
    if ((t == ComputeType::Int8 && weight.dtype() == DType::I8) ||
        (t == ComputeType::Fp16Weights && weight.dtype() == DType::F16))
        return;
    check(weight.dtype() != DType::I8, "int8 linear weights cannot be stored as another type");
    weight = stored_as(weight, t, &scales);
}

void BartWeights::store_as(ComputeType t) {
    if (t == compute_type) return;
    check(compute_type == ComputeType::Fp32, "weights are already stored as " + std::string(compute_type_name(compute_type)));
    auto att = [&](AttentionWeights& a) {
        for (LinearWeights* l : {&a.q, &a.k, &a.v, &a.out}) l->store_as(t);
    };
    for (auto& l : encoder_layers) {
        att(l.self_attn);
        l.fc1.store_as(t);
        l.fc2.store_as(t);
    }
    for (auto& l : decoder_layers) {
        att(l.self_attn);
        att(l.cross_attn);
        l.fc1.store_as(t);
        l.fc2.store_as(t);
    }
    if (classification_head) {
        classification_head->dense.store_as(t);
        classification_head->out_proj.store_as(t);
    }
    tie_lm_head(t);
    compute_type = t;
}

size_t BartWeights::linear_weight_bytes() const {
    auto lin = [](const LinearWeights& l) { return l.weight.nbytes() + (l.scales.defined() ? l.scales.nbytes() : 0); };
    auto att = [&](const AttentionWeights& a) { return lin(a.q) + lin(a.k) + lin(a.v) + lin(a.out); };
    size_t n = 0;
    for (auto& l : encoder_layers) n += att(l.self_attn) + lin(l.fc1) + lin(l.fc2);
    for (auto& l : decoder_layers) n += att(l.self_attn) + att(l.cross_attn) + lin(l.fc1) + lin(l.fc2);
    if (classification_head) n += lin(classification_head->dense) + lin(classification_head->out_proj);
    if (lm_head.weight.defined()) n += lin(lm_head);
    return n;
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
