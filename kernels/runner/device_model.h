#pragma once
// A model's weights on the device, uploaded once and converted to the run's precision: the
// linear layers' matrices and the embedding tables in fp32, fp16 or bf16, biases and
// LayerNorm parameters in float32. Host weights stored as int8 or fp16 (the CPU's compute
// types) are widened on the way, so any loaded model can be run.
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "kernels/device_buffer.h"
#include "kernels/ops/precision.h"

namespace precis {
class Model;
struct LinearWeights;
struct AttentionWeights;
struct LayerNormWeights;
}  // namespace precis

namespace precis::cuda {

class Gemm;

struct DeviceLinear {
    DeviceBuffer weight;  // [out, in] in the run's precision
    DeviceBuffer bias;    // [out] float32, empty when the layer has none
    DeviceBuffer stored_bias;  // the same in the run's precision when it is fp16/bf16 (Gemm::linear_bias)
    int64_t in = 0, out = 0;
    const float* b() const { return bias.bytes() ? bias.as<float>() : nullptr; }
    const void* b_stored() const { return stored_bias.bytes() ? stored_bias.get() : nullptr; }
};

struct DeviceNorm {
    DeviceBuffer gamma, beta;  // float32 [dim]
    const float* g() const { return gamma.as<float>(); }
    const float* b() const { return beta.as<float>(); }
};

struct DeviceAttention {
    DeviceLinear q, k, v, out;
};

struct DeviceEncoderLayer {
    DeviceAttention self_attn;
    DeviceNorm self_attn_norm;
    DeviceLinear fc1, fc2;
    DeviceNorm final_norm;
};

struct DeviceDecoderLayer {
    DeviceAttention self_attn;
    DeviceNorm self_attn_norm;
    DeviceAttention cross_attn;
    DeviceNorm cross_attn_norm;
    DeviceLinear fc1, fc2;
    DeviceNorm final_norm;
};

class DeviceModel {
public:
    DeviceModel(const Model& model, Precision precision, cudaStream_t stream);

    uint64_t model_id() const { return model_id_; }
    Precision precision() const { return precision_; }
    uint64_t bytes() const { return bytes_; }

    DeviceBuffer token_embeddings;  // [V, D], also the tied LM head
    DeviceBuffer encoder_positions, decoder_positions;  // [P, D]
    DeviceBuffer global_embeddings;                     // [512, D], LSG only
    DeviceBuffer final_logits_bias;                     // float32 [V]
    DeviceNorm encoder_embedding_norm, decoder_embedding_norm;
    std::vector<DeviceEncoderLayer> encoder_layers;
    std::vector<DeviceDecoderLayer> decoder_layers;

private:
    DeviceBuffer upload_matrix(const float* host, int64_t n, cudaStream_t stream);
    DeviceLinear upload_linear(const LinearWeights& w, cudaStream_t stream);
    DeviceAttention upload_attention(const AttentionWeights& w, cudaStream_t stream);
    DeviceNorm upload_norm(const LayerNormWeights& w, cudaStream_t stream);
    DeviceBuffer upload_f32(const float* host, int64_t n, cudaStream_t stream);

    uint64_t model_id_;
    Precision precision_;
    uint64_t bytes_ = 0;
    DeviceBuffer staging_;  // float32 staging for conversions, freed after loading
};

// y[rows, out] = x W^T + b in the run's precision (the bias in the product's epilogue, or
// by the bias kernel after it).
void device_linear(Gemm& gemm, Precision p, const void* x, int64_t rows, const DeviceLinear& w, void* y,
                   cudaStream_t stream);

}  // namespace precis::cuda
