#include "engine/core/dtype.h"

#include <immintrin.h>

#include <algorithm>

namespace precis {

size_t dtype_size(DType t) {
    switch (t) {
        case DType::F32: return 4;
        case DType::F16: return 2;
        case DType::BF16: return 2;
        case DType::I64: return 8;
        case DType::I32: return 4;
        case DType::U8: return 1;
        case DType::I8: return 1;
    }
    return 0;
}

const char* dtype_name(DType t) {
    switch (t) {
        case DType::F32: return "F32";
        case DType::F16: return "F16";
        case DType::BF16: return "BF16";
        case DType::I64: return "I64";
        case DType::I32: return "I32";
        case DType::U8: return "U8";
        case DType::I8: return "I8";
    }
    return "?";
}

bool dtype_from_name(const std::string& s, DType& out) {
    static const std::pair<const char*, DType> names[] = {
        {"F32", DType::F32}, {"F16", DType::F16}, {"BF16", DType::BF16},
        {"I64", DType::I64}, {"I32", DType::I32}, {"U8", DType::U8}, {"I8", DType::I8}};
    for (auto& [n, t] : names)
        if (s == n) { out = t; return true; }
    return false;
}

// IEEE 754 binary16 <-> binary32, exact for every half value, round-to-nearest-even back.
float half_to_float(uint16_t h) {
    uint32_t sign = uint32_t(h & 0x8000) << 16;
    uint32_t exp = (h >> 10) & 0x1f;
    uint32_t mant = h & 0x3ff;
    uint32_t u;
    if (exp == 0) {
        if (mant == 0) {
            u = sign;
        } else {  // subnormal: normalize
            int e = -1;
            do { ++e; mant <<= 1; } while (!(mant & 0x400));
            u = sign | uint32_t(127 - 15 - e) << 23 | (mant & 0x3ff) << 13;
        }
    } else if (exp == 31) {
        u = sign | 0x7f800000u | mant << 13;
    } else {
        u = sign | (exp + 127 - 15) << 23 | mant << 13;
    }
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

uint16_t float_to_half(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    uint32_t sign = (u >> 16) & 0x8000;
    int32_t exp = int32_t((u >> 23) & 0xff) - 127 + 15;
    uint32_t mant = u & 0x7fffff;
    if (((u >> 23) & 0xff) == 0xff) return uint16_t(sign | 0x7c00 | (mant ? 0x200 : 0));
    if (exp >= 31) return uint16_t(sign | 0x7c00);
    if (exp <= 0) {
        if (exp < -10) return uint16_t(sign);
        mant |= 0x800000;
        uint32_t shift = uint32_t(14 - exp);
        uint32_t half = mant >> shift;
        uint32_t rem = mant & ((1u << shift) - 1);
        uint32_t mid = 1u << (shift - 1);
        if (rem > mid || (rem == mid && (half & 1))) ++half;
        return uint16_t(sign | half);
    }
    uint32_t half = sign | uint32_t(exp) << 10 | mant >> 13;
    uint32_t rem = mant & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (half & 1))) ++half;  // may carry into exponent: correct
    return uint16_t(half);
}

namespace {
constexpr int64_t kConvertBlock = int64_t(1) << 16;  // elements per OpenMP task
}

void halves_from_floats(const float* src, uint16_t* dst, int64_t n) {
    const int64_t blocks = (n + kConvertBlock - 1) / kConvertBlock;
#pragma omp parallel for schedule(static) if (blocks > 1)
    for (int64_t b = 0; b < blocks; ++b) {
        int64_t i = b * kConvertBlock;
        const int64_t end = std::min(n, i + kConvertBlock);
        // vcvtps2ph rounds to nearest even, as float_to_half does.
        for (; i + 8 <= end; i += 8)
            _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i),
                             _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
        for (; i < end; ++i) dst[i] = float_to_half(src[i]);
    }
}

void floats_from_halves(const uint16_t* src, float* dst, int64_t n) {
    const int64_t blocks = (n + kConvertBlock - 1) / kConvertBlock;
#pragma omp parallel for schedule(static) if (blocks > 1)
    for (int64_t b = 0; b < blocks; ++b) {
        int64_t i = b * kConvertBlock;
        const int64_t end = std::min(n, i + kConvertBlock);
        for (; i + 8 <= end; i += 8)
            _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i))));
        for (; i < end; ++i) dst[i] = half_to_float(src[i]);
    }
}

}  // namespace precis
