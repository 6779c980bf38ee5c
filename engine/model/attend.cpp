#include "engine/model/attend.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/attention/attention_kernels.h"
#include "engine/core/simd_reduce.h"

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
    if (hd % 8 == 0 && nq <= 16) return attend_float_blocks(a, scratch);
    const bool gemv = nq == 1 && nk >= 256;
    const bool gemm = nq * nk >= 4096 && nq > 1;
    if (scratch.size() < size_t(nq * nk)) scratch.resize(size_t(nq * nk));
    float* s = scratch.data();
    // One query over many keys at a head width the blocks do not take: strided GEMVs.
    if (gemv) {
        cblas_sgemv(CblasRowMajor, CblasNoTrans, int(nk), int(hd), a.scale, a.k, int(a.ldk), a.q, 1, 0.f, s, 1);
    } else if (gemm) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(nq), int(nk), int(hd), a.scale, a.q, int(a.ldq), a.k,
                    int(a.ldk), 0.f, s, int(nk));
    } else {
        for (int64_t i = 0; i < nq; ++i) {
            const float* qi = a.q + i * a.ldq;
            for (int64_t j = 0; j < nk; ++j) s[i * nk + j] = dot_product(qi, a.k + j * a.ldk, hd) * a.scale;
        }
    }
    scores_to_weights(a, s);
    if (gemv) {
        cblas_sgemv(CblasRowMajor, CblasTrans, int(nk), int(hd), 1.f, a.v, int(a.ldv), s, 1, 0.f, a.out, 1);
    } else if (gemm) {
        for (int64_t i = 0; i < nq; ++i) std::fill(a.out + i * a.ldo, a.out + i * a.ldo + hd, 0.f);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(nq), int(hd), int(nk), 1.f, s, int(nk), a.v,
                    int(a.ldv), 0.f, a.out, int(a.ldo));
    } else {
        for (int64_t i = 0; i < nq; ++i) {
            float* oi = a.out + i * a.ldo;
            std::fill(oi, oi + hd, 0.f);
            const float* si = s + i * nk;
            for (int64_t j = 0; j < nk; ++j) {
                const float w = si[j];
                if (w == 0.f) continue;
                const float* vj = a.v + j * a.ldv;
                for (int64_t c = 0; c < hd; ++c) oi[c] += w * vj[c];
            }
        }
    }
}

}  // namespace precis
