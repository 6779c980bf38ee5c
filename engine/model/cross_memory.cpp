#include "engine/model/cross_memory.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <tuple>

#include "engine/backend/backend.h"
#include "engine/core/dtype.h"
#include "engine/core/error.h"
#include "engine/model/attend.h"
#include "engine/model/bart_weights.h"

namespace precis {

namespace {

// Inputs over 512 rows are split into parts of 256-512 rows, so every part takes the same
// matrix-product path as the whole would (more than 16 rows) and gets the same values.
constexpr int64_t kPartRows = 512;

// Threads only pay off on more than a few rows.
constexpr int64_t kParallelElements = int64_t(1) << 16;

constexpr int64_t kTile = kFloatKeyTile;
// The key tiles S positions take.
int64_t key_tiles(int64_t S) { return (S + kTile - 1) / kTile; }

void store_int8_row(const float* from, int64_t hd, int8_t* to, float* scale) {
    float m = 0.f, zero = 0.f;  // zero becomes NaN if any element is NaN or infinite
    for (int64_t c = 0; c < hd; ++c) {
        m = std::max(m, std::fabs(from[c]));
        zero += from[c] * 0.f;
    }
    if (zero != 0.f) {
        std::fill(to, to + hd, int8_t(0));
        *scale = std::numeric_limits<float>::quiet_NaN();
        return;
    }
    *scale = m / 127.f;
    const float inv = m > 0.f ? 127.f / m : 0.f;
    for (int64_t c = 0; c < hd; ++c) to[c] = int8_t(std::nearbyint(from[c] * inv));
}

// store(from, index) for every (head, row) of rows [row0, row0 + rows): `from` is the head's
// hd values in the [rows, heads * hd] part, `index` its row in the [heads, S] layout.
template <class StoreRow>
void for_each_head_row(const float* src, int64_t rows, int64_t row0, int64_t S, int64_t heads, int64_t hd,
                       StoreRow store) {
    const int64_t D = heads * hd;
#pragma omp parallel for collapse(2) schedule(static) if (rows * D > kParallelElements)
    for (int64_t h = 0; h < heads; ++h)
        for (int64_t s = 0; s < rows; ++s) store(src + s * D + h * hd, h * S + row0 + s);
}

}  // namespace

void store_rows_as_floats(const float* src, int64_t rows, int64_t row0, int64_t S, int64_t heads, int64_t hd,
                          float* dst) {
    for_each_head_row(src, rows, row0, S, heads, hd,
                      [&](const float* from, int64_t i) { std::copy(from, from + hd, dst + i * hd); });
}

void store_rows_as_float_tiles(const float* src, int64_t rows, int64_t row0, int64_t S, int64_t heads, int64_t hd,
                               float* dst) {
    const int64_t tiles = key_tiles(S);
    for_each_head_row(src, rows, row0, S, heads, hd, [&](const float* from, int64_t i) {
        const int64_t h = i / S, j = i % S;
        float* lane = dst + (h * tiles + j / kTile) * kTile * hd + j % kTile;
        for (int64_t c = 0; c < hd; ++c) lane[c * kTile] = from[c];
    });
    if (row0 + rows != S || S % kTile == 0) return;
    for (int64_t h = 0; h < heads; ++h) {
        float* last = dst + (h * tiles + tiles - 1) * kTile * hd;
        for (int64_t c = 0; c < hd; ++c) std::fill(last + c * kTile + S % kTile, last + (c + 1) * kTile, 0.f);
    }
}

void store_rows_as_halves(const float* src, int64_t rows, int64_t row0, int64_t S, int64_t heads, int64_t hd,
                          uint16_t* dst) {
    for_each_head_row(src, rows, row0, S, heads, hd, [&](const float* from, int64_t i) {
        uint16_t* to = dst + i * hd;
        int64_t c = 0;
        for (; c + 8 <= hd; c += 8)  // rounds to nearest even, as float_to_half does
            _mm_storeu_si128(reinterpret_cast<__m128i*>(to + c),
                             _mm256_cvtps_ph(_mm256_loadu_ps(from + c), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
        for (; c < hd; ++c) to[c] = float_to_half(from[c]);
    });
}

void store_rows_as_int8(const float* src, int64_t rows, int64_t row0, int64_t S, int64_t heads, int64_t hd, int8_t* dst,
                        float* scales) {
    for_each_head_row(src, rows, row0, S, heads, hd,
                      [&](const float* from, int64_t i) { store_int8_row(from, hd, dst + i * hd, scales + i); });
}

void CrossMemory::point_at_head(AttendArgs& a, int64_t h) const {
    a.k = a.v = nullptr;
    a.k_tiles = nullptr;
    a.k16 = a.v16 = nullptr;
    a.k8 = a.v8 = nullptr;
    a.k8_scales = a.v8_scales = nullptr;
    switch (k.dtype()) {
        case DType::F32:  // [heads, S, hd], or the keys [heads, tiles, hd, 16]
            if (k_tiled)
                a.k_tiles = k.data<float>() + h * key_tiles(S) * kTile * hd;
            else
                a.k = k.data<float>() + h * S * hd;
            a.v = v.data<float>() + h * S * hd;
            a.ldk = a.ldv = hd;
            return;
        case DType::F16:  // [heads, S, hd]
            a.k16 = k.data<uint16_t>() + h * S * hd;
            a.v16 = v.data<uint16_t>() + h * S * hd;
            a.ldk = a.ldv = hd;
            return;
        case DType::I8:
            a.k8 = k.data<int8_t>() + h * S * hd;
            a.v8 = v.data<int8_t>() + h * S * hd;
            a.k8_scales = k_scales.data<float>() + h * S;
            a.v8_scales = v_scales.data<float>() + h * S;
            a.ldk = a.ldv = hd;
            return;
        default: throw Error("cross-attention memory in an unexpected type");
    }
}

size_t CrossMemory::bytes() const {
    size_t n = k.nbytes() + v.nbytes();
    if (k_scales.defined()) n += k_scales.nbytes() + v_scales.nbytes();
    return n;
}

size_t CrossMemory::bytes_per_position(int64_t heads, int64_t hd, ComputeType compute) {
    const size_t values = 2 * size_t(heads * hd);  // a key and a value per head
    switch (compute) {
        case ComputeType::Fp32: return values * sizeof(float);
        case ComputeType::Fp16Weights: return values * sizeof(uint16_t);
        case ComputeType::Int8: return values + 2 * size_t(heads) * sizeof(float);
    }
    return 0;
}

size_t CrossMemory::bytes_for(int64_t S, int64_t heads, int64_t hd, ComputeType compute) {
    // fp32 keys as tiles pad each head's keys to whole tiles.
    const bool tiled = compute == ComputeType::Fp32 && float_key_tiles_apply(hd);
    const size_t padding = tiled ? size_t(key_tiles(S) * kTile - S) * size_t(heads * hd) * sizeof(float) : 0;
    return bytes_per_position(heads, hd, compute) * size_t(S) + padding;
}

namespace {

// Each layer's keys, values (and int8 scales) in turn, every piece on a cache line.
struct CrossLayout {
    DType stored;
    bool k_tiled;  // kv_bytes then holds the keys' tiles, padded to sixteen positions
    size_t kv_bytes, scale_bytes;
    size_t layer_bytes() const { return 2 * (kv_bytes + scale_bytes); }
};

CrossLayout cross_layout(int64_t S, int64_t heads, int64_t hd, ComputeType compute) {
    const bool int8 = compute == ComputeType::Int8, fp32 = compute == ComputeType::Fp32;
    const auto line = [](size_t bytes) { return (bytes + 63) / 64 * 64; };
    CrossLayout c;
    c.stored = int8 ? DType::I8 : fp32 ? DType::F32 : DType::F16;
    c.k_tiled = fp32 && float_key_tiles_apply(hd);
    const int64_t rows = c.k_tiled ? key_tiles(S) * kTile : S;
    c.kv_bytes = line(size_t(heads * rows * hd) * dtype_size(c.stored));
    c.scale_bytes = int8 ? line(size_t(heads * S) * sizeof(float)) : 0;
    return c;
}

}  // namespace

size_t cross_memories_bytes(int64_t S, int64_t heads, int64_t hd, ComputeType compute, size_t layers) {
    return cross_layout(S, heads, hd, compute).layer_bytes() * layers;
}

std::vector<CrossMemory> project_cross_memories(Backend& be, const std::vector<const AttentionWeights*>& layers,
                                                const float* memory, int64_t S, int64_t heads, int64_t hd,
                                                ComputeType compute, Tensor& part, std::shared_ptr<Tensor>* buffer) {
    const int64_t D = heads * hd;
    const bool int8 = compute == ComputeType::Int8, fp32 = compute == ComputeType::Fp32;
    const CrossLayout layout = cross_layout(S, heads, hd, compute);
    const DType stored = layout.stored;
    const size_t kv_bytes = layout.kv_bytes, scale_bytes = layout.scale_bytes, layer_bytes = layout.layer_bytes();
    std::shared_ptr<Tensor> own;
    std::shared_ptr<Tensor>& held = buffer ? *buffer : own;
    if (!held || held->nbytes() < layer_bytes * layers.size())
        held = std::make_shared<Tensor>(Tensor::empty_written_whole(DType::U8, {int64_t(layer_bytes * layers.size())}));
    const std::shared_ptr<Tensor> kept = held;  // what every view keeps alive
    std::vector<CrossMemory> out;
    out.reserve(layers.size());
    for (size_t l = 0; l < layers.size(); ++l) {
        uint8_t* base = kept->data<uint8_t>() + l * layer_bytes;
        CrossMemory m;
        m.S = S, m.heads = heads, m.hd = hd;
        m.k_tiled = layout.k_tiled;
        m.k = m.k_tiled ? Tensor::view(stored, {heads, key_tiles(S), hd, kTile}, base, kept)
                        : Tensor::view(stored, {heads, S, hd}, base, kept);
        m.v = Tensor::view(stored, {heads, S, hd}, base + kv_bytes, kept);
        if (int8) {
            m.k_scales = Tensor::view(DType::F32, {heads, S}, base + 2 * kv_bytes, kept);
            m.v_scales = Tensor::view(DType::F32, {heads, S}, base + 2 * kv_bytes + scale_bytes, kept);
        }
        out.push_back(std::move(m));
    }
    const int64_t parts = (S + kPartRows - 1) / kPartRows, part_rows = (S + parts - 1) / parts;
    if (!part.defined() || part.dim(0) < part_rows || part.dim(1) != D) part = Tensor::empty(DType::F32, {part_rows, D});
    for (size_t l = 0; l < layers.size(); ++l) {
        const AttentionWeights& w = *layers[l];
        CrossMemory& m = out[l];
        for (int64_t p = 0; p < parts; ++p) {
            const int64_t r0 = S * p / parts, rows = S * (p + 1) / parts - r0;
            for (auto [weights, to, scales] : {std::tuple{&w.k, &m.k, &m.k_scales}, std::tuple{&w.v, &m.v, &m.v_scales}}) {
                be.linear(memory + r0 * D, rows, D, weights->ref(), weights->b(), D, part.data<float>());
                if (int8)
                    store_rows_as_int8(part.data<float>(), rows, r0, S, heads, hd, to->data<int8_t>(),
                                       scales->data<float>());
                else if (fp32 && to == &m.k && m.k_tiled)
                    store_rows_as_float_tiles(part.data<float>(), rows, r0, S, heads, hd, to->data<float>());
                else if (fp32)
                    store_rows_as_floats(part.data<float>(), rows, r0, S, heads, hd, to->data<float>());
                else
                    store_rows_as_halves(part.data<float>(), rows, r0, S, heads, hd, to->data<uint16_t>());
            }
        }
    }
    return out;
}

}  // namespace precis
