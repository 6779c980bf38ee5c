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

DeviceDecoder::DeviceDecoder(const Model& model, const DeviceModel& weights, Gemm& gemm, cudaStream_t stream,
                             const std::vector<const DeviceMemory*>& memories, int rows_per_item, int max_length,
                             int max_new)
    : model_(model),
      w_(weights),
      gemm_(gemm),
      stream_(stream),
      p_(weights.precision()),
      rows_(int(memories.size()) * rows_per_item),
      rows_per_item_(rows_per_item),
      max_length_(max_length),
      max_new_(max_new) {
    const ModelConfig& cfg = model.config();
    D_ = cfg.d_model;
    F_ = cfg.decoder_ffn_dim;
    V_ = cfg.vocab_size;
    heads_ = int(cfg.decoder_heads);
    hd_ = int(cfg.decoder_head_dim());
    check(!memories.empty() && rows_per_item >= 1 && max_new >= 1, "decoder: nothing to decode");
    check(max_length <= int(model.weights().decoder_positions.dim(0)) - 2,
          "generation of " + std::to_string(max_length) + " tokens exceeds the decoder's " +
              std::to_string(model.weights().decoder_positions.dim(0) - 2) + " positions");
    const size_t el = bytes_of(p_);
    const int L = cfg.decoder_layers;
    for (int l = 0; l < L; ++l) {
        self_k_.emplace_back(size_t(rows_) * max_length * D_ * el);
        self_v_.emplace_back(size_t(rows_) * max_length * D_ * el);
    }

    // Every item's memory side by side, so one product per layer projects all of them.
    std::vector<int32_t> offsets{0};
    for (const DeviceMemory* m : memories) {
        check(m->precision == p_ && m->dim == D_, "decoder: the encoder output was made for another precision");
        offsets.push_back(offsets.back() + m->rows);
        max_memory_rows_ = std::max(max_memory_rows_, m->rows);
    }
    const int total = offsets.back();
    DeviceBuffer memory(size_t(total) * D_ * el);
    cross_mask_ = DeviceBuffer(size_t(total) * sizeof(float));
    for (size_t i = 0; i < memories.size(); ++i) {
        const DeviceMemory* m = memories[i];
        PRECIS_CUDA_CHECK(cudaMemcpyAsync(memory.as<char>() + size_t(offsets[i]) * D_ * el, m->memory.get(),
                                          size_t(m->rows) * D_ * el, cudaMemcpyDeviceToDevice, stream_));
        PRECIS_CUDA_CHECK(cudaMemcpyAsync(cross_mask_.as<float>() + offsets[i], m->mask.get(),
                                          size_t(m->rows) * sizeof(float), cudaMemcpyDeviceToDevice, stream_));
    }
    offsets_ = upload(offsets);
    for (int l = 0; l < L; ++l) {
        const DeviceAttention& ca = w_.decoder_layers[size_t(l)].cross_attn;
        cross_k_.emplace_back(size_t(total) * D_ * el);
        cross_v_.emplace_back(size_t(total) * D_ * el);
        device_linear(gemm_, p_, memory.get(), total, ca.k, cross_k_.back().get(), stream_);
        device_linear(gemm_, p_, memory.get(), total, ca.v, cross_v_.back().get(), stream_);
    }
    const size_t n = size_t(rows_) * max_new;
    ids_ = DeviceBuffer((n + 1) * sizeof(int32_t));  // the ids, then the length (one copy)
    host_ids_ = PinnedBuffer((n + 1) * sizeof(int32_t));
    const char* env = std::getenv("PRECIS_CUDA_GRAPHS");
    graphs_ = !(env && std::string(env) == "0");
    x_ = DeviceBuffer(n * D_ * el);
    q_ = DeviceBuffer(n * D_ * el);
    ctx_ = DeviceBuffer(n * D_ * el);
    tmp_ = DeviceBuffer(n * D_ * el);
    hidden_ = DeviceBuffer(n * F_ * el);
    logits_ = DeviceBuffer(n * V_ * sizeof(float));
    // `memory` is freed when the constructor returns: wait until the products have read it.
    PRECIS_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

DeviceDecoder::~DeviceDecoder() {
    if (step_exec_) cudaGraphExecDestroy(step_exec_);
}

void DeviceDecoder::forward(const int64_t* tokens, int new_len) {
    check(new_len >= 1 && new_len <= max_new_, "decoder: bad number of new tokens");
    check(length_ + new_len <= max_length_, "decoder: the sequence outgrew its cache");
    const int64_t n = int64_t(rows_) * new_len;
    // The staging buffer is rewritten only after the search has synchronized on this step.
    int32_t* staged = host_ids_.as<int32_t>();
    stage_step_inputs(tokens, n, V_, length_, staged);
    PRECIS_CUDA_CHECK(cudaMemcpyAsync(ids_.get(), staged, size_t(n + 1) * sizeof(int32_t), cudaMemcpyHostToDevice,
                                      stream_));
    if (new_len == 1 && graphs_) replay_step();
    else layers(new_len);
    length_ += new_len;
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
    const int64_t n = int64_t(rows_) * new_len, D = D_;
    // The cache length as of this step, on the device (after the ids in ids_).
    const int32_t* length = ids_.as<int32_t>() + n;
    const float scale = cfg.scale_embedding ? std::sqrt(float(D)) : 1.f;
    embed(p_, ids_.as<int32_t>(), n, w_.token_embeddings.get(), V_, D, scale, w_.decoder_positions.get(),
          kPositionOffset, new_len, x_.get(), stream_, length);
    add_layer_norm(p_, x_.get(), nullptr, nullptr, n, D, w_.decoder_embedding_norm.g(), w_.decoder_embedding_norm.b(),
                   1e-5f, stream_);
    const float qscale = 1.f / std::sqrt(float(hd_));
    for (int l = 0; l < cfg.decoder_layers; ++l) {
        const DeviceDecoderLayer& lw = w_.decoder_layers[size_t(l)];
        device_linear(gemm_, p_, x_.get(), n, lw.self_attn.q, q_.get(), stream_);
        device_linear(gemm_, p_, x_.get(), n, lw.self_attn.k, tmp_.get(), stream_);
        append_to_cache(p_, tmp_.get(), self_k_[size_t(l)].get(), rows_, new_len, length_, max_length_, D, stream_,
                        length);
        device_linear(gemm_, p_, x_.get(), n, lw.self_attn.v, tmp_.get(), stream_);
        append_to_cache(p_, tmp_.get(), self_v_[size_t(l)].get(), rows_, new_len, length_, max_length_, D, stream_,
                        length);
        cached_self_attention(p_, q_.get(), self_k_[size_t(l)].get(), self_v_[size_t(l)].get(), rows_, new_len,
                              length_, max_length_, heads_, hd_, qscale, ctx_.get(), stream_, length);
        gemm_.linear(p_, ctx_.get(), n, D, lw.self_attn.out.weight.get(), D, tmp_.get());
        add_layer_norm(p_, x_.get(), tmp_.get(), lw.self_attn.out.b(), n, D, lw.self_attn_norm.g(),
                       lw.self_attn_norm.b(), 1e-5f, stream_);

        device_linear(gemm_, p_, x_.get(), n, lw.cross_attn.q, q_.get(), stream_);
        MemoryAttentionArgs ca;  // every beam of a document reads its keys in the same pass
        ca.p = p_;
        ca.q = q_.get(), ca.q_stride = D, ca.items = int(n) / (rows_per_item_ * new_len), ca.group = rows_per_item_ * new_len;
        ca.offsets = offsets_.as<int32_t>(), ca.max_keys = max_memory_rows_;
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

const float* DeviceDecoder::logits(int new_len) {
    const int64_t n = int64_t(rows_) * new_len;
    // The tied LM head in the run's precision, written as float32 for the search.
    gemm_.linear(p_, x_.get(), n, D_, w_.token_embeddings.get(), V_, logits_.get(), Precision::F32);
    bias_activation(Precision::F32, logits_.get(), w_.final_logits_bias.as<float>(), n, V_, false, stream_);
    return logits_.as<float>();
}

void DeviceDecoder::reorder(const std::vector<int>& parents) {
    check(int(parents.size()) == rows_, "decoder: reorder needs one parent per row");
    for (int p : parents) check(p >= 0 && p < rows_, "decoder: reorder names a row that does not exist");
    if (length_ == 0) return;
    std::vector<void*> caches;
    for (size_t l = 0; l < self_k_.size(); ++l) {
        caches.push_back(self_k_[l].get());
        caches.push_back(self_v_[l].get());
    }
    reorder_.run(p_, caches, parents, length_, max_length_, D_, stream_);
}

}  // namespace precis::cuda
