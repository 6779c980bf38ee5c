// attend() for float32 queries over float32 keys and values in AVX-512 registers: a beam
// search's beams, or greedy's one query, in the decoder's cross-attention with fp32
// weights, and a few new tokens' self-attention. attend_compact_kv.cpp's 256-bit blocks are
// bound by their instructions there (eight-key dot products summed across lanes, each value
// row loaded once per query). Here the keys are read in tiles of sixteen, dimension by
// dimension, so each query's sixteen scores are plain FMAs into one register, and each value
// row is loaded once for four queries. The cross-attention keys are stored as such tiles
// (AttendArgs::k_tiles, written once per document); keys as rows (the self-attention's
// cache, small and recent) are transposed tile by tile in registers, which pays in cache
// from four queries on.
// One thread, one head of 64 over 128-1,024 keys (attend_bench in
// tools/bench/results/2026-12-02-cpu-cross-attention/, against the blocks): keys as tiles
// 1.48-1.83x from memory and 1.56-2.09x in cache for one query, 1.50-2.10x and 1.65-2.20x
// for four; keys as rows at four queries 1.13-1.39x in cache but 0.73-0.95x from memory,
// where the transposition's loads stall (the blocks read 7.6-9.3 GB/s there, tiles 12.8-17.4).
// The scores, softmax and weights are still two passes (scores_to_weights), so the key mask
// and the attention-weight sink work unchanged.
#include <immintrin.h>

#include <algorithm>

#include "engine/backend/lowp_linear.h"
#include "engine/core/simd_transpose.h"
#include "engine/model/attend.h"

