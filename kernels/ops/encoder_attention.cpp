// DeviceSelfAttention (encoder_attention.h): the per-input plan and scratch, and the per-layer
// composition of the sparse-key / tree-node builders with plan_attention.
#include "kernels/ops/encoder_attention.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "engine/attention/attention.h"
#include "engine/attention/attention_pattern.h"
#include "engine/attention/attention_plan.h"
#include "kernels/ops/sparse_keys.h"
#include "kernels/span_timer.h"

namespace precis::cuda {

namespace {
constexpr int kFullTile = 128;  // query rows per CTA of full attention
}

bool draws_lsh_projections(const EncoderAttentionSettings& a) {
    const LsgSettings& s = a.lsg;
    return a.kind == ::precis::EncoderAttention::Lsg && s.sparse_enabled() && s.sparsity_type == SparsityType::Lsh &&
           s.sparsity_factor != 1 && s.sparsity_factor != s.sparse_block_size;
}

std::vector<float> lsh_projections_of_layer(LshProjections& lsh, const LsgSettings& s, int layer, int heads, int hd) {
    const int bs = std::min(s.block_size, s.sparse_block_size);
    const int f = s.sparsity_factor;
    std::vector<float> all;
    for (int r = 0; r <= s.lsh_num_pre_rounds; ++r) {
        const int buckets = r < s.lsh_num_pre_rounds ? bs : bs / f;
        std::vector<float> round = lsh.get(layer, r, heads, hd, buckets / 2);
        all.insert(all.end(), round.begin(), round.end());
    }
    return all;
}

void DeviceSelfAttention::prepare(const EncoderAttentionSettings& s, int G, int T, int heads, int head_dim, Precision p,
                               cudaStream_t stream) {
    check(G >= 0 && T > 0 && heads > 0 && head_dim > 0 && head_dim <= 128,
          "EncoderAttention: need G >= 0, T > 0, heads > 0 and head_dim in [1, 128]");
    s_ = s;
    G_ = G, T_ = T, heads_ = heads, hd_ = head_dim, p_ = p, stream_ = stream;
    prepared_ = false;
    const int D = heads * head_dim;
    AttentionPlan plan;
    if (s.kind == ::precis::EncoderAttention::Lsg) {
        check_lsg_attention_settings(s.lsg, T);
        mode_ = T > 2 * s.lsg.block_size ? Mode::LsgSparse : Mode::Full;
    } else {
        mode_ = s.kind == ::precis::EncoderAttention::Fovea ? Mode::Fovea : Mode::Full;
    }
    if (mode_ == Mode::Full) {
        plan = full_attention_plan(G + T, kFullTile);
    } else if (mode_ == Mode::LsgSparse) {
        plan = lsg_attention_plan(G, T, s.lsg);
        if (s.lsg.sparse_enabled()) {
            const size_t n = size_t(heads) * (T / s.lsg.sparsity_factor);
            k2_.reserve(n * head_dim * sizeof(float));  // float32: see SparseKeysArgs
            v2_.reserve(n * head_dim * sizeof(float));
            mask2_.reserve(n * sizeof(float));
        }
    } else {
        plan = fovea_attention_plan(G, T, s.fovea);
        const int NB = (T + s.fovea.block_size - 1) / s.fovea.block_size;
        levels_ = fovea_top_level(NB, s.fovea) + 1;
        int nodes = 0;
        for (int q = 0; q < levels_; ++q) nodes += NB - (1 << q) + 1;
        node_rows_ = nodes * s.fovea.block_size;
        k2_.reserve(size_t(node_rows_) * D * sizeof(float));  // float32: see build_fovea_nodes
        v2_.reserve(size_t(node_rows_) * D * sizeof(float));
        mask2_.reserve(size_t(node_rows_) * sizeof(float));
    }
    std::vector<int32_t> global_offsets;  // read by its copy until plan_.upload's sync below
    if (mode_ != Mode::Full && G > 0) {
        // The G global queries see all G+T keys: as plan blocks, one CTA per head would read
        // every key alone while the token blocks finished long before. MemoryAttention
        // splits those keys over the whole GPU instead, so their blocks leave the plan.
        std::vector<PlanBlock> token_blocks;
        for (const PlanBlock& b : plan.blocks)
            if (b.query_begin >= G) token_blocks.push_back(b);
        plan.blocks = std::move(token_blocks);
        global_offsets = {0, G + T};
        global_offsets_ = upload(global_offsets, stream);
    }
    plan_.upload(plan, stream);
    host_plan_ = std::move(plan);
    prepared_ = true;
}

void DeviceSelfAttention::run(const void* q, const void* k, const void* v, const float* key_mask, const float* lsh_r,
                           void* out) {
    check(prepared_, "DeviceSelfAttention::run: prepare() first");
    check(q && k && v && out, "DeviceSelfAttention::run: q, k, v and out must not be null");
    const int D = heads_ * hd_, rows = G_ + T_;
    const float scale = 1.0f / std::sqrt(float(hd_));
    KeySource src[kMaxKeySources];
    src[0] = {k, v, D, hd_, key_mask, 0, rows};  // token rows, one mask for every head
    int nsrc = 1;
    const size_t es = bytes_of(p_);
    if (mode_ == Mode::LsgSparse && s_.lsg.sparse_enabled()) {
        check(key_mask != nullptr, "DeviceSelfAttention::run: LSG needs the key mask");
        SparseKeysArgs a;
        a.p = p_;
        a.type = s_.lsg.sparsity_type;
        a.q = q, a.k = k, a.v = v;
        a.token_mask = key_mask + G_;
        a.G = G_, a.T = T_, a.heads = heads_, a.head_dim = hd_;
        a.block_size = s_.lsg.block_size, a.sparse_block_size = s_.lsg.sparse_block_size;
        a.factor = s_.lsg.sparsity_factor, a.lsh_pre_rounds = s_.lsg.lsh_num_pre_rounds;
        a.lsh_r = lsh_r;
        a.sparse_k = k2_.get(), a.sparse_v = v2_.get(), a.sparse_mask = mask2_.as<float>();
        TimedSpan t(spans_.sparse_keys, stream_);
        build_sparse_keys(a, stream_);
        const int len = T_ / s_.lsg.sparsity_factor;
        const bool f32 =
            p_ == Precision::F32 || !sparse_keys_copy_tokens(a.type, a.factor, a.sparse_block_size);
        src[1] = {k2_.get(), v2_.get(), hd_, int64_t(len) * hd_, mask2_.as<float>(), len, len, f32};
        nsrc = 2;
    } else if (mode_ == Mode::Fovea) {
        const char* kt = static_cast<const char*>(k) + size_t(G_) * D * es;
        const char* vt = static_cast<const char*>(v) + size_t(G_) * D * es;
        TimedSpan t(spans_.sparse_keys, stream_);
        build_fovea_nodes(p_, kt, vt, key_mask ? key_mask + G_ : nullptr, T_, heads_, hd_, s_.fovea.block_size,
                          levels_, k2_.as<float>(), v2_.as<float>(), mask2_.as<float>(), stream_);
        src[1] = {};  // no sparse keys in Fovea
        src[2] = {k2_.get(), v2_.get(), D, hd_, mask2_.as<float>(), 0, node_rows_, true};
        nsrc = 3;
    }
    {
        TimedSpan t(spans_.token_blocks, stream_);
        plan_attention(p_, q, D, src, nsrc, plan_, heads_, hd_, scale, out, D, stream_);
    }
    if (mode_ != Mode::Full && G_ > 0) {
        TimedSpan t(spans_.global_rows, stream_);
        MemoryAttentionArgs a;
        a.p = p_;
        a.q = q, a.q_stride = D, a.items = 1, a.group = G_;
        a.offsets = global_offsets_.as<int32_t>(), a.max_keys = rows;
        a.k = k, a.v = v, a.kv_stride = D, a.mask = key_mask;
        a.heads = heads_, a.head_dim = hd_, a.scale = scale, a.out = out, a.out_stride = D;
        global_rows_.run(a, stream_);
    }
}

}  // namespace precis::cuda
