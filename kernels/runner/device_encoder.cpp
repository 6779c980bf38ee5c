#include "kernels/runner/device_encoder.h"

#include <algorithm>
#include <cmath>

#include "engine/attention/attention.h"
#include "engine/generate/model_runner.h"
#include "engine/core/dtype.h"
#include "engine/model/model.h"
#include "kernels/ops/elementwise.h"
#include "kernels/ops/gemm.h"
#include "kernels/runner/device_memory.h"
#include "kernels/runner/device_model.h"
#include "kernels/span_timer.h"

namespace precis::cuda {

namespace {

// Rows of a device buffer as float32 on the host: a blocking copy of the stored bits, widened
// on the CPU, so no kernel is queued on a stream another run may be using. The caller makes
// sure the rows are complete (its stream synchronized).
Tensor rows_on_host(Precision p, const void* device, int64_t rows, int64_t dim) {
    const size_t n = size_t(rows) * size_t(dim);
    Tensor t = Tensor::empty(DType::F32, {rows, dim});
    float* out = t.data<float>();
    if (p == Precision::F32) {
        PRECIS_CUDA_CHECK(cudaMemcpy(out, device, n * sizeof(float), cudaMemcpyDeviceToHost));
        return t;
    }
    std::vector<uint16_t> bits(n);
    PRECIS_CUDA_CHECK(cudaMemcpy(bits.data(), device, n * sizeof(uint16_t), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; ++i) out[i] = p == Precision::F16 ? half_to_float(bits[i]) : bf16_to_float(bits[i]);
    return t;
}

// The encoder output's host copy, made only when something on the host asks (encoder.h).
Tensor memory_on_host(const DeviceMemory& m, int device_index) {
    try {
        PRECIS_CUDA_CHECK(cudaSetDevice(device_index));
        return rows_on_host(m.precision, m.memory.get(), m.rows, m.dim);
    } catch (const DeviceError& e) {
        throw DeviceFailure(std::string("copying the encoder output from the GPU failed: ") + e.what());
    }
}

}  // namespace

LayerFence::~LayerFence() {
    for (cudaEvent_t e : events_)
        if (e) cudaEventDestroy(e);
}

void LayerFence::mark(int layer, cudaStream_t stream) {
    cudaEvent_t& e = events_[layer % 2];
    if (!e) PRECIS_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    PRECIS_CUDA_CHECK(cudaEventRecord(e, stream));
}

void LayerFence::wait(int layer) { PRECIS_CUDA_CHECK(cudaEventSynchronize(events_[layer % 2])); }

EncoderOutput device_encode(const EncoderCall& call, const std::vector<std::vector<int64_t>>& ids,
                            const std::vector<std::vector<int64_t>>& masks, const AttentionOptions& attention,
                            const RunCallbacks& cb, bool keep_layer_states) {
    const Model& model = call.model;
    const ModelConfig& cfg = model.config();
    const DeviceModel& w = call.weights;
    EncoderWorkspace& ws = call.workspace;
    cudaStream_t stream = call.stream;
    const Precision p = w.precision();
    const size_t el = bytes_of(p);
    const int64_t D = cfg.d_model, F = cfg.encoder_ffn_dim, V = cfg.vocab_size;
    const int L = cfg.encoder_layers, heads = int(cfg.encoder_heads), hd = int(cfg.encoder_head_dim());
    if (attention.kind == ::precis::EncoderAttention::Lsg) attention.lsg.validate("the LSG settings");
    check(masks.empty() || masks.size() == ids.size(), "encoder: one attention mask per input row is required");

    // The CPU draws a fresh LSH matrix per encoder forward (EncoderSelfAttention); so does this.
    std::shared_ptr<LshProjections> lsh;
    if (draws_lsh_projections({attention.kind, attention.lsg, attention.fovea})) {
        lsh = attention.lsh ? attention.lsh : std::make_shared<LshProjections>(LshProjections::seeded(attention.lsh_seed));
        lsh->next_call();
    }

    EncoderOutput result;
    for (size_t r = 0; r < ids.size(); ++r) {
        const EncoderRowInput plan = prepare_encoder_row(model, attention, ids, masks, r);
        const int T = plan.length, G = plan.global, Tp = plan.padded, S = G + Tp;
        const std::vector<float>& key_mask = plan.key_mask;
        // The embedding kernel trusts its ids: checked here, as the CPU's embed does.
        std::vector<int32_t> row_ids(plan.ids.size());
        for (size_t i = 0; i < plan.ids.size(); ++i) {
            check(plan.ids[i] >= 0 && plan.ids[i] < V, "encoder: token id " + std::to_string(plan.ids[i]) +
                                                           " is outside the vocabulary of " + std::to_string(V));
            row_ids[i] = int32_t(plan.ids[i]);
        }

        const size_t row_bytes = size_t(S) * size_t(D) * el;
        ws.ids.reserve(row_ids.size() * sizeof(int32_t));
        ws.key_mask.reserve(key_mask.size() * sizeof(float));
        ws.x.reserve(row_bytes);
        ws.q.reserve(row_bytes);
        ws.k.reserve(row_bytes);
        ws.v.reserve(row_bytes);
        ws.ctx.reserve(row_bytes);
        ws.tmp.reserve(row_bytes);
        ws.hidden.reserve(size_t(S) * size_t(F) * el);
        PRECIS_CUDA_CHECK(cudaMemcpyAsync(ws.ids.get(), row_ids.data(), row_ids.size() * sizeof(int32_t),
                                          cudaMemcpyHostToDevice, stream));
        PRECIS_CUDA_CHECK(cudaMemcpyAsync(ws.key_mask.get(), key_mask.data(), key_mask.size() * sizeof(float),
                                          cudaMemcpyHostToDevice, stream));

        char* x = ws.x.as<char>();
        if (G > 0) {
            check(w.global_embeddings.bytes() >= size_t(G) * size_t(D) * el, "encoder: the model has no global embeddings");
            PRECIS_CUDA_CHECK(
                cudaMemcpyAsync(x, w.global_embeddings.get(), size_t(G) * size_t(D) * el, cudaMemcpyDeviceToDevice, stream));
        }
        const float scale = cfg.scale_embedding ? std::sqrt(float(D)) : 1.f;
        embed(p, ws.ids.as<int32_t>(), Tp, w.token_embeddings.get(), V, D, scale, w.encoder_positions.get(), 2, Tp,
              x + size_t(G) * size_t(D) * el, stream);
        add_layer_norm(p, x, nullptr, nullptr, S, D, w.encoder_embedding_norm.g(), w.encoder_embedding_norm.b(), 1e-5f,
                       stream);

        EncodedRow out;
        if (keep_layer_states) {
            PRECIS_CUDA_CHECK(cudaStreamSynchronize(stream));
            out.layer_states.push_back(rows_on_host(p, x, S, D));
        }
        ws.attention.prepare({attention.kind, attention.lsg, attention.fovea}, G, Tp, heads, hd, p, stream);
        std::vector<float> lsh_next;  // the projections of the layer about to run
        if (lsh && plan.sparse) lsh_next = lsh_projections_of_layer(*lsh, attention.lsg, 0, heads, hd);
        check(ws.attention.sparse_path() == plan.sparse, "encoder: the device attention disagrees with the row plan");
        for (int layer = 0; layer < L; ++layer) {
            cb.check_abort();
            const DeviceEncoderLayer& lw = w.encoder_layers[size_t(layer)];
            {
                // The biases ride in the products' epilogue (Gemm::linear_bias), timed with them.
                TimedSpan t(call.products, stream);
                device_linear(call.gemm, p, x, S, lw.self_attn.q, ws.q.get(), stream);
                device_linear(call.gemm, p, x, S, lw.self_attn.k, ws.k.get(), stream);
                device_linear(call.gemm, p, x, S, lw.self_attn.v, ws.v.get(), stream);
            }
            const float* lsh_r = nullptr;
            if (!lsh_next.empty()) {
                // The previous layer may still read the other buffer. A copy from pageable
                // memory has staged the host values when it returns.
                DeviceBuffer& r = ws.lsh_r[layer % 2];
                r.reserve(lsh_next.size() * sizeof(float));
                PRECIS_CUDA_CHECK(cudaMemcpyAsync(r.get(), lsh_next.data(), lsh_next.size() * sizeof(float),
                                                  cudaMemcpyHostToDevice, stream));
                lsh_r = r.as<float>();
            }
            {
                TimedSpan t(call.attention, stream);
                ws.attention.run(ws.q.get(), ws.k.get(), ws.v.get(), ws.key_mask.as<float>(), lsh_r, ws.ctx.get());
            }
            {
                TimedSpan t(call.products, stream);
                call.gemm.linear(p, ws.ctx.get(), S, D, lw.self_attn.out.weight.get(), D, ws.tmp.get());
            }
            add_layer_norm(p, x, ws.tmp.get(), lw.self_attn.out.b(), S, D, lw.self_attn_norm.g(), lw.self_attn_norm.b(),
                           1e-5f, stream);
            {
                TimedSpan t(call.products, stream);
                call.gemm.linear(p, x, S, D, lw.fc1.weight.get(), F, ws.hidden.get());
            }
            bias_activation(p, ws.hidden.get(), lw.fc1.b(), S, F, true, stream);
            {
                TimedSpan t(call.products, stream);
                call.gemm.linear(p, ws.hidden.get(), S, F, lw.fc2.weight.get(), D, ws.tmp.get());
            }
            add_layer_norm(p, x, ws.tmp.get(), lw.fc2.b(), S, D, lw.final_norm.g(), lw.final_norm.b(), 1e-5f, stream);
            if (keep_layer_states) {
                PRECIS_CUDA_CHECK(cudaStreamSynchronize(stream));
                out.layer_states.push_back(rows_on_host(p, x, S, D));
            }
            ws.fence.mark(layer, stream);
            // The next layer's projections are drawn on the host while the GPU runs this one.
            std::vector<float> drawn;
            if (!lsh_next.empty() && layer + 1 < L)
                drawn = lsh_projections_of_layer(*lsh, attention.lsg, layer + 1, heads, hd);
            lsh_next = std::move(drawn);
            // Progress that means something (and a prompt cancel): the previous layer is done;
            // this one stays queued, so the GPU does not wait for the host to issue the next.
            if (layer > 0) {
                ws.fence.wait(layer - 1);
                cb.report(RunStage::Encoding, layer, L);
            }
        }
        PRECIS_CUDA_CHECK(cudaStreamSynchronize(stream));
        cb.report(RunStage::Encoding, L, L);

        // Hand-over to the decoder (lsg-spec section 4), as the CPU encoder does.
        out.input_length = T;
        out.padded_length = Tp;
        out.num_global = G;
        out.sparse_path = plan.sparse;
        const DecoderMemoryRows rows = decoder_memory_rows(attention, G, T);
        if (rows.pool_global) {
            PRECIS_CUDA_CHECK(
                cudaMemcpyAsync(x + size_t(G) * size_t(D) * el, x, size_t(D) * el, cudaMemcpyDeviceToDevice, stream));
            if (keep_layer_states)  // as the CPU encoder: the recorded last state shows the pooled row
                std::copy_n(out.layer_states.back().data<float>(), D,
                            out.layer_states.back().data<float>() + size_t(G) * size_t(D));
        }
        out.memory_mask.assign(key_mask.begin() + rows.first, key_mask.begin() + rows.first + rows.count);
        const int first_row = rows.first, memory_rows = rows.count;
        auto device = std::make_shared<DeviceMemory>();
        device->runner_id = call.runner_id;
        device->precision = p;
        device->rows = memory_rows;
        device->dim = D;
        device->memory = DeviceBuffer(size_t(memory_rows) * size_t(D) * el);
        PRECIS_CUDA_CHECK(cudaMemcpyAsync(device->memory.get(), x + size_t(first_row) * size_t(D) * el,
                                          size_t(memory_rows) * size_t(D) * el, cudaMemcpyDeviceToDevice, stream));
        device->mask = upload(out.memory_mask, stream);
        PRECIS_CUDA_CHECK(cudaStreamSynchronize(stream));  // the memory is complete before anyone reads it
        int device_index = 0;
        PRECIS_CUDA_CHECK(cudaGetDevice(&device_index));
        out.fetch_memory = [device, device_index] { return memory_on_host(*device, device_index); };
        out.device_memory = device;
        result.rows.push_back(std::move(out));
    }
    return result;
}

}  // namespace precis::cuda
