#include "engine/attention/fp32_block_attention.h"

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "engine/backend/lowp_linear.h"
#include "engine/core/error.h"
#include "engine/core/simd_exp.h"
#include "engine/core/simd_transpose.h"

// GCC 12's AVX-512 headers build some results from _mm512_undefined_ps() (the shuffles,
// reductions, roundscale), which -Wuninitialized reports once inlined here.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#define PRECIS_ZMM __attribute__((target("avx512f")))

namespace precis::attn_detail {

namespace {

constexpr int kQueryRows = 8;   // rows scored together: 8 rows x 32 keys, 16 accumulators
constexpr int kKeyStep = 32;    // keys per call of the score kernel
constexpr int kSumBlock = 256;  // keys per partial sum of the weighted values (a global row
                                // reads 16k keys: one FMA chain over them loses precision)

// t[c] = column c of the 16 x 16 tile src (row r at src + r * lds).
PRECIS_ZMM void transpose16(const float* src, int64_t lds, __m512 t[16]) {
    __m512 r[16];
    for (int i = 0; i < 16; ++i) r[i] = _mm512_loadu_ps(src + i * lds);
    transpose16_in_registers(r, t);
}

// The keys transposed in panels of kKeyStep: element d of key p at
// kt[(p / kKeyStep) * hd * kKeyStep + d * kKeyStep + p % kKeyStep], so the score kernel reads
// each panel front to back (a [hd, keys] matrix read down its columns strode 4 KB at 1,024
// keys, every load in the same L1 set). Columns past the last key are zero.
class KeyPanels {
public:
    KeyPanels(float* kt, int hd) : kt_(kt), hd_(hd) {}
    // Sixteen keys' elements d..d+15 (t[i] = element d + i of the sixteen), from column p.
    PRECIS_ZMM void put16(int p, int d, const __m512 t[16]) {
        const int off = p % kKeyStep;
        float* at = column(p) + int64_t(d) * kKeyStep;
        if (off <= kKeyStep - 16) {
            for (int i = 0; i < 16; ++i) _mm512_storeu_ps(at + i * kKeyStep, t[i]);
            return;
        }
        const int first = kKeyStep - off;  // columns left in this panel; the rest begin the next
        const __mmask16 here = __mmask16((1u << first) - 1), there = __mmask16((1u << (16 - first)) - 1);
        float* next = column(p + first) + int64_t(d) * kKeyStep;
        for (int i = 0; i < 16; ++i) {
            _mm512_mask_storeu_ps(at + i * kKeyStep, here, t[i]);
            _mm512_mask_storeu_ps(next + i * kKeyStep, there, _mm512_maskz_compress_ps(__mmask16(~here), t[i]));
        }
    }
    void put(int p, int d, float x) { column(p)[int64_t(d) * kKeyStep] = x; }
    float* column(int p) { return kt_ + int64_t(p / kKeyStep) * hd_ * kKeyStep + p % kKeyStep; }

private:
    float* kt_;
    int hd_;
};

// Packs the segments' keys one after another (KeyPanels), the columns up to ldk zero.
PRECIS_ZMM void pack_keys(const KeySegment* segs, int nsegs, int hd, int ldk, float* kt) {
    KeyPanels panels(kt, hd);
    int p = 0;
    for (int s = 0; s < nsegs; ++s) {
        const KeySegment& sg = segs[s];
        if (sg.count <= 0) continue;
        int j = 0;
        __m512 t[16];
        for (; j + 16 <= sg.count; j += 16)
            for (int c = 0; c < hd; c += 16) {
                transpose16(sg.k + int64_t(j) * sg.ld + c, sg.ld, t);
                panels.put16(p + j, c, t);
            }
        for (; j < sg.count; ++j)
            for (int d = 0; d < hd; ++d) panels.put(p + j, d, sg.k[int64_t(j) * sg.ld + d]);
        p += sg.count;
    }
    for (; p < ldk; ++p)
        for (int d = 0; d < hd; ++d) panels.put(p, d, 0.f);
}

// s[r * ldk + j] = scale * (q_r . k_j) + mask[j] for kQueryRows rows of qg (hd floats each)
// and every j < ldk; rmax[r] = their largest over the first `total` keys.
template <int HV>
PRECIS_ZMM void score_rows(const float* qg, const float* kt, int ldk, int total, float scale, const float* mask,
                           float* s, float* rmax) {
    constexpr int hd = 16 * HV;
    __m512 vmax[kQueryRows];
    for (__m512& m : vmax) m = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
    const __m512 vscale = _mm512_set1_ps(scale);
    for (int j0 = 0; j0 < ldk; j0 += kKeyStep) {
        __m512 acc[kQueryRows][2];
        for (auto& a : acc) a[0] = a[1] = _mm512_setzero_ps();
        const float* kp = kt + int64_t(j0) * hd;  // the panel of keys j0..j0+31
        for (int d = 0; d < hd; ++d, kp += kKeyStep) {
            const __m512 k0 = _mm512_load_ps(kp), k1 = _mm512_load_ps(kp + 16);
            for (int r = 0; r < kQueryRows; ++r) {
                const __m512 qv = _mm512_set1_ps(qg[r * hd + d]);
                acc[r][0] = _mm512_fmadd_ps(qv, k0, acc[r][0]);
                acc[r][1] = _mm512_fmadd_ps(qv, k1, acc[r][1]);
            }
        }
        for (int half = 0; half < 2; ++half) {
            const int j = j0 + 16 * half;
            const __m512 m = mask ? _mm512_loadu_ps(mask + j) : _mm512_setzero_ps();
            const int valid = total - j;  // keys of these sixteen that count for the maximum
            const __mmask16 live = valid >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << std::max(valid, 0)) - 1);
            for (int r = 0; r < kQueryRows; ++r) {
                const __m512 v = _mm512_add_ps(_mm512_mul_ps(acc[r][half], vscale), m);
                _mm512_store_ps(s + int64_t(r) * ldk + j, v);
                vmax[r] = _mm512_mask_max_ps(vmax[r], live, vmax[r], v);
            }
        }
    }
    for (int r = 0; r < kQueryRows; ++r) rmax[r] = _mm512_reduce_max_ps(vmax[r]);
}

