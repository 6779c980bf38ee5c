#pragma once
// How a model's linear layers (attention projections, FFN, LM head) hold their weights:
// float32, int8 with a float scale per output row (quantized once at load), or fp16
// storage widened to float32 as it is read. Norms and biases stay float32; int8 also
// holds the token embeddings (the tied LM head) in int8 and quantizes the encoder's
// activations per row inside its integer GEMM (int8_gemm.h); the decoder's cross-attention
// keys/values are kept in int8 with int8 weights and in half precision with fp16 ones
// (cross_memory.h); with int8 weights the encoder's attention products run in bfloat16
// where the CPU has AVX512-BF16 (bf16_attention.h); every other activation is float32.
#include <string>

namespace precis {

enum class ComputeType { Fp32, Int8, Fp16Weights };

const char* compute_type_name(ComputeType t);       // "fp32", "int8", "fp16-weights"
ComputeType parse_compute_type(const std::string& s);  // throws Error naming the choices

}  // namespace precis
