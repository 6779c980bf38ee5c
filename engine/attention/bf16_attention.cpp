#include "engine/attention/bf16_attention.h"

#include <cpuid.h>
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/backend/onednn_cpu.h"
#include "engine/core/error.h"

namespace precis {

namespace {

// GCC 12's AVX-512 headers build some results from _mm512_undefined_ps() (the reductions,
// roundscale), which -Wuninitialized reports once inlined here.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#define PRECIS_BF16_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16")))

// y[i] = x[i] * scale rounded to the nearest bfloat16 (ties to even), 16 at a time.
PRECIS_BF16_TARGET void to_bf16(const float* x, int64_t n, float scale, uint16_t* y) {
    const __m512 s = _mm512_set1_ps(scale);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256bh b = _mm512_cvtneps_pbh(_mm512_mul_ps(_mm512_loadu_ps(x + i), s));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + i), reinterpret_cast<const __m256i&>(b));
    }
    if (i < n) {
        const __mmask16 m = __mmask16((1u << (n - i)) - 1);
        const __m256bh b = _mm512_cvtneps_pbh(_mm512_mul_ps(_mm512_maskz_loadu_ps(m, x + i), s));
        _mm256_mask_storeu_epi16(y + i, m, reinterpret_cast<const __m256i&>(b));
    }
}

// exp(x) for x <= 0, sixteen at a time, to the precision a bfloat16 keeps: 2^f for
// |f| <= 1/2 by its degree-4 Taylor polynomial (relative error 4e-5, against bfloat16's
// rounding of up to 2e-3); below -87.3 exactly 0, as exp_nonpositive (simd_exp.h) gives,
// so masked keys weigh nothing.
PRECIS_BF16_TARGET inline __m512 exp_for_bf16(__m512 x) {
    const __mmask16 live = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-87.3f), _CMP_GE_OQ);
    const __m512 t = _mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f));  // x log2(e)
    const __m512 n = _mm512_roundscale_ps(t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m512 f = _mm512_mul_ps(_mm512_sub_ps(t, n), _mm512_set1_ps(0.693147180559945f));  // 2^(t-n) = e^f
    __m512 y = _mm512_set1_ps(1.f / 24);
    y = _mm512_fmadd_ps(y, f, _mm512_set1_ps(1.f / 6));
    y = _mm512_fmadd_ps(y, f, _mm512_set1_ps(0.5f));
    y = _mm512_fmadd_ps(y, f, _mm512_set1_ps(1.f));
    y = _mm512_fmadd_ps(y, f, _mm512_set1_ps(1.f));
    return _mm512_maskz_scalef_ps(live, y, n);
}

// One row of a tile's probabilities: p = bf16(exp(s + mask - max)), unnormalized (the
// largest is 1); returns 1 / the sum, by which the row's output is scaled after the
// product. Two passes over the scores, where softmax_rows + a conversion would take four.
PRECIS_BF16_TARGET inline __mmask16 lanes_from(int64_t j, int64_t cols) {
    return cols - j >= 16 ? __mmask16(0xffff) : __mmask16((1u << (cols - j)) - 1);
}

PRECIS_BF16_TARGET inline __m512 masked_scores(const float* s, const float* mask, int64_t j, __mmask16 m) {
    const __m512 v = _mm512_maskz_loadu_ps(m, s + j);
    return mask ? _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, mask + j)) : v;
}

PRECIS_BF16_TARGET float exp_row_to_bf16(const float* s, int64_t cols, const float* mask, uint16_t* p) {
    __m512 vmax = _mm512_set1_ps(-INFINITY);
    for (int64_t j = 0; j < cols; j += 16) {
        const __mmask16 m = lanes_from(j, cols);
        vmax = _mm512_mask_max_ps(vmax, m, vmax, masked_scores(s, mask, j, m));
    }
    const __m512 top = _mm512_set1_ps(_mm512_reduce_max_ps(vmax));
    __m512 sum = _mm512_setzero_ps();
    for (int64_t j = 0; j < cols; j += 16) {
        const __mmask16 m = lanes_from(j, cols);
        const __m512 e = _mm512_maskz_mov_ps(m, exp_for_bf16(_mm512_sub_ps(masked_scores(s, mask, j, m), top)));
        sum = _mm512_add_ps(sum, e);
        const __m256bh b = _mm512_cvtneps_pbh(e);
        _mm256_mask_storeu_epi16(p + j, m, reinterpret_cast<const __m256i&>(b));
    }
    return 1.f / _mm512_reduce_add_ps(sum);
}

using dt = dnnl::memory::data_type;

constexpr int64_t kTileRows = 64;  // queries per task, as the float32 path

// The descriptions every thread's products share, for tiles of `rows` queries over `keys`
// keys of one head (hd wide):
//   scores[rows, keys] (f32) = q[rows, hd] (bf16, dense) . k^T[hd, keys]
//   mix[rows, hd] (f32, dense) = p[rows, keys] (bf16, dense) . v[keys, hd]
// k^T and v in the blocked bf16 layouts oneDNN's brgemm kernels read fastest (chosen once,
// for full tiles; a last, shorter tile reads the same layouts). Measured per tile of 64
// queries over 1,024 keys, one thread: 79 us against 98 us with k and v read in place.
struct TileShape {
    dnnl::matmul::primitive_desc scores, mix;