// s[j] = exp(s[j] - m) for j < total; returns their sum.
PRECIS_ZMM float exp_row(float* s, int total, float m) {
    const __m512 vm = _mm512_set1_ps(m);
    __m512 sum = _mm512_setzero_ps();
    int j = 0;
    for (; j + 16 <= total; j += 16) {
        const __m512 e = exp_nonpositive(_mm512_sub_ps(_mm512_load_ps(s + j), vm));
        _mm512_store_ps(s + j, e);
        sum = _mm512_add_ps(sum, e);
    }
    if (j < total) {
        const __mmask16 live = __mmask16((1u << (total - j)) - 1);
        const __m512 e = _mm512_maskz_mov_ps(live, exp_nonpositive(_mm512_sub_ps(_mm512_load_ps(s + j), vm)));
        _mm512_store_ps(s + j, e);
        sum = _mm512_add_ps(sum, e);
    }
    return _mm512_reduce_add_ps(sum);
}

// The values in slices of 32 columns, each slice's keys one after another: slice c of key j
// at vp[c * ldk * 32 + j * 32]. The value pass then streams one contiguous slice, where
// the rows themselves lie a model width apart (3 KB for bart-base).
PRECIS_ZMM void pack_values(const KeySegment* segs, int nsegs, int hd, int ldk, float* vp) {
    int p = 0;
    for (int s = 0; s < nsegs; ++s) {
        const KeySegment& sg = segs[s];
        for (int j = 0; j < sg.count; ++j, ++p) {
            const float* v = sg.v + int64_t(j) * sg.ld;
            for (int c = 0; c < hd; c += 16)
                _mm512_store_ps(vp + int64_t(c / 32) * ldk * 32 + int64_t(p) * 32 + c % 32, _mm512_loadu_ps(v + c));
        }
    }
}

// out[r][c0, c0 + 16 DV) = inv[r] * sum_j p[r * ldp + j] v_j[c0, c0 + 16 DV) for n <= kQueryRows
// rows, from the slice of packed values `slice`: each value is read once for all eight rows
// (eight rows by two registers, as the score kernel), the sum taken in blocks of kSumBlock keys.
template <int DV>
PRECIS_ZMM void weigh_values(const float* p, int ldp, int n, const float* slice, int total, int c0, const float* inv,
                             float* out, int ldo) {
    __m512 sum[kQueryRows][DV], acc[kQueryRows][DV];
    for (int r = 0; r < kQueryRows; ++r)
        for (int c = 0; c < DV; ++c) sum[r][c] = acc[r][c] = _mm512_setzero_ps();
    for (int j0 = 0; j0 < total; j0 += kSumBlock) {
        const int j1 = std::min(total, j0 + kSumBlock);
        for (int j = j0; j < j1; ++j) {
            __m512 vv[DV];
            for (int c = 0; c < DV; ++c) vv[c] = _mm512_load_ps(slice + int64_t(j) * 32 + 16 * c);
            for (int r = 0; r < kQueryRows; ++r) {
                const __m512 w = _mm512_set1_ps(p[int64_t(r) * ldp + j]);
                for (int c = 0; c < DV; ++c) acc[r][c] = _mm512_fmadd_ps(w, vv[c], acc[r][c]);
            }
        }
        for (int r = 0; r < kQueryRows; ++r)
            for (int c = 0; c < DV; ++c) {
                sum[r][c] = _mm512_add_ps(sum[r][c], acc[r][c]);
                acc[r][c] = _mm512_setzero_ps();
            }
    }
    for (int r = 0; r < n; ++r)
        for (int c = 0; c < DV; ++c)
            _mm512_storeu_ps(out + int64_t(r) * ldo + c0 + 16 * c, _mm512_mul_ps(sum[r][c], _mm512_set1_ps(inv[r])));
}

