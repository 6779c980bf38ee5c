#pragma once
// The encoder's attention hook: one object per encoder run that routes each layer's
// projected Q/K/V to full, LSG or Fovea attention (engine/attention/) with the run's
// settings, and owns what must persist across layers (the LSH projections).
#include <memory>

#include "engine/attention/attention.h"
#include "engine/model/run_options.h"

namespace precis {

class EncoderSelfAttention {
public:
    // products: what full attention's products compute in (AttentionInput::products).
    EncoderSelfAttention(const AttentionOptions& options, int heads, int head_dim,
                         AttentionProducts products = AttentionProducts::Float32);
    ~EncoderSelfAttention();

    // q, k, v, out: [rows, heads*head_dim]; rows = num_global + padded tokens.
    // key_mask: additive [rows] (global rows 0). sparse_path: LSG block path (else full).
    // batch_row: which input row this call belongs to (for the optional capture).
    void run(int layer, int batch_row, const float* q, const float* k, const float* v, int rows, int num_global,
             const float* key_mask, bool sparse_path, float* out);

private:
    AttentionOptions options_;
    int heads_, head_dim_;
    AttentionProducts products_;
    std::shared_ptr<LshProjections> lsh_;
};

}  // namespace precis
