#pragma once
// The encoder's attention (dense, and LSG's query blocks) with its two products in bfloat16
// and float32 sums, for runs whose linear layers are int8.
//
// Why: in an int8 run the linear layers take oneDNN's VNNI product at this CPU's integer
// peak, and the attention's float32 products (q.k^T and p.v, a third of the encoder at
// 1,024 tokens) become the larger half of what is left. On a CPU with AVX512-BF16 (AMD Zen 4,
// Intel Sapphire Rapids) oneDNN's bf16 product runs a 64-query tile over 1,024 keys in
// 79 us against 175 us for the float32 sgemm (2-core AMD EPYC, one thread per tile).
// bfloat16 keeps 8 bits of mantissa: each q, k, v and probability is rounded by at most 2^-9
// of itself, far below the int8 activations' own rounding (1/255 of each row's range) that
// produced q, k and v, so the int8 accuracy bounds hold (int8_encoder_accuracy_test,
// compute_type_parity_test). float32 runs never take this path: their parity with the
// reference is exact.
//
// Softmax sums, masks and the output stay float32; a capture (the attention panel) keeps
// the float32 products. PRECIS_INT8_ATTENTION=fp32 keeps int8 runs' attention in float32
// (to compare); CPUs without AVX512-BF16 always do. The tile itself: bf16_tile.h.
#include "engine/attention/attention.h"

namespace precis {

// The CPU runs bfloat16 products natively (AVX512-BF16).
bool bf16_products_supported();

// What an int8 run's encoder attention computes its products in: Bfloat16 where supported,
// unless PRECIS_INT8_ATTENTION=fp32 (read once).
AttentionProducts int8_attention_products();
const char* attention_products_name(AttentionProducts p);  // "fp32", "bf16"

// Whether an attention call asked for `products` runs them in bfloat16: asked for, the CPU
// has it, and no capture (the attention panel shows the float32 weights, and the output
// must be the one they explain).
bool runs_bf16_products(AttentionProducts products, const AttentionRecorder* recorder);

// Below this many rows the conversions and oneDNN's per-call costs eat the faster products
// (bart-base's 12 heads, one layer, 2 threads, float32 against bf16: 0.71 against 0.67 ms at
// 192 rows, 1.25 against 0.76 at 256, 2.73 against 1.58 at 384, 20.1 against 11.3 at 1,024),
// and float32 runs them.
inline constexpr int kBf16MinRows = 256;

// The products alone (q.k^T and p.v, on zeros) of `tasks` bf16 tiles of `queries` queries
// over `keys` keys, head_dim wide, as dense attention (lsg_blocks false) or LSG's gathered
// blocks lay them out: what `precis bench` times as the attention's share of an int8
// encoder's products. Needs bf16_products_supported().
void run_bf16_attention_products(int64_t tasks, int queries, int keys, int head_dim, bool lsg_blocks);

namespace attn_detail {
// As dense_attention_rows (attention_kernels.h), the products in bfloat16: rows
// [row_begin, row_end) of `in` over all its rows. Needs bf16_products_supported().
void dense_attention_rows_bf16(const AttentionInput& in, int row_begin, int row_end, const float* key_mask,
                               float* out);
}  // namespace attn_detail

}  // namespace precis
