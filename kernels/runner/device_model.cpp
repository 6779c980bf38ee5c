#include "kernels/runner/device_model.h"

#include <cstring>

#include "engine/core/dtype.h"
#include "engine/model/model.h"
#include "kernels/ops/elementwise.h"
#include "kernels/ops/gemm.h"

namespace precis::cuda {

namespace {

// A linear layer's matrix in float32 whatever the CPU compute type stored it as.
const float* widened(const LinearWeights& w, std::vector<float>& buffer) {
    const Tensor& t = w.weight;
    const int64_t n = t.numel();
    switch (t.dtype()) {
        case DType::F32:
            return t.data<float>();
        case DType::F16: {
            buffer.resize(size_t(n));
            const uint16_t* h = static_cast<const uint16_t*>(t.raw());
            for (int64_t i = 0; i < n; ++i) buffer[size_t(i)] = half_to_float(h[i]);
            return buffer.data();
        }
        case DType::I8: {
            buffer.resize(size_t(n));
            const int8_t* q = static_cast<const int8_t*>(t.raw());
            const float* s = w.scales.data<float>();
            const int64_t in = w.in();
            for (int64_t i = 0; i < n; ++i) buffer[size_t(i)] = float(q[i]) * s[i / in];
            return buffer.data();
        }
        default:
            throw Error("the CUDA backend cannot read linear weights stored as " + std::string(dtype_name(t.dtype())));
    }
}

}  // namespace

DeviceModel::DeviceModel(const Model& model, Precision precision, cudaStream_t stream)
    : model_id_(model.instance_id()), precision_(precision) {
    const BartWeights& w = model.weights();
    const ModelConfig& cfg = model.config();
    const int64_t D = cfg.d_model, V = cfg.vocab_size;
    {  // the token table: `shared` in fp32 models, else the LM head's stored matrix
        std::vector<float> buf;
        const float* table = w.shared.defined() ? w.shared.data<float>() : widened(w.lm_head, buf);
        token_embeddings = upload_matrix(table, V * D, stream);
    }
    encoder_positions = upload_matrix(w.encoder_positions.data<float>(), w.encoder_positions.numel(), stream);
    decoder_positions = upload_matrix(w.decoder_positions.data<float>(), w.decoder_positions.numel(), stream);
    if (w.global_embeddings.defined())
        global_embeddings = upload_matrix(w.global_embeddings.data<float>(), w.global_embeddings.numel(), stream);
    final_logits_bias = upload_f32(w.final_logits_bias.data<float>(), V, stream);
    encoder_embedding_norm = upload_norm(w.encoder_embedding_norm, stream);
    decoder_embedding_norm = upload_norm(w.decoder_embedding_norm, stream);
    for (const EncoderLayerWeights& l : w.encoder_layers) {
        DeviceEncoderLayer d;
        d.self_attn = upload_attention(l.self_attn, stream);
        d.self_attn_norm = upload_norm(l.self_attn_norm, stream);
        d.fc1 = upload_linear(l.fc1, stream);
        d.fc2 = upload_linear(l.fc2, stream);
        d.final_norm = upload_norm(l.final_norm, stream);
        encoder_layers.push_back(std::move(d));
    }
    for (const DecoderLayerWeights& l : w.decoder_layers) {
        DeviceDecoderLayer d;
        d.self_attn = upload_attention(l.self_attn, stream);
        d.self_attn_norm = upload_norm(l.self_attn_norm, stream);
        d.cross_attn = upload_attention(l.cross_attn, stream);
        d.cross_attn_norm = upload_norm(l.cross_attn_norm, stream);
        d.fc1 = upload_linear(l.fc1, stream);
        d.fc2 = upload_linear(l.fc2, stream);
        d.final_norm = upload_norm(l.final_norm, stream);
        decoder_layers.push_back(std::move(d));
    }
    PRECIS_CUDA_CHECK(cudaStreamSynchronize(stream));
    staging_.release();
}

DeviceBuffer DeviceModel::upload_f32(const float* host, int64_t n, cudaStream_t stream) {
    DeviceBuffer b(size_t(n) * sizeof(float));
    PRECIS_CUDA_CHECK(cudaMemcpyAsync(b.get(), host, size_t(n) * sizeof(float), cudaMemcpyHostToDevice, stream));
    // The host pointer may be a temporary: the copy must be done before it goes.
    PRECIS_CUDA_CHECK(cudaStreamSynchronize(stream));
    bytes_ += b.bytes();
    return b;
}

DeviceBuffer DeviceModel::upload_matrix(const float* host, int64_t n, cudaStream_t stream) {
    if (precision_ == Precision::F32) return upload_f32(host, n, stream);
    staging_.reserve(size_t(n) * sizeof(float));
    PRECIS_CUDA_CHECK(cudaMemcpyAsync(staging_.get(), host, size_t(n) * sizeof(float), cudaMemcpyHostToDevice, stream));
    DeviceBuffer b(size_t(n) * bytes_of(precision_));
    convert_from_f32(precision_, staging_.as<float>(), b.get(), n, stream);
    PRECIS_CUDA_CHECK(cudaStreamSynchronize(stream));
    bytes_ += b.bytes();
    return b;
}

DeviceLinear DeviceModel::upload_linear(const LinearWeights& w, cudaStream_t stream) {
    DeviceLinear d;
    d.in = w.in();
    d.out = w.out();
    std::vector<float> buf;
    d.weight = upload_matrix(widened(w, buf), d.in * d.out, stream);
    if (w.bias.defined()) {
        d.bias = upload_f32(w.b(), d.out, stream);
        if (precision_ != Precision::F32) d.stored_bias = upload_matrix(w.b(), d.out, stream);
    }
    return d;
}

DeviceAttention DeviceModel::upload_attention(const AttentionWeights& w, cudaStream_t stream) {
    return {upload_linear(w.q, stream), upload_linear(w.k, stream), upload_linear(w.v, stream),
            upload_linear(w.out, stream)};
}

DeviceNorm DeviceModel::upload_norm(const LayerNormWeights& w, cudaStream_t stream) {
    DeviceNorm d;
    d.gamma = upload_f32(w.g(), w.gamma.numel(), stream);
    d.beta = upload_f32(w.b(), w.beta.numel(), stream);
    return d;
}

void device_linear(Gemm& gemm, Precision p, const void* x, int64_t rows, const DeviceLinear& w, void* y,
                   cudaStream_t stream) {
    if (w.b()) gemm.linear_bias(p, x, rows, w.in, w.weight.get(), w.out, w.b(), y, w.b_stored());
    else gemm.linear(p, x, rows, w.in, w.weight.get(), w.out, y);
}

}  // namespace precis::cuda
