#pragma once
// Scaled dot-product attention of a few query rows over a run of key rows, one head
// at a time, used by the decoder (self-attention over its cache, cross-attention over
// the encoder output). The encoder's own attention variants live in engine/attention/.
#include <cstdint>
#include <vector>

namespace precis {

// Keys to a tile where AttendArgs::k_tiles holds them.
constexpr int64_t kFloatKeyTile = 16;

struct AttendArgs {
    const float* q; int64_t ldq;  // [nq, hd] for this head, rows ldq apart
    const float* k; int64_t ldk;  // [nk, hd]
    const float* v; int64_t ldv;  // [nk, hd]
    // Keys and values held as IEEE half instead (k and v null), same strides in elements:
    // the decoder's cross-attention memory when the weights are fp16.
    const uint16_t* k16 = nullptr;
    const uint16_t* v16 = nullptr;
    // Or as int8 with one float scale per key / value row (row j ~= k8[j, :] * k8_scales[j]):
    // the cross-attention memory when the weights are int8.
    const int8_t* k8 = nullptr;
    const int8_t* v8 = nullptr;
    const float* k8_scales = nullptr;
    const float* v8_scales = nullptr;
    // Or float32 keys in tiles of sixteen (k null; v float32 rows as usual): keys [16t, 16t +
    // 16) are [hd][16] at k_tiles + 16 * t * hd, dimension by dimension, the lanes past nk
    // zero. The decoder's fp32 cross-attention keys where float_key_tiles_apply(hd)
    // (cross_memory.h), so that a step's queries multiply them without transposing them.
    const float* k_tiles = nullptr;
    int64_t nq, nk, hd;
    float scale = 1.f;              // applied to q.k
    const float* key_mask = nullptr;  // additive [nk] or null
    int64_t causal_offset = -1;     // >= 0: query i sees keys [0, causal_offset + i]
    float* out; int64_t ldo;        // [nq, hd]
    float* weight_sink = nullptr;   // optional [nk]: the softmax weights, summed over queries, are added here
};

// `scratch` grows to nq * nk floats as needed and is reused between calls.
void attend(const AttendArgs& a, std::vector<float>& scratch);
// attend() for k16 / v16 and for k8 / v8 (called by attend when they are set), and for a
// decoding step's few float queries (a block of keys at a time).
void attend_float_blocks(const AttendArgs& a, std::vector<float>& scratch);
void attend_half_kv(const AttendArgs& a, std::vector<float>& scratch);
void attend_int8_kv(const AttendArgs& a, std::vector<float>& scratch);
// attend_float_blocks in AVX-512 registers (attend_float_zmm.cpp), for keys as rows or as
// k_tiles; false, having done nothing, where it does not apply (!float_key_tiles_apply(hd),
// or keys as rows and under four queries).
bool attend_float_zmm(const AttendArgs& a, std::vector<float>& scratch);
// Whether attend_float_zmm serves head width hd (AVX-512F without PRECIS_NO_ZMM, hd a
// multiple of 16 up to 256): where it does, the fp32 cross-attention keys are stored as tiles.
bool float_key_tiles_apply(int64_t hd);
// attend_int8_kv's integer arithmetic (attend_int8_kv.cpp); false, having done nothing,
// where it does not apply (hd not a multiple of 16 or over 256, over 64 queries, a query
// that is not finite), and attend_int8_kv then widens the rows to float.
bool attend_int8_kv_integer(const AttendArgs& a, std::vector<float>& scratch);
// Raw scores s[nq, nk] (scaled q.k) to attention weights in place: the causal and key
// masks, softmax per row, and the weights added to a.weight_sink if set.
void scores_to_weights(const AttendArgs& a, float* s);

}  // namespace precis
