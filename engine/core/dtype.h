#pragma once
// Element types a tensor can hold. Weights arrive as F32/F16/BF16; the CPU backend
// computes in F32, the CUDA backend also in F16/BF16 with F32 accumulation.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace precis {

// I8 holds quantized weights (symmetric int8 with a float scale per row, kept beside them).
enum class DType : uint8_t { F32, F16, BF16, I64, I32, U8, I8 };

size_t dtype_size(DType t);
const char* dtype_name(DType t);                  // "F32", "F16", ... (safetensors spelling)
bool dtype_from_name(const std::string& s, DType& out);

float half_to_float(uint16_t h);
uint16_t float_to_half(float f);
// The same over n elements, eight at a time with F16C and spread over the OpenMP threads
// (widening or narrowing a whole weight matrix at load).
void halves_from_floats(const float* src, uint16_t* dst, int64_t n);
void floats_from_halves(const uint16_t* src, float* dst, int64_t n);

inline float bf16_to_float(uint16_t b) {
    uint32_t u = uint32_t(b) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}
inline uint16_t float_to_bf16(float f) {  // round to nearest even
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40);  // NaN stays NaN
    u += 0x7fffu + ((u >> 16) & 1u);
    return uint16_t(u >> 16);
}

}  // namespace precis
