#pragma once
// What one decoder step reads besides the weights and the caches, planned once for both
// decoders: BART's learned positions start at row 2 of the table (kPositionOffset), so a
// token at cache length L sits at position row 2 + L on the CPU (DecoderState) and on the
// GPU; the GPU's captured step graph reads the new tokens and every row's cache length from
// one host-to-device copy, laid out by stage_step_inputs.
#include <cstdint>

namespace precis {

class DecoderSlots;

inline constexpr int kPositionOffset = 2;  // BartLearnedPositionalEmbedding's offset

// out[0, n) = tokens narrowed to int32, each checked against the vocabulary; then
// out[n, n + slots.rows()) = each row's cache length before the step (decoder_slots.h).
// out holds n + slots.rows() values.
void stage_step_inputs(const int64_t* tokens, int64_t n, int64_t vocab, const DecoderSlots& slots, int32_t* out);

}  // namespace precis