namespace precis {

namespace {

constexpr int kTileKeys = int(kFloatKeyTile);
// How far ahead the keys' and the values' rows are asked for (rows; a prefetch past the
// end of the rows is dropped, never faults). Without it 4 queries from memory ran at
// 0.85-0.93x the blocks' rate, with 16/8 to 64/32 rows ahead 0.87-1.17x alike
// (sweep-prefetch.txt in the folder above).
constexpr int64_t kKeyRowsAhead = 32;
constexpr int64_t kValueRowsAhead = 16;
// Tiles asked for ahead when the keys are stored as tiles: the tile after next, whole (8 KB
// at width 64, as the rows' 32 ahead; not swept).
constexpr int64_t kTilesAhead = 2;
// Queries whose value accumulators are held in registers at once: 4 x 4 registers at
// head width 64. Wider heads take them in column slices of 64.
constexpr int kQueriesPerPass = 4;

// Keys [j0, j0 + valid) transposed into kt[hd][16] (lanes past `valid` zero): kt[c] holds
// dimension c of the tile's sixteen keys.
__attribute__((target("avx512f"))) void transpose_key_tile(const float* k, int64_t ldk, int64_t hd, int valid,
                                                           float* kt) {
    for (int64_t c0 = 0; c0 < hd; c0 += 16) {
        __m512 r[16], t[16];
        for (int i = 0; i < 16; ++i) r[i] = i < valid ? _mm512_loadu_ps(k + i * ldk + c0) : _mm512_setzero_ps();
        for (int i = 0; i < 16; ++i) _mm_prefetch(reinterpret_cast<const char*>(k + (i + kKeyRowsAhead) * ldk + c0), _MM_HINT_T0);
        transpose16_in_registers(r, t);
        for (int c = 0; c < 16; ++c) _mm512_store_ps(kt + (c0 + c) * 16, t[c]);
    }
}

// The tile kTilesAhead on from `tile` asked for, every one of its hd lines.
__attribute__((target("avx512f"))) void prefetch_key_tile(const float* tile, int64_t hd) {
    const float* ahead = tile + kTilesAhead * kTileKeys * hd;
    for (int64_t c = 0; c < hd; ++c) _mm_prefetch(reinterpret_cast<const char*>(ahead + c * kTileKeys), _MM_HINT_T0);
}

// s[i * lds + 0..valid) = scale * q_i . key for queries [0, Q) against the transposed tile.
// Two accumulators per query (even and odd dimensions) halve the FMA chain; every query's
// sums run in the same order whatever Q is, so a query's scores do not depend on which
// other queries share the call (a document batched or alone gets the same bits).
template <int Q>
__attribute__((target("avx512f"))) void tile_scores(const float* q, int64_t ldq, const float* kt, int64_t hd,
                                                    float scale, int valid, float* s, int64_t lds) {
    __m512 even[Q], odd[Q];
    for (int i = 0; i < Q; ++i) even[i] = odd[i] = _mm512_setzero_ps();
    for (int64_t c = 0; c < hd; c += 2) {
        const __m512 k0 = _mm512_load_ps(kt + c * 16), k1 = _mm512_load_ps(kt + (c + 1) * 16);
        for (int i = 0; i < Q; ++i) {
            even[i] = _mm512_fmadd_ps(_mm512_set1_ps(q[i * ldq + c]), k0, even[i]);
            odd[i] = _mm512_fmadd_ps(_mm512_set1_ps(q[i * ldq + c + 1]), k1, odd[i]);
        }
    }
    const __mmask16 lanes = __mmask16((1u << valid) - 1u);
    for (int i = 0; i < Q; ++i)
        _mm512_mask_storeu_ps(s + i * lds, lanes, _mm512_mul_ps(_mm512_add_ps(even[i], odd[i]), _mm512_set1_ps(scale)));
}

using TileScores = void (*)(const float*, int64_t, const float*, int64_t, float, int, float*, int64_t);
constexpr TileScores kTileScores[kQueriesPerPass] = {tile_scores<1>, tile_scores<2>, tile_scores<3>, tile_scores<4>};

// out_i[0..16W) = sum over keys j of w_i[j] * v[j] for queries [0, Q), W registers a query:
// each value row is loaded once for all Q queries. Summed in key order from zero, the same
// for every Q. A weight of zero (a masked key) adds zero: 0 * v, as the reference's product.
template <int Q, int W>
__attribute__((target("avx512f"))) void weighted_values(const float* w, int64_t ldw, const float* v, int64_t ldv,
                                                        int64_t keys, float* out, int64_t ldo) {
    __m512 acc[Q][W];
    for (int i = 0; i < Q; ++i)
        for (int c = 0; c < W; ++c) acc[i][c] = _mm512_setzero_ps();
    for (int64_t j = 0; j < keys; ++j) {
        __m512 row[W];
        for (int c = 0; c < W; ++c) row[c] = _mm512_loadu_ps(v + j * ldv + 16 * c);
        for (int c = 0; c < W; ++c) _mm_prefetch(reinterpret_cast<const char*>(v + (j + kValueRowsAhead) * ldv + 16 * c), _MM_HINT_T0);
        for (int i = 0; i < Q; ++i) {
            const __m512 wij = _mm512_set1_ps(w[i * ldw + j]);
            for (int c = 0; c < W; ++c) acc[i][c] = _mm512_fmadd_ps(wij, row[c], acc[i][c]);
        }
    }
    for (int i = 0; i < Q; ++i)
        for (int c = 0; c < W; ++c) _mm512_storeu_ps(out + i * ldo + 16 * c, acc[i][c]);
}

template <int Q>
void weighted_values_slice(const float* w, int64_t ldw, const float* v, int64_t ldv, int64_t keys, int width,
                           float* out, int64_t ldo) {
    switch (width / 16) {
        case 4: return weighted_values<Q, 4>(w, ldw, v, ldv, keys, out, ldo);
        case 3: return weighted_values<Q, 3>(w, ldw, v, ldv, keys, out, ldo);
        case 2: return weighted_values<Q, 2>(w, ldw, v, ldv, keys, out, ldo);
        default: return weighted_values<Q, 1>(w, ldw, v, ldv, keys, out, ldo);
    }
}

using WeightedValues = void (*)(const float*, int64_t, const float*, int64_t, int64_t, int, float*, int64_t);
constexpr WeightedValues kWeightedValues[kQueriesPerPass] = {weighted_values_slice<1>, weighted_values_slice<2>,
                                                             weighted_values_slice<3>, weighted_values_slice<4>};

}  // namespace

bool float_key_tiles_apply(int64_t hd) { return fp32_zmm_kernels() && hd % 16 == 0 && hd <= 256; }

bool attend_float_zmm(const AttendArgs& a, std::vector<float>& scratch) {
    const int64_t nq = a.nq, nk = a.nk, hd = a.hd;
    const bool tiled = a.k_tiles != nullptr;
    // Keys as rows, under four queries: the tile's transposition is paid for too few of them.
    // From memory 2 queries ran at 0.69-0.94x the blocks' rate and 3 at 0.82-0.91x (the
    // attend-bench-*-before-declining-under-four.txt files); greedy's one query stays there too.
    if (!float_key_tiles_apply(hd) || nk < 1 || (!tiled && nq < kQueriesPerPass)) return false;
    if (scratch.size() < size_t(nq * nk)) scratch.resize(size_t(nq * nk));
    float* s = scratch.data();
    alignas(64) float transposed[256 * kTileKeys];  // a tile of keys as rows, transposed: 16 KB at most

    for (int64_t j0 = 0; j0 < nk; j0 += kTileKeys) {
        const int valid = int(std::min<int64_t>(kTileKeys, nk - j0));
        const float* kt = transposed;
        if (tiled) {
            kt = a.k_tiles + j0 * hd;
            prefetch_key_tile(kt, hd);
        } else {
            transpose_key_tile(a.k + j0 * a.ldk, a.ldk, hd, valid, transposed);
        }
        for (int64_t i0 = 0; i0 < nq; i0 += kQueriesPerPass) {
            const int queries = int(std::min<int64_t>(kQueriesPerPass, nq - i0));
            kTileScores[queries - 1](a.q + i0 * a.ldq, a.ldq, kt, hd, a.scale, valid, s + i0 * nk + j0, nk);
        }
    }
    scores_to_weights(a, s);
    for (int64_t i0 = 0; i0 < nq; i0 += kQueriesPerPass) {
        const int queries = int(std::min<int64_t>(kQueriesPerPass, nq - i0));
        for (int64_t c0 = 0; c0 < hd; c0 += 64)
            kWeightedValues[queries - 1](s + i0 * nk, nk, a.v + c0, a.ldv, nk, int(std::min<int64_t>(64, hd - c0)),
                                         a.out + i0 * a.ldo + c0, a.ldo);
    }
    return true;
}

}  // namespace precis
