#include "engine/model/decoder.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "engine/backend/backend.h"
#include "engine/core/checked.h"
#include "engine/core/populate.h"
#include "engine/core/worker_team.h"
#include "engine/model/attend.h"
#include "engine/model/cross_memory.h"
#include "engine/model/decoder_step_inputs.h"
#include "engine/model/model.h"
#include "engine/model/reorder_plan.h"

namespace precis {

DecoderState::DecoderState(const Model& model, Backend& backend, int capacity_rows, int max_length)
    : model_(model), be_(backend), capacity_(capacity_rows), max_length_(max_length), max_new_(1) {
    allocate(capacity_rows, 1);
}

DecoderState::DecoderState(const Model& model, Backend& backend, const EncoderOutput& encoded, int rows_per_item,
                           int max_length, int max_new)
    : model_(model),
      be_(backend),
      capacity_(int(encoded.rows.size()) * rows_per_item),
      max_length_(max_length),
      max_new_(max_new) {
    allocate(capacity_, max_new);
    for (const EncodedRow& row : encoded.rows) join(row, rows_per_item);
}

void DecoderState::allocate(int capacity_rows, int max_new) {
    const ModelConfig& cfg = model_.config();
    const BartWeights& w = model_.weights();
    D_ = cfg.d_model;
    F_ = cfg.decoder_ffn_dim;
    heads_ = cfg.decoder_heads;
    hd_ = cfg.decoder_head_dim();
    check(capacity_rows >= 1, "decoder: a decoder needs room for at least one row");
    check(max_length_ <= int(w.decoder_positions.dim(0)) - 2,
          "generation of " + std::to_string(max_length_) + " tokens exceeds the decoder's " +
              std::to_string(w.decoder_positions.dim(0) - 2) + " positions");
    require_memory(bytes_for_rows(model_, capacity_rows, max_length_), "decoding " + std::to_string(capacity_rows) +
                                                                          " rows of " + std::to_string(max_length_) +
                                                                          " tokens");
    for (int l = 0; l < cfg.decoder_layers; ++l) {
        self_k_.push_back(Tensor::empty(DType::F32, {capacity_rows, max_length_, D_}));
        self_v_.push_back(Tensor::empty(DType::F32, {capacity_rows, max_length_, D_}));
    }
    length_.assign(size_t(capacity_rows), 0);
    populated_.assign(size_t(capacity_rows), 0);
    free_.resize(size_t(capacity_rows));
    // Handed out from the back: the first rows go first, so a static batch lies in order.
    std::iota(free_.rbegin(), free_.rend(), 0);
    const int64_t n = int64_t(capacity_rows) * max_new;
    x_ = Tensor::empty(DType::F32, {n, D_});
    q_ = Tensor::empty(DType::F32, {n, D_});
    ctx_ = Tensor::empty(DType::F32, {n, D_});
    tmp_ = Tensor::empty(DType::F32, {n, D_});
    hidden_ = Tensor::empty(DType::F32, {n, F_});
    scratch_.resize(size_t(omp_get_max_threads()));
}

uint64_t DecoderState::bytes_for_rows(const Model& model, int rows, int max_length) {
    const ModelConfig& cfg = model.config();
    const uint64_t D = uint64_t(cfg.d_model), R = uint64_t(std::max(rows, 0));
    const std::string what = "the decoder's caches";
    // Keys and values per layer, plus the reorder buffer of one layer's size.
    const uint64_t cache = checked_mul(checked_mul(R, uint64_t(max_length), what), D * 4, what);
    const uint64_t caches = checked_mul(cache, uint64_t(2 * cfg.decoder_layers + 1), what);
    // x, q, ctx, tmp, the FFN's hidden row and the row's logits.
    const uint64_t step = R * (4 * D + uint64_t(cfg.decoder_ffn_dim) + uint64_t(cfg.vocab_size)) * 4;
    return caches + step;
}

uint64_t DecoderState::bytes_for_document(const Model& model, int64_t memory_rows) {
    const ModelConfig& cfg = model.config();
    return uint64_t(cfg.decoder_layers) *
           CrossMemory::bytes_for(memory_rows, cfg.decoder_heads, cfg.decoder_head_dim(), model.compute_type());
}

uint64_t DecoderState::bytes_per_memory_row(const Model& model) {
    const ModelConfig& cfg = model.config();
    return uint64_t(cfg.decoder_layers) *
           CrossMemory::bytes_per_position(cfg.decoder_heads, cfg.decoder_head_dim(), model.compute_type());
}

int DecoderState::join(const EncodedRow& document, int rows) {
    check(rows >= 1, "decoder: a document needs at least one row");
    check(rows <= free_rows(), "decoder: no room for " + std::to_string(rows) + " more rows (" +
                                   std::to_string(free_rows()) + " free)");
    const BartWeights& w = model_.weights();
    Item item;
    item.present = true;
    item.mask = document.memory_mask;
    Tensor part;  // one part of a projection in float32, reused
    const float* memory = document.host_memory().data<float>();
    std::vector<const AttentionWeights*> layers;
    for (const DecoderLayerWeights& layer : w.decoder_layers) layers.push_back(&layer.cross_attn);
    item.cross_buffer = take_spare_cross(document.memory_rows());
    item.cross = project_cross_memories(be_, layers, memory, document.memory_rows(), heads_, hd_, w.compute_type,
                                        part, &item.cross_buffer);
    for (int r = 0; r < rows; ++r) {
        item.cache_rows.push_back(free_.back());
        free_.pop_back();
        length_[size_t(item.cache_rows.back())] = 0;
    }
    // A slot a document left is reused, so ids stay small over a long run.
    int id = 0;
    while (id < int(items_.size()) && items_[size_t(id)].present) ++id;
    if (id == int(items_.size())) items_.emplace_back();
    items_[size_t(id)] = std::move(item);
    order_.push_back(id);
    lay_out();
    return id;
}

void DecoderState::leave(int item) {
    check(item >= 0 && item < int(items_.size()) && items_[size_t(item)].present,
          "decoder: leave() names a document that is not there");
    Item& it = items_[size_t(item)];
    for (int r : it.cache_rows) free_.push_back(r);
    std::shared_ptr<Tensor> buffer = std::move(it.cross_buffer);
    it = Item{};  // drops the views into the buffer
    if (buffer && buffer.use_count() == 1) spare_cross_.push_back(std::move(buffer));
    order_.erase(std::find(order_.begin(), order_.end(), item));
    lay_out();
}

std::shared_ptr<Tensor> DecoderState::take_spare_cross(int64_t memory_rows) {
    const size_t need = cross_memories_bytes(memory_rows, heads_, hd_, model_.weights().compute_type,
                                             model_.weights().decoder_layers.size());
    auto best = spare_cross_.end();
    for (auto it = spare_cross_.begin(); it != spare_cross_.end(); ++it)
        if ((*it)->nbytes() >= need && (best == spare_cross_.end() || (*it)->nbytes() < (*best)->nbytes())) best = it;
    if (best == spare_cross_.end()) {
        // None holds it: the document gets fresh memory, and the spares go first rather than
        // being held beside it (the order is not longest first, or the spares are few).
        spare_cross_.clear();
        return nullptr;
    }
    std::shared_ptr<Tensor> buffer = std::move(*best);
    spare_cross_.erase(best);
    ++cross_buffers_reused_;
    return buffer;
}

void DecoderState::lay_out() {
    active_.clear();
    row_item_.clear();
    groups_.clear();
    for (int id : order_) {
        const Item& it = items_[size_t(id)];
        groups_.push_back({id, int(active_.size()), int(it.cache_rows.size())});
        for (int r : it.cache_rows) {
            active_.push_back(r);
            row_item_.push_back(id);
        }
    }
}

int DecoderState::length() const { return active_.empty() ? 0 : length_[size_t(active_[0])]; }

int DecoderState::first_row_of(int item) const {
    for (const Group& g : groups_)
        if (g.item == item) return g.first;
    throw Error("decoder: no such document");
}

// A cache row is written one position a step, so its pages would fault in one by one: a
// run of positions is made resident ahead in one call instead (engine/core/populate.h),
// never more than kPopulatedAhead positions past what the row has reached, so a row that
// stops early holds little more than it wrote. The 32-document beam-4 batch's caches
// (311 MB) took 76k faults.
void DecoderState::populate_cache_rows(int new_len) {
    constexpr int kPopulatedAhead = 64;
    for (int c : active_) {
        const int need = length_[size_t(c)] + new_len;
        if (need <= populated_[size_t(c)]) continue;
        const int from = populated_[size_t(c)];
        const int to = std::min(max_length_, (need + kPopulatedAhead - 1) / kPopulatedAhead * kPopulatedAhead);
        const size_t offset = (size_t(c) * size_t(max_length_) + size_t(from)) * size_t(D_);
        const size_t bytes = size_t(to - from) * size_t(D_) * sizeof(float);
        for (size_t l = 0; l < self_k_.size(); ++l) {
            populate_for_writing(self_k_[l].data<float>() + offset, bytes);
            populate_for_writing(self_v_[l].data<float>() + offset, bytes);
        }
        populated_[size_t(c)] = to;
    }
}

void DecoderState::forward(const int64_t* tokens, int new_len, std::vector<Tensor>* layer_states) {
    const int rows = this->rows();
    check(rows >= 1, "decoder: no document to decode");
    check(new_len >= 1 && new_len <= max_new_, "decoder: bad number of new tokens");
    for (int c : active_) check(length_[size_t(c)] + new_len <= max_length_, "decoder: the sequence outgrew its cache");
    populate_cache_rows(new_len);
    const ModelConfig& cfg = model_.config();
    const BartWeights& w = model_.weights();
    const int64_t n = int64_t(rows) * new_len, D = D_;
    const int threads = omp_get_max_threads();  // the attention's threads, one scratch each
    if (scratch_.size() < size_t(threads)) scratch_.resize(size_t(threads));
    float* x = x_.data<float>();
    const float scale = cfg.scale_embedding ? std::sqrt(float(D)) : 1.f;
    for (int r = 0; r < rows; ++r)
        be_.embed(tokens + int64_t(r) * new_len, new_len, w.token_embeddings(), cfg.vocab_size, D, scale,
                  w.decoder_positions.data<float>(), kPositionOffset + row_length(r), x + int64_t(r) * new_len * D);
    be_.add_layer_norm(x, nullptr, n, D, w.decoder_embedding_norm.g(), w.decoder_embedding_norm.b(), 1e-5f);
    auto snapshot = [&] {
        if (layer_states) {
            Tensor t = Tensor::empty(DType::F32, {rows, new_len, D});
            std::memcpy(t.data<float>(), x, size_t(n * D) * sizeof(float));
            layer_states->push_back(std::move(t));
        }
    };
    snapshot();
    const float qscale = 1.f / std::sqrt(float(hd_));
    // A cache row's start and the row's length before this step.
    auto cache_row = [&](float* cache, int r) { return cache + int64_t(active_[size_t(r)]) * max_length_ * D; };
    for (int l = 0; l < cfg.decoder_layers; ++l) {
        const DecoderLayerWeights& lw = w.decoder_layers[l];
        // Causal self-attention over the cache plus the new positions.
        be_.linear(x, n, D, lw.self_attn.q.ref(), lw.self_attn.q.b(), D, q_.data<float>());
        float* kc = self_k_[l].data<float>();
        float* vc = self_v_[l].data<float>();
        be_.linear(x, n, D, lw.self_attn.k.ref(), lw.self_attn.k.b(), D, tmp_.data<float>());
        for (int r = 0; r < rows; ++r)
            std::memcpy(cache_row(kc, r) + int64_t(row_length(r)) * D, tmp_.data<float>() + int64_t(r) * new_len * D,
                        size_t(new_len * D) * sizeof(float));
        be_.linear(x, n, D, lw.self_attn.v.ref(), lw.self_attn.v.b(), D, tmp_.data<float>());
        for (int r = 0; r < rows; ++r)
            std::memcpy(cache_row(vc, r) + int64_t(row_length(r)) * D, tmp_.data<float>() + int64_t(r) * new_len * D,
                        size_t(new_len * D) * sizeof(float));
        // One (row, head) pair per item, the threads' shares by keys read (rows that joined
        // a continuous batch late have shorter caches).
        auto self_keys = [&](int item) { return int64_t(row_length(item / int(heads_)) + new_len); };
        for_each_weighted_on_team(threads, rows * int(heads_), self_keys, [&](int item, int t) {
            const int r = item / int(heads_), h = item % int(heads_);
            AttendArgs a;
            a.q = q_.data<float>() + int64_t(r) * new_len * D + h * hd_;
            a.ldq = D;
            a.k = cache_row(kc, r) + h * hd_;
            a.ldk = D;
            a.v = cache_row(vc, r) + h * hd_;
            a.ldv = D;
            a.nq = new_len;
            a.nk = row_length(r) + new_len;
            a.hd = hd_;
            a.scale = qscale;
            a.causal_offset = row_length(r);
            a.out = ctx_.data<float>() + int64_t(r) * new_len * D + h * hd_;
            a.ldo = D;
            attend(a, scratch_[size_t(t)]);
        });
        be_.linear(ctx_.data<float>(), n, D, lw.self_attn.out.ref(), lw.self_attn.out.b(), D, tmp_.data<float>());
        be_.add_layer_norm(x, tmp_.data<float>(), n, D, lw.self_attn_norm.g(), lw.self_attn_norm.b(), 1e-5f);

        // Cross-attention: the beams of one document share its keys and values, so all
        // of its query rows go through one call that reads them once.
        be_.linear(x, n, D, lw.cross_attn.q.ref(), lw.cross_attn.q.b(), D, q_.data<float>());
        const int groups = int(groups_.size());
        // Shared by cost: a document's memory rows, read once (about two queries' work),
        // times its queries. The batch's documents differ in length up to 8x.
        auto cross_cost = [&](int pair) {
            const Group& g = groups_[size_t(pair / int(heads_))];
            return items_[size_t(g.item)].cross[size_t(l)].S * (int64_t(g.count) * new_len + 2);
        };
        // With a sink the heads run serially so their weights can be summed without races.
        for_each_weighted_on_team(cross_sink_ ? 1 : threads, groups * int(heads_), cross_cost, [&](int pair, int t) {
            const Group& g = groups_[size_t(pair / int(heads_))];
            const int h = pair % int(heads_);
            const Item& it = items_[size_t(g.item)];
            const int64_t first = int64_t(g.first) * new_len;
            const CrossMemory& memory = it.cross[size_t(l)];
            AttendArgs a;
            a.q = q_.data<float>() + first * D + h * hd_;
            a.ldq = D;
            memory.point_at_head(a, h);
            a.nq = int64_t(g.count) * new_len;
            a.nk = memory.S;
            a.hd = hd_;
            a.scale = qscale;
            a.key_mask = it.mask.data();
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
    for (int c : active_) length_[size_t(c)] += new_len;
}

void DecoderState::logits(float* out, int new_len) const {
    const ModelConfig& cfg = model_.config();
    const BartWeights& w = model_.weights();
    const int64_t V = cfg.vocab_size, n = int64_t(rows()) * new_len;
    const WeightRef head = w.lm_head.ref();
    be_.linear(x_.data<float>(), n, D_, head, w.final_logits_bias.data<float>(), V, out);
}

void DecoderState::set_cross_attention_sink(float* sink) {
    check(sink == nullptr || rows() == 1, "decoder: cross-attention can only be recorded for a single row");
    cross_sink_ = sink;
}

void DecoderState::reorder(const std::vector<int>& parents) {
    const int rows = this->rows();
    check(int(parents.size()) == rows, "decoder: reorder needs one parent per row");
    for (int r = 0; r < rows; ++r) {
        const int p = parents[size_t(r)];
        check(p >= 0 && p < rows, "decoder: reorder names a row that does not exist");
        check(row_item_[size_t(p)] == row_item_[size_t(r)], "decoder: a row can only continue a row of its own document");
    }
    // Only rows that continue another row's history are written; a parent that is itself
    // written is saved first, once (engine/model/reorder_plan.h, the CUDA decoder's plan too).
    // Rows that keep their own history cost nothing. (Copying every row out and back moved
    // 38 MB per step for four bart-base rows at 128 tokens, on one thread: close to half of
    // the 89 MB of int8 weights the step reads.)
    const ReorderPlan plan = plan_reorder(parents);
    if (plan.writes() == 0) return;
    const int saved = plan.slots;
    int longest = 0;  // the rows of one document share a length; documents differ
    for (int r = 0; r < rows; ++r) longest = std::max(longest, row_length(r));
    if (longest == 0) return;
    if (saved > 0 && !reorder_buf_.defined()) reorder_buf_ = Tensor::empty(DType::F32, {capacity_, max_length_, D_});
    float* buf = reorder_buf_.defined() ? reorder_buf_.data<float>() : nullptr;
    const size_t stride = size_t(longest) * size_t(D_);  // a saved row's room in the buffer
    const int caches = int(self_k_.size()) * 2;
    // Parts of the worker team take whole caches (a layer's keys or values), each saving its
    // parents in its own part of the buffer (capacity rows of max_length): as many parts as
    // fit. The team, not an OpenMP region: its worker is awake between a step's jobs, where
    // OpenMP's passive thread had to be woken for every step's reorder and did a third of it.
    const size_t buffer_floats = size_t(capacity_) * size_t(max_length_) * size_t(D_);
    const int parts = saved > 0 ? int(buffer_floats / (size_t(saved) * stride)) : caches;
    const int threads = std::max(1, std::min({caches, parts, omp_get_max_threads()}));
    for_each_on_team(threads, caches, [&](int c, int t) {
        float* base = (c % 2 ? self_v_ : self_k_)[size_t(c / 2)].data<float>();
        float* own = buf ? buf + size_t(t) * size_t(saved) * stride : nullptr;
        auto row = [&](int r) { return base + size_t(active_[size_t(r)]) * size_t(max_length_) * size_t(D_); };
        auto floats = [&](int r) { return size_t(row_length(r)) * size_t(D_); };
        for (const ReorderMove& m : plan.moves) {
            const float* from = m.src_slot >= 0 ? own + size_t(m.src_slot) * stride : row(m.src_row);
            float* to = m.dst_slot >= 0 ? own + size_t(m.dst_slot) * stride : row(m.dst_row);
            std::memcpy(to, from, floats(m.src_row) * sizeof(float));  // the saves come first
        }
    });
    // Every row of a document has the same length, so lengths need no copying.
}

}  // namespace precis
