#include "engine/model/encoder.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "engine/attention/bf16_attention.h"
#include "engine/model/encoder_self_attention.h"
#include "engine/backend/backend.h"
#include "engine/generate/model_runner.h"
#include "engine/core/checked.h"
#include "engine/model/model.h"

namespace precis {

namespace {

constexpr float kLowest = std::numeric_limits<float>::lowest();

struct RowPlan {
    int global = 0;
    int padded = 0;
    bool sparse = false;
};

RowPlan plan_row(const ModelConfig& cfg, const AttentionOptions& att, int length) {
    RowPlan p;
    p.padded = length;
    const bool lsg_model = cfg.is_lsg;
    if (lsg_model) p.global = std::clamp(att.lsg.num_global_tokens, 1, 512);
    if (att.kind == EncoderAttention::Lsg) {
        check(lsg_model, "LSG attention needs an LSG checkpoint or one converted in memory");
        const int B = att.lsg.block_size;
        if (length > 2 * B) {
            if (length % B != 0) {
                check(att.lsg.adaptive, "an input of " + std::to_string(length) +
                                            " tokens is not a multiple of the block size " + std::to_string(B) +
                                            " and adaptive padding is off");
                p.padded = (length + B - 1) / B * B;
            }
            p.sparse = true;
        }
    }
    return p;
}

}  // namespace

AttentionOptions native_attention_options(const Model& model) {
    AttentionOptions a;
    a.kind = model.native_attention();
    a.lsg = model.config().lsg;
    return a;
}

namespace {

// The buffers EncoderBuffersKept keeps on this thread, and how many scopes are open.
struct KeptBuffers {
    int scopes = 0;
    Tensor q, kv_ctx;
};
thread_local KeptBuffers kept;

// The layers' working buffers for S rows: q [S, D], and k, v and the attention's output
// ctx as one buffer, which the feed-forward layer (needing none of them) reuses for its
// hidden activations, a chunk of rows at a time. Kept between runs where a scope asks for
// it, at the size of the largest group (untouched pages cost nothing).
std::pair<Tensor, Tensor> layer_buffers(int64_t S, int64_t D, int64_t F) {
    const auto kv_ctx_floats = [&](int64_t rows) {
        return std::max(3 * rows * D, std::min(rows, kEncoderSharedRows) * F);
    };
    if (kept.scopes == 0 || S > kEncoderSharedRows)
        return {Tensor::empty_written_whole(DType::F32, {S, D}), Tensor::empty_written_whole(DType::F32, {kv_ctx_floats(S)})};
    const int64_t most = kEncoderSharedRows;
    if (!kept.q.defined() || kept.q.numel() < most * D || kept.kv_ctx.numel() < kv_ctx_floats(most)) {
        kept.q = Tensor::empty_written_whole(DType::F32, {most * D});
        kept.kv_ctx = Tensor::empty_written_whole(DType::F32, {kv_ctx_floats(most)});
    }
    return {kept.q, kept.kv_ctx};
}

// Whether an input of `rows` rows may share the products with other inputs: only where the
// backend gives each row the bits it gets alone (Backend::row_exact_linear), so that what a
// document is encoded beside never changes its summary.
bool may_share_products(const Backend& be, const EncoderLayerWeights& lw, int64_t rows, int64_t D, int64_t F) {
    return be.row_exact_linear(rows, D, D, lw.self_attn.q.ref().format) &&
           be.row_exact_linear(rows, D, F, lw.fc1.ref().format) && be.row_exact_linear(rows, F, D, lw.fc2.ref().format);
}

// Consecutive inputs whose rows go through the layers' products together: [first, end).
struct InputGroup {
    size_t first = 0, end = 0;
    int64_t rows = 0;
};

std::vector<InputGroup> group_inputs(const std::vector<EncoderRowInput>& plans, const Backend& be,
                                     const EncoderLayerWeights& lw, int64_t D, int64_t F) {
    std::vector<InputGroup> groups;
    bool open = false;  // the last group may take more inputs
    for (size_t r = 0; r < plans.size(); ++r) {
        const int64_t S = plans[r].global + plans[r].padded;
        const bool shares = S < kEncoderSharedRows && may_share_products(be, lw, S, D, F);
        if (shares && open && groups.back().rows + S <= kEncoderSharedRows) {
            groups.back().end = r + 1;
            groups.back().rows += S;
            continue;
        }
        groups.push_back({r, r + 1, S});
        open = shares;
    }
    return groups;
}

EncoderOutput run_encoder_on_cpu(const Model& model, Backend& be, const std::vector<std::vector<int64_t>>& ids,
                                 const std::vector<std::vector<int64_t>>& masks, const AttentionOptions& attention,
                                 const RunCallbacks& cb, bool keep_layer_states) {
    const ModelConfig& cfg = model.config();
    const BartWeights& w = model.weights();
    const int64_t D = cfg.d_model, F = cfg.encoder_ffn_dim;
    const int L = cfg.encoder_layers;
    if (attention.kind == EncoderAttention::Lsg) attention.lsg.validate("the LSG settings");
    check(masks.empty() || masks.size() == ids.size(), "encoder: one attention mask per input row is required");
    // Every input is checked before any is encoded: a bad one fails at once.
    std::vector<EncoderRowInput> plans;
    for (size_t r = 0; r < ids.size(); ++r) plans.push_back(prepare_encoder_row(model, attention, ids, masks, r));

    // int8 runs: the attention's products in bfloat16 where the CPU has it (bf16_attention.h).
    const AttentionProducts products =
        model.compute_type() == ComputeType::Int8 ? int8_attention_products() : AttentionProducts::Float32;
    EncoderSelfAttention self_attention(attention, cfg.encoder_heads, cfg.encoder_head_dim(), products);
    EncoderOutput result;
    result.rows.resize(ids.size());
    std::vector<int64_t> offset(plans.size());  // where input r's rows start in its group's
    for (const InputGroup& group : group_inputs(plans, be, w.encoder_layers[0], D, F)) {
        const int64_t S = group.rows;  // all the group's rows
        for (size_t r = group.first, at = 0; r < group.end; at += size_t(plans[r].global + plans[r].padded), ++r)
            offset[r] = int64_t(at);
        {  // the group's activations (x, q, kept layer states, and k, v, ctx or the FFN's hidden
           // chunk, whichever is larger; see below), before allocating
            const std::string what = "encoding " + std::to_string(S) + " tokens";
            const uint64_t row = checked_mul(uint64_t(S), uint64_t(D) * 4, what);
            const uint64_t copies = 2 + (keep_layer_states ? uint64_t(L) + 1 : 0);
            const uint64_t hidden = uint64_t(std::min<int64_t>(S, kEncoderSharedRows)) * uint64_t(F) * 4;
            // Dense bf16 attention (bf16_attention.h) keeps bf16 copies of the keys and values: one row more.
            const uint64_t bf16_kv = products == AttentionProducts::Bfloat16 ? row : 0;
            require_memory(checked_mul(row, copies, what) + std::max(checked_mul(row, 3, what), hidden) + bf16_kv,
                           what);
        }
        const auto x = std::make_shared<Tensor>(Tensor::empty_written_whole(DType::F32, {S, D}));
        float* xp = x->data<float>();
        const float scale = cfg.scale_embedding ? std::sqrt(float(D)) : 1.f;
        for (size_t r = group.first; r < group.end; ++r) {
            const EncoderRowInput& plan = plans[r];
            float* xr = xp + offset[r] * D;
            if (plan.global > 0)
                std::memcpy(xr, w.global_embeddings.data<float>(), size_t(plan.global * D) * sizeof(float));
            be.embed(plan.ids.data(), plan.padded, w.token_embeddings(), cfg.vocab_size, D, scale,
                     w.encoder_positions.data<float>(), 2, xr + plan.global * D);
        }
        be.add_layer_norm(xp, nullptr, S, D, w.encoder_embedding_norm.g(), w.encoder_embedding_norm.b(), 1e-5f);
        const auto keep_states = [&] {
            for (size_t r = group.first; r < group.end; ++r)
                result.rows[r].layer_states.push_back(
                    Tensor::view(DType::F32, {plans[r].global + plans[r].padded, D}, xp + offset[r] * D, nullptr)
                        .clone());
        };
        if (keep_layer_states) keep_states();

        {  // the layers' buffers live only while the layers run (unless kept for the next run)
            // k, v and ctx share a buffer with the feed-forward layer's hidden activations
            // (layer_buffers): on long inputs that saves a chunk x ffn_dim buffer (25 MB for
            // bart-base, 34 MB for bart-large).
            const int64_t ffn_rows = std::min<int64_t>(S, kEncoderSharedRows);
            auto [q, kv_ctx] = layer_buffers(S, D, F);
            float* const k = kv_ctx.data<float>();
            float* const v = k + S * D;
            float* const ctx = v + S * D;
            float* const hidden = k;
            // Once attention has run, q is free: it holds the out_proj and FFN outputs.
            float* const tmp = q.data<float>();
            for (int layer = 0; layer < L; ++layer) {
                cb.check_abort();
                const EncoderLayerWeights& lw = w.encoder_layers[layer];
                be.linear(xp, S, D, lw.self_attn.q.ref(), lw.self_attn.q.b(), D, q.data<float>());
                be.linear(xp, S, D, lw.self_attn.k.ref(), lw.self_attn.k.b(), D, k);
                be.linear(xp, S, D, lw.self_attn.v.ref(), lw.self_attn.v.b(), D, v);
                for (size_t r = group.first; r < group.end; ++r) {
                    const EncoderRowInput& plan = plans[r];
                    const int64_t o = offset[r] * D;
                    self_attention.run(layer, int(r), q.data<float>() + o, k + o, v + o, plan.global + plan.padded,
                                       plan.global, plan.key_mask.data(), plan.sparse, ctx + o);
                }
                be.linear(ctx, S, D, lw.self_attn.out.ref(), lw.self_attn.out.b(), D, tmp);
                be.add_layer_norm(xp, tmp, S, D, lw.self_attn_norm.g(), lw.self_attn_norm.b(), 1e-5f);
                cb.check_abort();  // a 16k-token layer takes over a second: check inside it too
                for (int64_t r0 = 0; r0 < S; r0 += ffn_rows) {
                    if (r0 > 0 && (r0 / ffn_rows) % 4 == 0) cb.check_abort();
                    const int64_t n = std::min<int64_t>(ffn_rows, S - r0);
                    be.linear_gelu(xp + r0 * D, n, D, lw.fc1.ref(), lw.fc1.b(), F, hidden);
                    be.linear(hidden, n, F, lw.fc2.ref(), lw.fc2.b(), D, tmp + r0 * D);
                }
                be.add_layer_norm(xp, tmp, S, D, lw.final_norm.g(), lw.final_norm.b(), 1e-5f);
                if (keep_layer_states) keep_states();
                cb.report(RunStage::Encoding, layer + 1, L);
            }
        }

        // Hand-over to the decoder (lsg-spec section 4).
        for (size_t r = group.first; r < group.end; ++r) {
            const EncoderRowInput& plan = plans[r];
            const int T = plan.length, G = plan.global;
            float* xr = xp + offset[r] * D;
            EncodedRow& out = result.rows[r];
            out.input_length = T;
            out.padded_length = plan.padded;
            out.num_global = G;
            out.sparse_path = plan.sparse;
            // The memory is a view of the input's rows of x (x is kept alive by it, a few
            // padding rows more than needed), not a copy: a copy would be the encoder's largest
            // moment on long inputs.
            const DecoderMemoryRows rows = decoder_memory_rows(attention, G, T);
            if (rows.pool_global) {
                std::memcpy(xr + G * D, xr, size_t(D) * sizeof(float));
                // The reference overwrites the last layer's output in place, so its
                // recorded last hidden state shows the pooled row too.
                if (keep_layer_states)
                    std::memcpy(out.layer_states.back().data<float>() + G * D, xr, size_t(D) * sizeof(float));
            }
            out.memory_mask.assign(plan.key_mask.begin() + rows.first, plan.key_mask.begin() + rows.first + rows.count);
            out.memory = Tensor::view(DType::F32, {rows.count, D}, xr + rows.first * D, x);
        }
    }
    // The products' scratch is sized by this input (13 MB of quantized activations for 4k
    // tokens of bart-base int8); decoding needs a fraction of it, so it is not kept alive.
    be.release_scratch();
    return result;
}

}  // namespace

EncoderBuffersKept::EncoderBuffersKept() { ++kept.scopes; }

EncoderBuffersKept::~EncoderBuffersKept() {
    if (--kept.scopes == 0) kept = KeptBuffers{};
}

const Tensor& EncodedRow::host_memory() const {
    if (!memory.defined() && fetch_memory) memory = fetch_memory();
    check(memory.defined(), "encoder output: the memory is not available on the host");
    return memory;
}

DecoderMemoryRows decoder_memory_rows(const AttentionOptions& attention, int G, int T) {
    if (G == 0 || attention.lsg.pass_global_tokens_to_decoder) return {0, G + T, false};
    return {G, T, attention.lsg.pool_with_global};
}

EncoderRowInput prepare_encoder_row(const Model& model, const AttentionOptions& attention,
                                    const std::vector<std::vector<int64_t>>& ids,
                                    const std::vector<std::vector<int64_t>>& masks, size_t r) {
    const ModelConfig& cfg = model.config();
    const int T = int(ids[r].size());
    check(T > 0, "encoder: input row " + std::to_string(r) + " is empty");
    std::vector<int64_t> mask = masks.empty() || masks[r].empty() ? std::vector<int64_t>(size_t(T), 1) : masks[r];
    check(int(mask.size()) == T, "encoder: attention mask length differs from the input length");
    // mask_first_token: the reference edits the caller's mask in place, so the first
    // token is masked in the encoder and in the decoder's cross-attention alike.
    if (cfg.is_lsg && attention.lsg.mask_first_token) mask[0] = 0;

    const RowPlan p = plan_row(cfg, attention, T);
    if (p.padded > model.max_input_tokens())
        throw Error("an input of " + std::to_string(p.padded) + " tokens is longer than the model's " +
                    std::to_string(model.max_input_tokens()) + " positions");
    EncoderRowInput in;
    in.length = T;
    in.global = p.global;
    in.padded = p.padded;
    in.sparse = p.sparse;
    in.ids = ids[r];
    in.ids.resize(size_t(p.padded), cfg.pad_token_id);
    in.key_mask.assign(size_t(p.global + p.padded), 0.f);
    for (int i = 0; i < p.padded; ++i) in.key_mask[size_t(p.global + i)] = (i < T && mask[size_t(i)]) ? 0.f : kLowest;
    return in;
}

EncoderOutput run_encoder(const Model& model, Backend& be, const std::vector<std::vector<int64_t>>& ids,
                          const std::vector<std::vector<int64_t>>& masks, const AttentionOptions& attention,
                          const RunCallbacks& cb, bool keep_layer_states) {
    return run_on_device_or_cpu(
        be, cb, true,
        [&](ModelRunner& runner) {
            if (!runner.supports(attention))
                return run_encoder_on_cpu(model, be, ids, masks, attention, cb, keep_layer_states);
            return runner.encode(model, ids, masks, attention, cb, keep_layer_states);
        },
        [&] { return run_encoder_on_cpu(model, be, ids, masks, attention, cb, keep_layer_states); });
}

}  // namespace precis
