#include "engine/attention/bf16_attention.h"

#include <cpuid.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "engine/attention/bf16_tile.h"
#include "engine/backend/onednn_cpu.h"
#include "engine/core/error.h"

namespace precis {

namespace {

using dt = dnnl::memory::data_type;

// Queries per task, as the float32 path; a last, shorter tile runs the same products and
// drops the rows past the input.
constexpr int64_t kTileRows = 64;

// Dense attention's tiles (kTileRows queries, fewer for short inputs, over every key): the
// keys and values in the blocked bf16 layouts oneDNN's brgemm reads fastest. Measured per
// tile of 64 queries over 1,024 keys, one thread: 79 us against 98 us with k and v read in
// place from their [rows, heads * hd] layout.
attn_detail::Bf16TileShape dense_tile_shape(int64_t queries, int64_t keys, int64_t hd) {
    using tag = dnnl::memory::format_tag;
    return attn_detail::Bf16TileShape(queries, keys, hd, dnnl::memory::desc({hd, keys}, dt::bf16, tag::any),
                                      dnnl::memory::desc({keys, hd}, dt::bf16, tag::any));
}

bool cpu_has_avx512_bf16() {
    __builtin_cpu_init();
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;  // CPUID leaf 7 subleaf 1, EAX bit 5
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) &&
           (eax & (1u << 5)) != 0;
}

}  // namespace

bool bf16_products_supported() {
    static const bool yes = cpu_has_avx512_bf16();
    return yes;
}

AttentionProducts int8_attention_products() {
    static const AttentionProducts chosen = [] {
        const char* asked = std::getenv("PRECIS_INT8_ATTENTION");
        const bool float32 = asked && std::strcmp(asked, "fp32") == 0;
        if (asked && *asked && !float32 && std::strcmp(asked, "bf16") != 0)
            std::fprintf(stderr, "precis: PRECIS_INT8_ATTENTION=%s is not fp32 or bf16; ignored\n", asked);
        return !float32 && bf16_products_supported() ? AttentionProducts::Bfloat16 : AttentionProducts::Float32;
    }();
    return chosen;
}

bool runs_bf16_products(AttentionProducts products, const AttentionRecorder* recorder) {
    return products == AttentionProducts::Bfloat16 && !recorder && bf16_products_supported();
}

const char* attention_products_name(AttentionProducts p) {
    return p == AttentionProducts::Bfloat16 ? "bf16" : "fp32";
}

void run_bf16_attention_products(int64_t tasks, int queries, int keys, int head_dim, bool lsg_blocks) {
    check(bf16_products_supported(), "bfloat16 attention needs a CPU with AVX512-BF16");
    const attn_detail::Bf16TileShape shape = lsg_blocks
                                                 ? attn_detail::Bf16BlockAttention::shape_for(queries, keys, head_dim)
                                                 : dense_tile_shape(queries, keys, head_dim);
    const std::vector<std::byte> k16(shape.scores.weights_desc().get_size()), v16(shape.mix.weights_desc().get_size());
    const std::vector<uint16_t> q16(size_t(shape.rows * head_dim));
    attn_detail::RegionFailure failure;
#pragma omp parallel
    {
        std::optional<attn_detail::Bf16Tile> tile;
#pragma omp for schedule(dynamic, 1)
        for (int64_t task = 0; task < tasks; ++task) {
            if (failure.failed()) continue;
            try {
                if (!tile) tile.emplace(shape);
                tile->products(q16.data(), k16.data(), v16.data());
            } catch (const std::exception& e) {
                failure.record(e);
            }
        }
    }
    failure.rethrow_if_failed();
}

namespace attn_detail {

void dense_attention_rows_bf16(const AttentionInput& in, int row_begin, int row_end, const float* key_mask,
                               float* out) {
    check(bf16_products_supported(), "bfloat16 attention needs a CPU with AVX512-BF16");
    const int64_t D = int64_t(in.heads) * in.head_dim, N = in.rows, hd = in.head_dim;
    const int64_t nrows = row_end - row_begin;
    if (nrows <= 0) return;
    const float scale = 1.0f / std::sqrt(float(hd));
    const Bf16TileShape shape = dense_tile_shape(std::min<int64_t>(kTileRows, in.rows), in.rows, in.head_dim);
    const int64_t tile = shape.rows, ntiles = (nrows + tile - 1) / tile;
    const dnnl::memory::desc k_layout = shape.scores.weights_desc(), v_layout = shape.mix.weights_desc();
    // Each head's keys and values, converted to bf16 in those layouts by oneDNN's reorder
    // from the float32 columns in place. Left uninitialized: the reorders write every byte
    // (zeroing them first cost a pass).
    const size_t k_bytes = k_layout.get_size(), v_bytes = v_layout.get_size();
    const std::unique_ptr<std::byte[]> k16(new std::byte[k_bytes * size_t(in.heads)]),
        v16(new std::byte[v_bytes * size_t(in.heads)]);
    const dnnl::memory::desc k32({hd, N}, dt::f32, dnnl::memory::dims{1, D});
    const dnnl::memory::desc v32({N, hd}, dt::f32, dnnl::memory::dims{D, 1});
    RegionFailure failure;
#pragma omp parallel
    {
        dnnl::engine& e = onednn_cpu_engine();
        std::optional<dnnl::stream> st;
        std::optional<Bf16Tile> products;
        std::vector<uint16_t> q16(size_t(tile * hd));
#pragma omp for schedule(static)
        for (int h = 0; h < in.heads; ++h) {
            if (failure.failed()) continue;
            try {
                if (!st) st.emplace(e);
                dnnl::memory ks(k32, e, const_cast<float*>(in.k + h * hd)), kd(k_layout, e, &k16[h * k_bytes]);
                dnnl::memory vs(v32, e, const_cast<float*>(in.v + h * hd)), vd(v_layout, e, &v16[h * v_bytes]);
                dnnl::reorder(ks, kd).execute(*st, ks, kd);
                dnnl::reorder(vs, vd).execute(*st, vs, vd);
                st->wait();
            } catch (const std::exception& x) {
                failure.record(x);
            }
        }  // implicit barrier: every tile reads every head's keys
#pragma omp for schedule(dynamic, 1)
        for (int64_t task = 0; task < ntiles * in.heads; ++task) {
            if (failure.failed()) continue;
            const int64_t t = task / in.heads, h = task % in.heads, r0 = row_begin + t * tile;
            const int64_t rows = std::min(tile, row_end - r0);
            try {
                if (!products) products.emplace(shape);
                for (int64_t r = 0; r < rows; ++r) to_bf16(in.q + (r0 + r) * D + h * hd, hd, scale, &q16[r * hd]);
                products->attend(q16.data(), &k16[h * k_bytes], &v16[h * v_bytes], key_mask, rows,
                                 out + r0 * D + h * hd, D);
            } catch (const std::exception& x) {
                failure.record(x);
            }
        }
    }
    failure.rethrow_if_failed();
}

}  // namespace attn_detail

}  // namespace precis
