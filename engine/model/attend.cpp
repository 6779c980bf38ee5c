#include "engine/model/attend.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/attention/attention_kernels.h"
#include "engine/backend/sgemm.h"

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

void attend(const AttendArgs& a, std::vector<float>& scratch) {
    const int64_t nq = a.nq, nk = a.nk, hd = a.hd;
    if (a.k16) return attend_half_kv(a, scratch);
    if (a.k8) return attend_int8_kv(a, scratch);
    // A decoding step's few queries (greedy's one, a beam search's beams, a row's
    // self-attention over its cache): a block of keys at a time, each key and value row
    // read once for all of them (attend_compact_kv.cpp). The plain loops this replaced
    // walked value rows through memory once per query (a seventh of an fp32 beam step at
    // 512 tokens); OpenBLAS's strided sgemv / sgemm ran an fp32 step's cross-attention over
    // 16k LSG tokens 15-20 % slower (greedy and beam-4, alternated runs).
    if (nq <= 16 || nq * nk < 4096) {
        if (attend_float_zmm(a, scratch)) return;
        return attend_float_blocks(a, scratch);
    }
    // Many queries (a forced prefix, a whole target at once): two matrix products.
    if (scratch.size() < size_t(nq * nk)) scratch.resize(size_t(nq * nk));
    float* s = scratch.data();
    sgemm(true, nq, nk, hd, a.scale, a.q, a.ldq, a.k, a.ldk, 0.f, s, nk);
    scores_to_weights(a, s);
    sgemm(false, nq, hd, nk, 1.f, s, nk, a.v, a.ldv, 0.f, a.out, a.ldo);
}

}  // namespace precis
