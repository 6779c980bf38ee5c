#pragma once
// One encoder self-attention per layer on the device, for the three attention kinds, built on
// build_sparse_keys / build_fovea_nodes / plan_attention.
//
// Contract:
//  * prepare() once per input (per padded length): checks the settings, builds and uploads the
//    plan and sizes the scratch (sparse keys or Fovea nodes). It synchronizes `stream` once.
//  * run() once per layer: q, k, v are the projected rows [G+T, heads*head_dim] (row stride
//    heads*head_dim, biases added, q not pre-scaled) in the prepared precision; key_mask is the
//    float32 additive mask of all G+T rows (0 for the globals: lsg-spec.md 3); lsh_r is the
//    layer's projections (pre-rounds then the final round, as SparseKeysArgs::lsh_r) or null
//    unless the type is lsh with f != SB; out is [G+T, heads*head_dim]. Asynchronous on the
//    prepared stream; scratch is reused, so runs on one object must not overlap.
//  * Full (plain BART, G == 0 allowed) and the short LSG case (T <= 2B) are full attention of
//    all G+T rows over all G+T keys with the key mask; LSG with T > 2B takes the sparse path.
#include <cuda_runtime.h>

#include <vector>

#include "engine/attention/attention_plan.h"
#include "engine/config/config.h"
#include "kernels/device_buffer.h"
#include "kernels/ops/cross_attention.h"
#include "kernels/ops/plan_attention.h"
#include "kernels/ops/precision.h"

namespace precis {
class LshProjections;
}

namespace precis::cuda {

class SpanTimer;

struct EncoderAttentionSettings {
    ::precis::EncoderAttention kind = ::precis::EncoderAttention::Full;
    LsgSettings lsg;
    FoveaSettings fovea;
};

// Timers for the parts of run() (precis-attention-bench); null parts are not timed.
struct AttentionSpans {
    SpanTimer* sparse_keys = nullptr;   // the sparse keys or Fovea nodes
    SpanTimer* token_blocks = nullptr;  // plan_attention over the token blocks
    SpanTimer* global_rows = nullptr;   // the global queries over every key
};

// Whether an LSG layer draws LSH projections (lsh with f different from 1 and from SB).
bool draws_lsh_projections(const EncoderAttentionSettings& s);

// The LSH projections of one layer, every round in order (pre-rounds, then the final round),
// as the CPU draws them: the same generator and call index, so a seeded run hashes alike on
// both backends. The layout SparseKeysArgs::lsh_r reads.
std::vector<float> lsh_projections_of_layer(LshProjections& lsh, const LsgSettings& s, int layer, int heads, int hd);

class DeviceSelfAttention {
public:
    void prepare(const EncoderAttentionSettings& s, int G, int T, int heads, int head_dim, Precision p,
                 cudaStream_t stream);
    void run(const void* q, const void* k, const void* v, const float* key_mask, const float* lsh_r, void* out);

    void time_spans(const AttentionSpans& spans) { spans_ = spans; }

    const DevicePlan& plan() const { return plan_; }
    const AttentionPlan& host_plan() const { return host_plan_; }  // what plan() holds
    bool sparse_path() const { return mode_ == Mode::LsgSparse; }

private:
    enum class Mode { Full, LsgSparse, Fovea };
    Mode mode_ = Mode::Full;
    EncoderAttentionSettings s_;
    int G_ = 0, T_ = 0, heads_ = 0, hd_ = 0, levels_ = 0, node_rows_ = 0;
    Precision p_ = Precision::F32;
    cudaStream_t stream_ = nullptr;
    bool prepared_ = false;
    DevicePlan plan_;
    AttentionPlan host_plan_;
    AttentionSpans spans_;
    DeviceBuffer k2_, v2_, mask2_;  // sparse keys [heads, T/f, hd] or Fovea nodes [rows, D], float32
    DeviceBuffer global_offsets_;   // {0, G+T}: the global queries' one "memory"
    MemoryAttention global_rows_;
};

}  // namespace precis::cuda