    TileShape(int64_t rows, int64_t keys, int64_t hd, const dnnl::memory::desc& k_layout,
              const dnnl::memory::desc& v_layout) {
        dnnl::engine& e = onednn_cpu_engine();
        const dnnl::memory::desc q({rows, hd}, dt::bf16, dnnl::memory::format_tag::ab);
        const dnnl::memory::desc s({rows, keys}, dt::f32, dnnl::memory::format_tag::ab);
        const dnnl::memory::desc p({rows, keys}, dt::bf16, dnnl::memory::format_tag::ab);
        const dnnl::memory::desc o({rows, hd}, dt::f32, dnnl::memory::format_tag::ab);
        scores = dnnl::matmul::primitive_desc(dnnl::matmul::desc(q, k_layout, s), e);
        mix = dnnl::matmul::primitive_desc(dnnl::matmul::desc(p, v_layout, o), e);
    }
};

// One thread's products for one tile shape; memory objects are pointed at each tile's data.
struct TileProducts {
    dnnl::matmul scores, mix;
    dnnl::memory q, k, s, p, v, o;

    explicit TileProducts(const TileShape& shape)
        : scores(shape.scores),
          mix(shape.mix),
          q(shape.scores.src_desc(), onednn_cpu_engine(), DNNL_MEMORY_NONE),
          k(shape.scores.weights_desc(), onednn_cpu_engine(), DNNL_MEMORY_NONE),
          s(shape.scores.dst_desc(), onednn_cpu_engine(), DNNL_MEMORY_NONE),
          p(shape.mix.src_desc(), onednn_cpu_engine(), DNNL_MEMORY_NONE),
          v(shape.mix.weights_desc(), onednn_cpu_engine(), DNNL_MEMORY_NONE),
          o(shape.mix.dst_desc(), onednn_cpu_engine(), DNNL_MEMORY_NONE) {}

    // out[r, 0:hd] (row stride ld_out) = softmax(q k^T + mask) v for the tile's `rows`
    // queries (q already scaled). Runs inside the engine's OpenMP region: oneDNN runs it on
    // this thread.
    void run(const uint16_t* q_tile, const void* k_head, const void* v_head, const float* key_mask, int64_t rows,
             int64_t keys, int64_t hd, float* scores_buf, uint16_t* probs, float* mixed, float* out, int64_t ld_out,
             dnnl::stream& st) {
        q.set_data_handle(const_cast<uint16_t*>(q_tile));
        k.set_data_handle(const_cast<void*>(k_head));
        s.set_data_handle(scores_buf);
        scores.execute(st, {{DNNL_ARG_SRC, q}, {DNNL_ARG_WEIGHTS, k}, {DNNL_ARG_DST, s}});
        st.wait();
        float inv[kTileRows];
        for (int64_t r = 0; r < rows; ++r)
            inv[r] = exp_row_to_bf16(scores_buf + r * keys, keys, key_mask, probs + r * keys);
        p.set_data_handle(probs);
        v.set_data_handle(const_cast<void*>(v_head));
        o.set_data_handle(mixed);
        mix.execute(st, {{DNNL_ARG_SRC, p}, {DNNL_ARG_WEIGHTS, v}, {DNNL_ARG_DST, o}});
        st.wait();
        for (int64_t r = 0; r < rows; ++r)
            for (int64_t c = 0; c < hd; ++c) out[r * ld_out + c] = mixed[r * hd + c] * inv[r];
    }
};

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

const char* attention_products_name(AttentionProducts p) {
    return p == AttentionProducts::Bfloat16 ? "bf16" : "fp32";
}

void run_bf16_attention_products(int rows, int heads, int head_dim) {
    check(bf16_products_supported(), "bfloat16 attention needs a CPU with AVX512-BF16");
    const int64_t N = rows, hd = head_dim, tile = std::min<int64_t>(kTileRows, N);
    using tag = dnnl::memory::format_tag;
    const TileShape shape(tile, N, hd, dnnl::memory::desc({hd, N}, dt::bf16, tag::any),
                          dnnl::memory::desc({N, hd}, dt::bf16, tag::any));
    const std::vector<std::byte> k16(shape.scores.weights_desc().get_size()), v16(shape.mix.weights_desc().get_size());
    const int64_t tasks = (N + tile - 1) / tile * heads;
#pragma omp parallel
    {
        dnnl::stream st(onednn_cpu_engine());
        TileProducts products(shape);
        std::vector<uint16_t> q16(size_t(tile * hd)), probs(size_t(tile * N));
        std::vector<float> scores(size_t(tile * N)), mixed(size_t(tile * hd));
#pragma omp for schedule(dynamic, 1)
        for (int64_t task = 0; task < tasks; ++task) {
            products.q.set_data_handle(q16.data());
            products.k.set_data_handle(const_cast<std::byte*>(k16.data()));
            products.s.set_data_handle(scores.data());
            products.scores.execute(st, {{DNNL_ARG_SRC, products.q}, {DNNL_ARG_WEIGHTS, products.k}, {DNNL_ARG_DST, products.s}});
            products.p.set_data_handle(probs.data());
            products.v.set_data_handle(const_cast<std::byte*>(v16.data()));
            products.o.set_data_handle(mixed.data());
            products.mix.execute(st, {{DNNL_ARG_SRC, products.p}, {DNNL_ARG_WEIGHTS, products.v}, {DNNL_ARG_DST, products.o}});
            st.wait();
        }
    }
}

