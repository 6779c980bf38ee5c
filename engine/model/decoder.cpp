#include "engine/model/decoder.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "engine/backend/backend.h"
#include "engine/model/attend.h"
#include "engine/model/cross_memory.h"
#include "engine/model/model.h"
#include "engine/core/worker_team.h"

namespace precis {

DecoderState::DecoderState(const Model& model, Backend& backend, const EncoderOutput& encoded, int rows_per_item,
                           int max_length, int max_new)
    : model_(model),
      be_(backend),
      rows_(int(encoded.rows.size()) * rows_per_item),
      rows_per_item_(rows_per_item),
      max_length_(max_length),
      max_new_(max_new),
      encoded_(encoded) {
    const ModelConfig& cfg = model.config();
    const BartWeights& w = model.weights();
    D_ = cfg.d_model;
    F_ = cfg.decoder_ffn_dim;
    heads_ = cfg.decoder_heads;
    hd_ = cfg.decoder_head_dim();
    check(max_length <= int(w.decoder_positions.dim(0)) - 2,
          "generation of " + std::to_string(max_length) + " tokens exceeds the decoder's " +
              std::to_string(w.decoder_positions.dim(0) - 2) + " positions");
    const int L = cfg.decoder_layers;
    for (int l = 0; l < L; ++l) {
        self_k_.push_back(Tensor::empty(DType::F32, {rows_, max_length, D_}));
        self_v_.push_back(Tensor::empty(DType::F32, {rows_, max_length, D_}));
    }
    // Cross-attention keys/values: once per batch item, per layer.
    for (const EncodedRow& row : encoded.rows) cross_mask_.push_back(row.memory_mask.data());
    Tensor part;  // one part of a projection in float32, reused
    for (int l = 0; l < L; ++l)
        for (const EncodedRow& row : encoded.rows)
            cross_.push_back(project_cross_memory(be_, w.decoder_layers[l].cross_attn, row.host_memory().data<float>(),
                                                  row.memory_rows(), heads_, hd_, w.compute_type, part));
    const int64_t n = int64_t(rows_) * max_new;
    x_ = Tensor::empty(DType::F32, {n, D_});
    q_ = Tensor::empty(DType::F32, {n, D_});
    ctx_ = Tensor::empty(DType::F32, {n, D_});
    tmp_ = Tensor::empty(DType::F32, {n, D_});
    hidden_ = Tensor::empty(DType::F32, {n, F_});
    scratch_.resize(size_t(omp_get_max_threads()));
}

void DecoderState::forward(const int64_t* tokens, int new_len, std::vector<Tensor>* layer_states) {
    check(new_len >= 1 && new_len <= max_new_, "decoder: bad number of new tokens");
    check(length_ + new_len <= max_length_, "decoder: the sequence outgrew its cache");
    const ModelConfig& cfg = model_.config();
    const BartWeights& w = model_.weights();
    const int64_t n = int64_t(rows_) * new_len, D = D_;
    const int threads = omp_get_max_threads();  // the attention's threads, one scratch each
    if (scratch_.size() < size_t(threads)) scratch_.resize(size_t(threads));
    float* x = x_.data<float>();
    const float scale = cfg.scale_embedding ? std::sqrt(float(D)) : 1.f;
    for (int r = 0; r < rows_; ++r)
        be_.embed(tokens + int64_t(r) * new_len, new_len, w.token_embeddings(), cfg.vocab_size, D, scale,
                  w.decoder_positions.data<float>(), 2 + length_, x + int64_t(r) * new_len * D);
    be_.add_layer_norm(x, nullptr, n, D, w.decoder_embedding_norm.g(), w.decoder_embedding_norm.b(), 1e-5f);
    auto snapshot = [&] {
        if (layer_states) {
            Tensor t = Tensor::empty(DType::F32, {rows_, new_len, D});
            std::memcpy(t.data<float>(), x, size_t(n * D) * sizeof(float));
            layer_states->push_back(std::move(t));
        }
    };
    snapshot();
    const float qscale = 1.f / std::sqrt(float(hd_));
    const int64_t total = length_ + new_len;
    for (int l = 0; l < cfg.decoder_layers; ++l) {
        const DecoderLayerWeights& lw = w.decoder_layers[l];
        // Causal self-attention over the cache plus the new positions.
        be_.linear(x, n, D, lw.self_attn.q.ref(), lw.self_attn.q.b(), D, q_.data<float>());
        float* kc = self_k_[l].data<float>();
        float* vc = self_v_[l].data<float>();
        be_.linear(x, n, D, lw.self_attn.k.ref(), lw.self_attn.k.b(), D, tmp_.data<float>());
        for (int r = 0; r < rows_; ++r)
            std::memcpy(kc + (int64_t(r) * max_length_ + length_) * D, tmp_.data<float>() + int64_t(r) * new_len * D,
                        size_t(new_len * D) * sizeof(float));
        be_.linear(x, n, D, lw.self_attn.v.ref(), lw.self_attn.v.b(), D, tmp_.data<float>());
        for (int r = 0; r < rows_; ++r)
            std::memcpy(vc + (int64_t(r) * max_length_ + length_) * D, tmp_.data<float>() + int64_t(r) * new_len * D,
                        size_t(new_len * D) * sizeof(float));
        // One (row, head) pair per item.
        for_each_on_team(threads, rows_ * int(heads_), [&](int item, int t) {
            const int r = item / int(heads_), h = item % int(heads_);
            AttendArgs a;
            a.q = q_.data<float>() + int64_t(r) * new_len * D + h * hd_;
            a.ldq = D;
            a.k = kc + int64_t(r) * max_length_ * D + h * hd_;
            a.ldk = D;
            a.v = vc + int64_t(r) * max_length_ * D + h * hd_;
            a.ldv = D;
            a.nq = new_len;
            a.nk = total;
            a.hd = hd_;
            a.scale = qscale;
            a.causal_offset = length_;
            a.out = ctx_.data<float>() + int64_t(r) * new_len * D + h * hd_;
            a.ldo = D;
            attend(a, scratch_[size_t(t)]);
        });
        be_.linear(ctx_.data<float>(), n, D, lw.self_attn.out.ref(), lw.self_attn.out.b(), D, tmp_.data<float>());
        be_.add_layer_norm(x, tmp_.data<float>(), n, D, lw.self_attn_norm.g(), lw.self_attn_norm.b(), 1e-5f);

        // Cross-attention: the beams of one document share its keys and values, so all
        // of its query rows go through one call that reads them once.
        be_.linear(x, n, D, lw.cross_attn.q.ref(), lw.cross_attn.q.b(), D, q_.data<float>());
        const int items = int(encoded_.rows.size());
        const int64_t group = int64_t(rows_per_item_) * new_len;
        // With a sink the heads run serially so their weights can be summed without races.
        for_each_on_team(cross_sink_ ? 1 : threads, items * int(heads_), [&](int pair, int t) {
            const int item = pair / int(heads_), h = pair % int(heads_);
            const int64_t first = int64_t(item) * group;
            const CrossMemory& memory = cross_[size_t(l) * size_t(items) + size_t(item)];
            AttendArgs a;
            a.q = q_.data<float>() + first * D + h * hd_;
            a.ldq = D;
            memory.point_at_head(a, h);
            a.nq = group;
            a.nk = memory.S;
            a.hd = hd_;
            a.scale = qscale;
            a.key_mask = cross_mask_[size_t(item)];
            a.weight_sink = cross_sink_;
            a.out = ctx_.data<float>() + first * D + h * hd_;
            a.ldo = D;
            attend(a, scratch_[size_t(t)]);
        });
        be_.linear(ctx_.data<float>(), n, D, lw.cross_attn.out.ref(), lw.cross_attn.out.b(), D, tmp_.data<float>());
        be_.add_layer_norm(x, tmp_.data<float>(), n, D, lw.cross_attn_norm.g(), lw.cross_attn_norm.b(), 1e-5f);

        be_.linear_gelu(x, n, D, lw.fc1.ref(), lw.fc1.b(), F_, hidden_.data<float>());
        be_.linear(hidden_.data<float>(), n, F_, lw.fc2.ref(), lw.fc2.b(), D, tmp_.data<float>());
        be_.add_layer_norm(x, tmp_.data<float>(), n, D, lw.final_norm.g(), lw.final_norm.b(), 1e-5f);
        snapshot();
    }
    length_ += new_len;
}

void DecoderState::logits(float* out, int new_len) const {
    const ModelConfig& cfg = model_.config();
    const BartWeights& w = model_.weights();
    const int64_t V = cfg.vocab_size, n = int64_t(rows_) * new_len;
    const WeightRef head = w.lm_head.ref();
    be_.linear(x_.data<float>(), n, D_, head, w.final_logits_bias.data<float>(), V, out);
}

void DecoderState::set_cross_attention_sink(float* sink) {
    check(sink == nullptr || rows_ == 1, "decoder: cross-attention can only be recorded for a single row");
    cross_sink_ = sink;
}

void DecoderState::reorder(const std::vector<int>& parents) {
    check(int(parents.size()) == rows_, "decoder: reorder needs one parent per row");
    for (int p : parents) check(p >= 0 && p < rows_, "decoder: reorder names a row that does not exist");
    if (length_ == 0) return;
    // Only rows that continue another row's history are written; a parent that is itself
    // written is saved first, once. Rows that keep their own history cost nothing.
    // (Copying every row out and back moved 38 MB per step for four bart-base rows at 128
    // tokens, on one thread: close to half of the 89 MB of int8 weights the step reads.)
    std::vector<int> slot(size_t(rows_), -1);  // where a written parent is saved
    int saved = 0;
    for (int r = 0; r < rows_; ++r) {
        const int p = parents[size_t(r)];
        if (p != r && parents[size_t(p)] != p && slot[size_t(p)] < 0) slot[size_t(p)] = saved++;
    }
    const size_t row_floats = size_t(length_) * size_t(D_);
    if (saved > 0 && !reorder_buf_.defined()) reorder_buf_ = Tensor::empty(DType::F32, {rows_, max_length_, D_});
    float* buf = reorder_buf_.defined() ? reorder_buf_.data<float>() : nullptr;
    const int caches = int(self_k_.size()) * 2;
    // Threads take whole caches (a layer's keys or values), each saving its parents in its
    // own part of the buffer (rows_ rows of max_length_): as many threads as parts fit.
    const int threads = std::max(1, std::min({caches, rows_ / std::max(1, saved), omp_get_max_threads()}));
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int c = 0; c < caches; ++c) {
        float* base = (c % 2 ? self_v_ : self_k_)[size_t(c / 2)].data<float>();
        float* own = buf ? buf + size_t(omp_get_thread_num()) * size_t(saved) * size_t(max_length_) * size_t(D_)
                         : nullptr;
        auto row = [&](int r) { return base + size_t(r) * size_t(max_length_) * size_t(D_); };
        for (int p = 0; p < rows_; ++p)
            if (slot[size_t(p)] >= 0)
                std::memcpy(own + size_t(slot[size_t(p)]) * row_floats, row(p), row_floats * sizeof(float));
        for (int r = 0; r < rows_; ++r) {
            const int p = parents[size_t(r)];
            if (p == r) continue;
            const float* from = slot[size_t(p)] >= 0 ? own + size_t(slot[size_t(p)]) * row_floats : row(p);
            std::memcpy(row(r), from, row_floats * sizeof(float));
        }
    }
}

}  // namespace precis