// A 64-byte aligned run of n floats from v, which only grows: an LSG layer alternates a
// block of global rows over every key with blocks of a few hundred, and growing back after
// shrinking would zero megabytes per head.
float* aligned_floats(std::vector<float>& v, size_t n) {
    if (v.size() < n + 16) v.resize(n + 16);
    const uintptr_t p = reinterpret_cast<uintptr_t>(v.data());
    return reinterpret_cast<float*>((p + 63) & ~uintptr_t(63));
}

template <int HV>
PRECIS_ZMM void attend_block(const float* q, int ldq, int nq, const KeySegment* segs, int nsegs, float scale,
                             float* out, int ldo, BlockScratch& scratch, std::vector<float>* weights) {
    constexpr int hd = 16 * HV;
    int total = 0;
    bool any_mask = false;
    for (int i = 0; i < nsegs; ++i) {
        total += std::max(segs[i].count, 0);
        any_mask = any_mask || (segs[i].mask && segs[i].count > 0);
    }
    const int ldk = (total + kKeyStep - 1) / kKeyStep * kKeyStep;
    float* kt = aligned_floats(scratch.keys_t, size_t(hd) * size_t(ldk));
    pack_keys(segs, nsegs, hd, ldk, kt);
    float* vp = aligned_floats(scratch.values_t, size_t((hd + 31) / 32) * 32 * size_t(ldk));
    pack_values(segs, nsegs, hd, ldk, vp);
    float* mask = nullptr;
    if (any_mask) {  // the segments' masks in a row, 0 for the padding up to ldk
        mask = aligned_floats(scratch.mask_row, size_t(ldk));
        float* m = mask;
        for (int i = 0; i < nsegs; ++i) {
            const KeySegment& sg = segs[i];
            if (sg.count <= 0) continue;
            if (sg.mask)
                std::memcpy(m, sg.mask, sizeof(float) * size_t(sg.count));
            else
                std::fill(m, m + sg.count, 0.f);
            m += sg.count;
        }
        std::fill(m, mask + ldk, 0.f);
    }
    float* s = aligned_floats(scratch.scores, size_t(kQueryRows) * size_t(ldk));
    if (weights) weights->resize(size_t(nq) * size_t(total));
    alignas(64) float qg[kQueryRows * hd];
    float rmax[kQueryRows], inv[kQueryRows];
    for (int r0 = 0; r0 < nq; r0 += kQueryRows) {
        const int n = std::min(kQueryRows, nq - r0);
        for (int r = 0; r < kQueryRows; ++r) {  // rows past the block's last score as zeros
            if (r < n)
                std::memcpy(qg + r * hd, q + int64_t(r0 + r) * ldq, sizeof(float) * hd);
            else
                std::fill(qg + r * hd, qg + (r + 1) * hd, 0.f);
        }
        score_rows<HV>(qg, kt, ldk, total, scale, mask, s, rmax);
        for (int r = 0; r < n; ++r) inv[r] = 1.0f / exp_row(s + int64_t(r) * ldk, total, rmax[r]);
        if (weights)  // the panel's weights: those these rows are weighed with, normalized
            for (int r = 0; r < n; ++r) {
                float* w = weights->data() + int64_t(r0 + r) * total;
                for (int j = 0; j < total; ++j) w[j] = s[int64_t(r) * ldk + j] * inv[r];
            }
        for (int c0 = 0; c0 < hd; c0 += 32) {
            if (hd - c0 >= 32)
                weigh_values<2>(s, ldk, n, vp + int64_t(c0) * ldk, total, c0, inv, out + int64_t(r0) * ldo, ldo);
            else
                weigh_values<1>(s, ldk, n, vp + int64_t(c0) * ldk, total, c0, inv, out + int64_t(r0) * ldo, ldo);
        }
    }
}

}  // namespace

bool fp32_block_attention_serves(int head_dim) {
    return fp32_zmm_kernels() && head_dim > 0 && head_dim <= 64 && head_dim % 16 == 0;
}

void fp32_block_attention(const float* q, int ldq, int nq, const KeySegment* segs, int nsegs, int head_dim,
                          float scale, float* out, int ldo, BlockScratch& scratch, std::vector<float>* weights) {
    switch (head_dim) {
        case 16: return attend_block<1>(q, ldq, nq, segs, nsegs, scale, out, ldo, scratch, weights);
        case 32: return attend_block<2>(q, ldq, nq, segs, nsegs, scale, out, ldo, scratch, weights);
        case 48: return attend_block<3>(q, ldq, nq, segs, nsegs, scale, out, ldo, scratch, weights);
        case 64: return attend_block<4>(q, ldq, nq, segs, nsegs, scale, out, ldo, scratch, weights);
        default: throw Error("fp32_block_attention: head_dim " + std::to_string(head_dim) + " is not 16, 32, 48 or 64");
    }
}

}  // namespace precis::attn_detail
