#include "engine/model/encoder_self_attention.h"

#include "engine/attention/attention.h"

namespace precis {

EncoderSelfAttention::EncoderSelfAttention(const AttentionOptions& options, int heads, int head_dim,
                                           AttentionProducts products)
    : options_(options), heads_(heads), head_dim_(head_dim), products_(products), lsh_(options.lsh) {
    if (options_.kind == EncoderAttention::Lsg && options_.lsg.sparsity_type == SparsityType::Lsh) {
        if (!lsh_) lsh_ = std::make_shared<LshProjections>(LshProjections::seeded(options_.lsh_seed));
        // A fresh draw per encoder forward, as the reference does (injected R stay fixed).
        lsh_->next_call();
    }
}

EncoderSelfAttention::~EncoderSelfAttention() = default;

void EncoderSelfAttention::run(int layer, int batch_row, const float* q, const float* k, const float* v, int rows, int num_global,
                               const float* key_mask, bool sparse_path, float* out) {
    AttentionInput in{q, k, v, rows, heads_, head_dim_, products_};
    AttentionRecorder* rec = nullptr;
    if (const auto& c = options_.capture; c && c->recorder && c->layer == layer && c->batch_row == batch_row) {
        rec = c->recorder.get();
        rec->head = c->head;
    }
    switch (options_.kind) {
        case EncoderAttention::Full:
            full_attention(in, key_mask, out, rec);
            return;
        case EncoderAttention::Fovea:
            fovea_attention(in, key_mask, num_global, options_.fovea, out, rec);
            return;
        case EncoderAttention::Lsg:
            if (!sparse_path) {
                full_attention(in, key_mask, out, rec);
                return;
            }
            lsg_attention(in, key_mask + num_global, num_global, options_.lsg, layer, lsh_.get(), out, rec);
            return;
    }
}

}  // namespace precis
