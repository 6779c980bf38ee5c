#include "engine/model/attend.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/attention/attention_kernels.h"
#include "engine/backend/sgemm.h"
#include "engine/core/error.h"

namespace precis {

void scores_to_weights(const AttendArgs& a, float* s) {
    const float lowest = std::numeric_limits<float>::lowest();
    for (int64_t i = 0; i < a.nq; ++i) {
        float* si = s + i * a.nk;
        if (a.causal_offset >= 0)
            for (int64_t j = a.causal_offset + i + 1; j < a.nk; ++j) si[j] = lowest;
        attn_detail::softmax_rows(si, 1, int(a.nk), int(a.nk), a.key_mask);
        if (a.weight_sink)
            for (int64_t j = 0; j < a.nk; ++j) a.weight_sink[j] += si[j];
    }
}

namespace {

// Keys [0, nk) of k_tiles back as rows [nk, hd], for the two matrix products of many queries.
void untile_keys(const AttendArgs& a, std::vector<float>& rows) {
    if (rows.size() < size_t(a.nk * a.hd)) rows.resize(size_t(a.nk * a.hd));
    for (int64_t j = 0; j < a.nk; ++j) {
        const float* tile = a.k_tiles + (j / kFloatKeyTile) * kFloatKeyTile * a.hd;
        for (int64_t c = 0; c < a.hd; ++c) rows[size_t(j * a.hd + c)] = tile[c * kFloatKeyTile + j % kFloatKeyTile];
    }
}

}  // namespace

void attend(const AttendArgs& a, std::vector<float>& scratch) {
    const int64_t nq = a.nq, nk = a.nk, hd = a.hd;
    if (a.k16) return attend_half_kv(a, scratch);
    if (a.k8) return attend_int8_kv(a, scratch);
    const bool many_queries = nq > 16 && nq * nk >= 4096;  // a forced prefix, a whole target at once
    if (a.k_tiles) {
        // The fp32 cross-attention keys (cross_memory.h), stored only where attend_float_zmm
        // reads them; many queries take the matrix products below, over the keys as rows.
        if (!many_queries) {
            check(attend_float_zmm(a, scratch), "attention keys stored as tiles on a CPU that cannot read them");
            return;
        }
        thread_local std::vector<float> rows;
        untile_keys(a, rows);
        AttendArgs as_rows = a;
        as_rows.k_tiles = nullptr;
        as_rows.k = rows.data();
        as_rows.ldk = hd;
        return attend(as_rows, scratch);
    }
    // A decoding step's few queries (greedy's one, a beam search's beams, a row's
    // self-attention over its cache): a block of keys at a time, each key and value row
    // read once for all of them (attend_compact_kv.cpp). The plain loops this replaced
    // walked value rows through memory once per query (a seventh of an fp32 beam step at
    // 512 tokens); OpenBLAS's strided sgemv / sgemm ran an fp32 step's cross-attention over
    // 16k LSG tokens 15-20 % slower (greedy and beam-4, alternated runs).
    if (!many_queries) {
        if (attend_float_zmm(a, scratch)) return;
        return attend_float_blocks(a, scratch);
    }
    // Many queries: two matrix products.
    if (scratch.size() < size_t(nq * nk)) scratch.resize(size_t(nq * nk));
    float* s = scratch.data();
    sgemm(true, nq, nk, hd, a.scale, a.q, a.ldq, a.k, a.ldk, 0.f, s, nk);
    scores_to_weights(a, s);
    sgemm(false, nq, hd, nk, 1.f, s, nk, a.v, a.ldv, 0.f, a.out, a.ldo);
}

}  // namespace precis
