#pragma once
// What one decoder step reads besides the weights and the caches, planned once for both
// decoders: BART's learned positions start at row 2 of the table (kPositionOffset), so a
// token at cache length L sits at position row 2 + L on the CPU (DecoderState) and on the
// GPU; the GPU's captured step graph reads the new tokens and the cache length from one
// host-to-device copy, laid out by stage_step_inputs.
#include <cstdint>

namespace precis {

inline constexpr int kPositionOffset = 2;  // BartLearnedPositionalEmbedding's offset

// out[0..n) = tokens narrowed to int32, each checked against the vocabulary; out[n] = length,
// the cache length before the step. out holds n + 1 values.
void stage_step_inputs(const int64_t* tokens, int64_t n, int64_t vocab, int length, int32_t* out);

}  // namespace precis