namespace attn_detail {

void dense_attention_rows_bf16(const AttentionInput& in, int row_begin, int row_end, const float* key_mask,
                               float* out) {
    check(bf16_products_supported(), "bfloat16 attention needs a CPU with AVX512-BF16");
    const int64_t D = int64_t(in.heads) * in.head_dim, N = in.rows, hd = in.head_dim;
    const int64_t nrows = row_end - row_begin;
    if (nrows <= 0) return;
    const int64_t tile = std::min(kTileRows, nrows), ntiles = (nrows + tile - 1) / tile;
    const int64_t last_rows = nrows - (ntiles - 1) * tile;
    const float scale = 1.0f / std::sqrt(float(hd));
    std::string failure;
    try {
        using tag = dnnl::memory::format_tag;
        const TileShape full(tile, N, hd, dnnl::memory::desc({hd, N}, dt::bf16, tag::any),
                             dnnl::memory::desc({N, hd}, dt::bf16, tag::any));
        const dnnl::memory::desc k_layout = full.scores.weights_desc(), v_layout = full.mix.weights_desc();
        const std::optional<TileShape> last =
            last_rows == tile ? std::nullopt : std::optional<TileShape>(std::in_place, last_rows, N, hd, k_layout, v_layout);
        // Each head's keys and values, converted to bf16 in those layouts (by oneDNN's reorder,
        // from the float32 columns in place).
        const size_t k_bytes = k_layout.get_size(), v_bytes = v_layout.get_size();
        // Left uninitialized (the reorders write every byte): zeroing them first cost a pass.
        const std::unique_ptr<std::byte[]> k16(new std::byte[k_bytes * size_t(in.heads)]),
            v16(new std::byte[v_bytes * size_t(in.heads)]);
        const dnnl::memory::desc k32({hd, N}, dt::f32, dnnl::memory::dims{1, D});
        const dnnl::memory::desc v32({N, hd}, dt::f32, dnnl::memory::dims{D, 1});
#pragma omp parallel
        {
            std::string error;
            try {
                dnnl::engine& e = onednn_cpu_engine();
                dnnl::stream st(e);
#pragma omp for schedule(static)
                for (int h = 0; h < in.heads; ++h) {
                    dnnl::memory ks(k32, e, const_cast<float*>(in.k + h * hd)), kd(k_layout, e, &k16[h * k_bytes]);
                    dnnl::memory vs(v32, e, const_cast<float*>(in.v + h * hd)), vd(v_layout, e, &v16[h * v_bytes]);
                    dnnl::reorder(ks, kd).execute(st, ks, kd);
                    dnnl::reorder(vs, vd).execute(st, vs, vd);
                    st.wait();
                }  // implicit barrier: every tile reads every head's keys
                std::vector<uint16_t> q16(size_t(tile * hd));
                std::vector<float> scores(size_t(tile * N)), mixed(size_t(tile * hd));
                std::vector<uint16_t> probs(size_t(tile * N));
                std::optional<TileProducts> full_products, last_products;  // made on first use
#pragma omp for schedule(dynamic, 1)
                for (int64_t task = 0; task < ntiles * in.heads; ++task) {
                    const int64_t t = task / in.heads, h = task % in.heads, r0 = row_begin + t * tile;
                    const bool is_last = last && t + 1 == ntiles;
                    const int64_t rows = is_last ? last_rows : tile;
                    std::optional<TileProducts>& products = is_last ? last_products : full_products;
                    if (!products) products.emplace(is_last ? *last : full);
                    for (int64_t r = 0; r < rows; ++r) to_bf16(in.q + (r0 + r) * D + h * hd, hd, scale, &q16[r * hd]);
                    products->run(q16.data(), &k16[h * k_bytes], &v16[h * v_bytes], key_mask, rows, N, hd,
                                  scores.data(), probs.data(), mixed.data(), out + r0 * D + h * hd, D, st);
                }
            } catch (const dnnl::error& e) {
                error = std::string("the bfloat16 attention product (oneDNN) failed: ") + e.what();
            }
            if (!error.empty()) {
#pragma omp critical(precis_bf16_attention_failure)
                failure = error;
            }
        }
    } catch (const dnnl::error& e) {
        failure = std::string("the bfloat16 attention product (oneDNN) failed: ") + e.what();
    }
    if (!failure.empty()) throw Error(failure);
}

}  // namespace attn_detail

}  // namespace precis
