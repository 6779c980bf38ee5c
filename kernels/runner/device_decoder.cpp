#include "kernels/runner/device_decoder.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

#include "engine/model/decoder_step_inputs.h"
#include "engine/model/model.h"
#include "kernels/ops/elementwise.h"
#include "kernels/ops/gemm.h"
#include "kernels/runner/device_memory.h"
#include "kernels/runner/device_model.h"

namespace precis::cuda {

namespace {

int64_t memory_rows_of(const std::vector<const DeviceMemory*>& memories) {
    int64_t rows = 0;
    for (const DeviceMemory* m : memories) rows += m->rows;
    return rows;
}

}  // namespace

DeviceDecoder::DeviceDecoder(const Model& model, const DeviceModel& weights, Gemm& gemm, cudaStream_t stream,
                             int slots, int width, int max_length, int64_t pool_rows, int max_new)
    : model_(model),
      w_(weights),
      gemm_(gemm),
      stream_(stream),
      p_(weights.precision()),
      slots_(slots, width),
      max_length_(max_length),
      max_new_(max_new) {
    const ModelConfig& cfg = model.config();
    D_ = cfg.d_model;
    F_ = cfg.decoder_ffn_dim;
    V_ = cfg.vocab_size;
    heads_ = int(cfg.decoder_heads);
    hd_ = int(cfg.decoder_head_dim());
    check(max_new >= 1, "decoder: nothing to decode");
    check(max_length <= int(model.weights().decoder_positions.dim(0)) - 2,
          "generation of " + std::to_string(max_length) + " tokens exceeds the decoder's " +
              std::to_string(model.weights().decoder_positions.dim(0) - 2) + " positions");
    const int rows = slots_.rows();
    const size_t el = bytes_of(p_);
    const int L = cfg.decoder_layers;
    for (int l = 0; l < L; ++l) {
        self_k_.emplace_back(size_t(rows) * max_length * D_ * el);
        self_v_.emplace_back(size_t(rows) * max_length * D_ * el);
    }
    grow_pool(std::max<int64_t>(pool_rows, 1));
    key_ranges_ = DeviceBuffer(2 * size_t(slots) * sizeof(int32_t));
    host_key_ranges_ = PinnedBuffer(2 * size_t(slots) * sizeof(int32_t));
    upload_key_ranges();
    const size_t n = size_t(rows) * max_new;
    ids_ = DeviceBuffer((n + size_t(rows)) * sizeof(int32_t));  // the ids, then the lengths (one copy)
    host_ids_ = PinnedBuffer((n + size_t(rows)) * sizeof(int32_t));
    const char* env = std::getenv("PRECIS_CUDA_GRAPHS");
    graphs_ = !(env && std::string(env) == "0");
    x_ = DeviceBuffer(n * D_ * el);
    q_ = DeviceBuffer(n * D_ * el);
    ctx_ = DeviceBuffer(n * D_ * el);
    tmp_ = DeviceBuffer(n * D_ * el);
    hidden_ = DeviceBuffer(n * F_ * el);
    logits_ = DeviceBuffer(n * V_ * sizeof(float));
}

DeviceDecoder::DeviceDecoder(const Model& model, const DeviceModel& weights, Gemm& gemm, cudaStream_t stream,
                             const std::vector<const DeviceMemory*>& memories, int rows_per_item, int max_length,
                             int max_new)
    : DeviceDecoder(model, weights, gemm, stream, std::max<int>(1, int(memories.size())), rows_per_item, max_length,
                    memory_rows_of(memories), max_new) {
    check(!memories.empty(), "decoder: nothing to decode");
    for (const DeviceMemory* m : memories) join(*m);  // slot i: a fresh decoder fills its slots in order
}

DeviceDecoder::~DeviceDecoder() {
    if (step_exec_) cudaGraphExecDestroy(step_exec_);
    if (key_ranges_read_) cudaEventDestroy(key_ranges_read_);
}

// Every layer's keys and values for `rows` pool rows, the rows held so far kept.
void DeviceDecoder::grow_pool(int64_t rows) {
    if (rows <= pool_capacity_) return;
    // Half as much again: a pool that grows at all (documents not longest first) grows rarely.
    const int64_t capacity = std::max(rows, pool_capacity_ + pool_capacity_ / 2);
    const size_t el = bytes_of(p_), row_bytes = size_t(D_) * el, kept = size_t(pool_capacity_);
    auto grown = [&](const void* old, size_t bytes_per_row) {
        DeviceBuffer b(size_t(capacity) * bytes_per_row);
        if (kept)
            PRECIS_CUDA_CHECK(cudaMemcpyAsync(b.get(), old, kept * bytes_per_row, cudaMemcpyDeviceToDevice, stream_));
        return b;
    };
    const int L = model_.config().decoder_layers;
    std::vector<DeviceBuffer> k, v;
    for (int l = 0; l < L; ++l) {
        k.push_back(grown(kept ? cross_k_[size_t(l)].get() : nullptr, row_bytes));
        v.push_back(grown(kept ? cross_v_[size_t(l)].get() : nullptr, row_bytes));
    }
    DeviceBuffer mask = grown(cross_mask_.get(), sizeof(float));
    // The old buffers are freed below: wait until the copies have read them.
    PRECIS_CUDA_CHECK(cudaStreamSynchronize(stream_));
    cross_k_ = std::move(k);
    cross_v_ = std::move(v);
    cross_mask_ = std::move(mask);
    pool_capacity_ = capacity;
    drop_step_graph();  // the graph's attention reads the old buffers
}

void DeviceDecoder::upload_key_ranges() {
    // Several documents can join and leave between two steps: the staging buffer is rewritten
    // once the last copy has read it (a step before has read the old ranges: stream order).
    if (key_ranges_read_) PRECIS_CUDA_CHECK(cudaEventSynchronize(key_ranges_read_));
    else PRECIS_CUDA_CHECK(cudaEventCreateWithFlags(&key_ranges_read_, cudaEventDisableTiming));
    const int slots = slots_.slot_count();
    int32_t* ranges = host_key_ranges_.as<int32_t>();
    slots_.key_ranges(ranges, ranges + slots);
    PRECIS_CUDA_CHECK(cudaMemcpyAsync(key_ranges_.get(), ranges, 2 * size_t(slots) * sizeof(int32_t),
                                      cudaMemcpyHostToDevice, stream_));
    PRECIS_CUDA_CHECK(cudaEventRecord(key_ranges_read_, stream_));
}

int DeviceDecoder::join(const DeviceMemory& m) {
    check(m.precision == p_ && m.dim == D_, "decoder: the encoder output was made for another precision");
    check(m.rows >= 1, "decoder: a document without encoder rows");
    // The pool first: out of device memory, the document has not joined.
    grow_pool(slots_.pool_end(slots_.place(m.rows), m.rows));
    const DecoderSlots::Placement at = slots_.join(m.rows);
    const size_t el = bytes_of(p_);
    for (size_t l = 0; l < cross_k_.size(); ++l) {
        const DeviceAttention& ca = w_.decoder_layers[l].cross_attn;
        device_linear(gemm_, p_, m.memory.get(), m.rows, ca.k, cross_k_[l].as<char>() + size_t(at.start) * D_ * el,
                      stream_);
        device_linear(gemm_, p_, m.memory.get(), m.rows, ca.v, cross_v_[l].as<char>() + size_t(at.start) * D_ * el,
                      stream_);
    }
    PRECIS_CUDA_CHECK(cudaMemcpyAsync(cross_mask_.as<float>() + at.start, m.mask.get(), size_t(m.rows) * sizeof(float),
                                      cudaMemcpyDeviceToDevice, stream_));
    upload_key_ranges();
    if (slots_.largest_region() > max_keys_) {
        max_keys_ = int(slots_.largest_region());
        drop_step_graph();  // the graph's attention grid was sized for shorter documents
    }
    // The caller may free the encoder output once this returns: wait until the products
    // have read it.
    PRECIS_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return at.slot;
}

void DeviceDecoder::leave(int slot) {
    slots_.leave(slot);
    upload_key_ranges();
}

void DeviceDecoder::forward(const int64_t* tokens, int new_len) {
    check(new_len >= 1 && new_len <= max_new_, "decoder: bad number of new tokens");
    check(length() + new_len <= max_length_, "decoder: the sequence outgrew its cache");
    check(max_keys_ >= 1, "decoder: no document has joined");
    const int64_t n = int64_t(rows()) * new_len;
    // The staging buffer is rewritten only after the search has synchronized on this step.
    int32_t* staged = host_ids_.as<int32_t>();
    stage_step_inputs(tokens, n, V_, slots_, staged);
    PRECIS_CUDA_CHECK(cudaMemcpyAsync(ids_.get(), staged, size_t(n + rows()) * sizeof(int32_t),
                                      cudaMemcpyHostToDevice, stream_));
    if (new_len == 1 && graphs_) replay_step();
    else layers(new_len);
    slots_.advance(new_len);
}

void DeviceDecoder::drop_step_graph() {
    if (step_exec_) cudaGraphExecDestroy(step_exec_);
    step_exec_ = nullptr;
    eager_steps_ = 0;  // the next step sizes the scratch buffers again before capturing
}

void DeviceDecoder::replay_step() {
    if (!step_exec_) {
        if (eager_steps_++ == 0) {  // sizes every scratch buffer: no allocation while capturing
            layers(1);
            return;
        }
        cudaGraph_t graph = nullptr;
        PRECIS_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
        bool captured = true;
        try {
            layers(1);
        } catch (...) {
            // A launch the capture refused, or any failure: the stream must still leave capture
            // mode; the eager run below repeats the step and rethrows an error that is real.
            captured = false;
        }
        const cudaError_t end = cudaStreamEndCapture(stream_, &graph);
        if (captured && end == cudaSuccess && graph &&
            cudaGraphInstantiate(&step_exec_, graph, 0) != cudaSuccess)
            step_exec_ = nullptr;
        if (graph) cudaGraphDestroy(graph);
        if (!step_exec_) {
            (void)cudaGetLastError();  // capture errors are not sticky; clear the last one
            graphs_ = false;
            layers(1);
            return;
        }
    }
    PRECIS_CUDA_CHECK(cudaGraphLaunch(step_exec_, stream_));
}

void DeviceDecoder::layers(int new_len) {
    const ModelConfig& cfg = model_.config();
    const int R = rows();
    const int64_t n = int64_t(R) * new_len, D = D_;
    // Each row's cache length as of this step, on the device (after the ids in ids_).
    const int32_t* lengths = ids_.as<int32_t>() + n;
    const int longest = length();  // what the host checks the cache against
    const float scale = cfg.scale_embedding ? std::sqrt(float(D)) : 1.f;
    embed(p_, ids_.as<int32_t>(), n, w_.token_embeddings.get(), V_, D, scale, w_.decoder_positions.get(),
          kPositionOffset, new_len, x_.get(), stream_, lengths);
    add_layer_norm(p_, x_.get(), nullptr, nullptr, n, D, w_.decoder_embedding_norm.g(), w_.decoder_embedding_norm.b(),
                   1e-5f, stream_);
    const float qscale = 1.f / std::sqrt(float(hd_));
    const int slots = slots_.slot_count();
    for (int l = 0; l < cfg.decoder_layers; ++l) {
        const DeviceDecoderLayer& lw = w_.decoder_layers[size_t(l)];
        device_linear(gemm_, p_, x_.get(), n, lw.self_attn.q, q_.get(), stream_);
        device_linear(gemm_, p_, x_.get(), n, lw.self_attn.k, tmp_.get(), stream_);
        append_to_cache(p_, tmp_.get(), self_k_[size_t(l)].get(), R, new_len, longest, max_length_, D, stream_,
                        lengths);
        device_linear(gemm_, p_, x_.get(), n, lw.self_attn.v, tmp_.get(), stream_);
        append_to_cache(p_, tmp_.get(), self_v_[size_t(l)].get(), R, new_len, longest, max_length_, D, stream_,
                        lengths);
        cached_self_attention(p_, q_.get(), self_k_[size_t(l)].get(), self_v_[size_t(l)].get(), R, new_len, longest,
                              max_length_, heads_, hd_, qscale, ctx_.get(), stream_, lengths);
        gemm_.linear(p_, ctx_.get(), n, D, lw.self_attn.out.weight.get(), D, tmp_.get());
        add_layer_norm(p_, x_.get(), tmp_.get(), lw.self_attn.out.b(), n, D, lw.self_attn_norm.g(),
                       lw.self_attn_norm.b(), 1e-5f, stream_);

        device_linear(gemm_, p_, x_.get(), n, lw.cross_attn.q, q_.get(), stream_);
        MemoryAttentionArgs ca;  // every beam of a document reads its keys in the same pass
        ca.p = p_;
        ca.q = q_.get(), ca.q_stride = D, ca.items = slots, ca.group = slots_.width() * new_len;
        // Each slot's region start and its document's key count (0 in a free slot).
        ca.offsets = key_ranges_.as<int32_t>(), ca.key_counts = key_ranges_.as<int32_t>() + slots;
        ca.max_keys = max_keys_;
        ca.k = cross_k_[size_t(l)].get(), ca.v = cross_v_[size_t(l)].get(), ca.kv_stride = D;
        ca.mask = cross_mask_.as<float>();
        ca.heads = heads_, ca.head_dim = hd_, ca.scale = qscale, ca.out = ctx_.get(), ca.out_stride = D;
        cross_attention_.run(ca, stream_);
        gemm_.linear(p_, ctx_.get(), n, D, lw.cross_attn.out.weight.get(), D, tmp_.get());
        add_layer_norm(p_, x_.get(), tmp_.get(), lw.cross_attn.out.b(), n, D, lw.cross_attn_norm.g(),
                       lw.cross_attn_norm.b(), 1e-5f, stream_);

        gemm_.linear(p_, x_.get(), n, D, lw.fc1.weight.get(), F_, hidden_.get());
        bias_activation(p_, hidden_.get(), lw.fc1.b(), n, F_, true, stream_);
        gemm_.linear(p_, hidden_.get(), n, F_, lw.fc2.weight.get(), D, tmp_.get());
        add_layer_norm(p_, x_.get(), tmp_.get(), lw.fc2.b(), n, D, lw.final_norm.g(), lw.final_norm.b(), 1e-5f,
                       stream_);
    }
}

const float* DeviceDecoder::logits(int new_len, int rows) {
    const int64_t n = int64_t(rows < 0 ? this->rows() : rows) * new_len;
    // The tied LM head in the run's precision, written as float32 for the search.
    gemm_.linear(p_, x_.get(), n, D_, w_.token_embeddings.get(), V_, logits_.get(), Precision::F32);
    bias_activation(Precision::F32, logits_.get(), w_.final_logits_bias.as<float>(), n, V_, false, stream_);
    return logits_.as<float>();
}

void DeviceDecoder::reorder(const std::vector<int>& parents) {
    check(int(parents.size()) == rows(), "decoder: reorder needs one parent per row");
    for (int p : parents) check(p >= 0 && p < rows(), "decoder: reorder names a row that does not exist");
    // Rows of one document share a length; a shorter row's positions past its own length are
    // copied along unread.
    const int length = this->length();
    if (length == 0) return;
    std::vector<void*> caches;
    for (size_t l = 0; l < self_k_.size(); ++l) {
        caches.push_back(self_k_[l].get());
        caches.push_back(self_v_[l].get());
    }
    reorder_.run(p_, caches, parents, length, max_length_, D_, stream_);
}

}  // namespace precis::cuda
