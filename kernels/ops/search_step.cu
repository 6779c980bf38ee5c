#include "kernels/ops/search_step.h"

#include <climits>
#include <cmath>
#include <cstdint>
#include <string>

#include "engine/core/error.h"
#include "engine/generate/logits_processors.h"
#include "kernels/cuda_check.h"

namespace precis::cuda {

namespace {

constexpr int kRowThreads = 512;

template <class V, class Op>
__device__ V block_reduce(V x, Op op, V* shared) {  // shared: 32 slots; result in every thread
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = (blockDim.x + 31) >> 5;
    for (int o = 16; o > 0; o >>= 1) x = op(x, __shfl_xor_sync(0xffffffffu, x, o));
    __syncthreads();  // shared may still be read from a previous reduction
    if (lane == 0) shared[warp] = x;
    __syncthreads();
    x = shared[0];
    for (int w = 1; w < warps; ++w) x = op(x, shared[w]);  // same order in every thread
    return x;
}

// One CTA per row, the CPU's order: log_softmax_row, then process_scores (n-gram bans, min
// length, forced BOS, forced EOS), then the beam score. Banned entries are -inf, and
// -inf + beam score stays -inf, so adding the beam score before the bans gives the same row.
// The row's log-sum-exp, as log_softmax_row: float exponentials summed in double.
__device__ float row_log_sum_exp(const float* x, int64_t vocab, float* fshared, double* dshared) {
    float m = -INFINITY;
    for (int64_t t = threadIdx.x; t < vocab; t += blockDim.x) m = fmaxf(m, x[t]);
    m = block_reduce(m, [](float a, float c) { return fmaxf(a, c); }, fshared);
    double sum = 0.0;
    for (int64_t t = threadIdx.x; t < vocab; t += blockDim.x) sum += double(expf(x[t] - m));
    sum = block_reduce(sum, [](double a, double c) { return a + c; }, dshared);
    return m + float(log(sum));
}

__global__ void log_softmax_process_kernel(float* scores, int64_t vocab, const int32_t* history, int history_stride,
                                           const float* beam_scores, const RowRules* row_rules,
                                           float* forced_logprob, float* greedy_lse) {
    __shared__ float fshared[32];
    __shared__ double dshared[32];
    const int64_t row = blockIdx.x;
    const RowRules rules = row_rules[row];
    float* x = scores + row * vocab;
    const bool add_beam = beam_scores != nullptr;
    const float b = add_beam ? beam_scores[row] : 0.f;
    if (rules.forced_token >= 0) {  // the CPU's force_token overwrites the whole row
        if (forced_logprob) {
            // What the forced token scored before the row was overwritten: the greedy
            // search counts it (the CPU's greedy_pick takes its log-probability first).
            const float lse = row_log_sum_exp(x, vocab, fshared, dshared);
            if (threadIdx.x == 0) forced_logprob[row] = x[rules.forced_token] - lse;
            __syncthreads();  // read before any thread overwrites it
        }
        for (int64_t t = threadIdx.x; t < vocab; t += blockDim.x) {
            const float s = t == rules.forced_token ? 0.f : -INFINITY;
            x[t] = add_beam ? s + b : s;
        }
        if (greedy_lse && threadIdx.x == 0) greedy_lse[row] = 0.f;  // the forced token's 0 stays 0
        return;
    }
    const float lse = row_log_sum_exp(x, vocab, fshared, dshared);
    if (greedy_lse) {  // the row stays logits (search_step.h)
        if (threadIdx.x == 0) greedy_lse[row] = lse;
    } else {
        for (int64_t t = threadIdx.x; t < vocab; t += blockDim.x) {
            const float s = x[t] - lse;
            x[t] = add_beam ? s + b : s;
        }
    }
    __syncthreads();  // the bans below write entries other threads just wrote
    const int n = rules.no_repeat_ngram, len = rules.cur_len;
    if (n > 0 && len + 1 >= n) {
        const int32_t* seq = history + row * int64_t(history_stride);
        const int prefix = len - (n - 1);  // the n-1 latest tokens a new token would extend
        for (int start = threadIdx.x; start + n <= len; start += blockDim.x) {
            bool match = true;
            for (int i = 0; i < n - 1 && match; ++i) match = seq[start + i] == seq[prefix + i];
            const int32_t tok = seq[start + n - 1];
            if (match && tok >= 0 && tok < vocab) x[tok] = -INFINITY;  // same value from any thread
        }
    }
    if (threadIdx.x == 0 && rules.min_length > 0 && len < rules.min_length && rules.eos_token_id >= 0 &&
        rules.eos_token_id < vocab)
        x[rules.eos_token_id] = -INFINITY;
}

// ---- top-k ----
// Each pass reduces segments of up to kChunk candidates to their k best (value descending,
// index ascending on ties: a strict total order on (value, index) pairs, so the result is
// unique and equals the CPU partial_sort's). The first pass reads the scores; later passes
// read the previous pass's candidates, until one segment per group is left.
constexpr int kTopkThreads = 256;
constexpr int kItems = 16;
constexpr int64_t kChunk = int64_t(kTopkThreads) * kItems;
constexpr int64_t kNone = INT64_MAX;  // padding: (-inf, kNone) ranks after every real entry

__device__ __forceinline__ bool better(float va, int64_t ia, float vb, int64_t ib) {
    return va > vb || (va == vb && ia < ib);
}

__device__ __forceinline__ void warp_best(float& v, int64_t& i) {
    for (int o = 16; o > 0; o >>= 1) {
        const float ov = __shfl_xor_sync(0xffffffffu, v, o);
        const long long oi = __shfl_xor_sync(0xffffffffu, static_cast<long long>(i), o);
        if (better(ov, oi, v, i)) {
            v = ov;
            i = oi;
        }
    }
}

// A NaN score is read as +infinity (search_step.h): the best, never a comparison that is
// false both ways.
__global__ void topk_pass_kernel(const float* in_v, const int64_t* in_i, int64_t n, int segs, int k, float* out_v,
                                 int64_t* out_i) {
    constexpr int kWarps = kTopkThreads / 32;
    __shared__ float wv[kWarps];
    __shared__ int64_t wi[kWarps];
    __shared__ float best_v;
    __shared__ int64_t best_i;
    const int g = blockIdx.x / segs, s = blockIdx.x % segs;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int64_t begin = int64_t(s) * kChunk;
    const int64_t len = n - begin < kChunk ? n - begin : kChunk;
    const float* gv = in_v + int64_t(g) * n + begin;
    const int64_t* gi = in_i ? in_i + int64_t(g) * n + begin : nullptr;
    float v[kItems];
    int64_t id[kItems];
#pragma unroll
    for (int t = 0; t < kItems; ++t) {
        const int64_t p = int64_t(t) * kTopkThreads + threadIdx.x;
        v[t] = p < len ? gv[p] : -INFINITY;
        if (isnan(v[t])) v[t] = INFINITY;
        id[t] = p < len ? (gi ? gi[p] : begin + p) : kNone;
    }
    // Round r selects the best pair strictly after the one selected in round r - 1.
    float last_v = INFINITY;
    int64_t last_i = -1;
    float* ov = out_v + int64_t(blockIdx.x) * k;
    int64_t* oi = out_i + int64_t(blockIdx.x) * k;
    for (int r = 0; r < k; ++r) {
        float bv = -INFINITY;
        int64_t bi = kNone;
#pragma unroll
        for (int t = 0; t < kItems; ++t)
            if (better(last_v, last_i, v[t], id[t]) && better(v[t], id[t], bv, bi)) {
                bv = v[t];
                bi = id[t];
            }
        warp_best(bv, bi);
        if (lane == 0) {
            wv[warp] = bv;
            wi[warp] = bi;
        }
        __syncthreads();
        if (warp == 0) {
            bv = lane < kWarps ? wv[lane] : -INFINITY;
            bi = lane < kWarps ? wi[lane] : kNone;
            warp_best(bv, bi);
            if (lane == 0) {
                best_v = bv;
                best_i = bi;
                ov[r] = bv;
                oi[r] = bi;
            }
        }
        __syncthreads();
        last_v = best_v;
        last_i = best_i;
    }
}

int64_t segments(int64_t n) { return (n + kChunk - 1) / kChunk; }

// Bytes of one ping-pong buffer: the first pass's candidates, indices then values.
size_t pass_buffer_bytes(int groups, int64_t group_len, int k) {
    const size_t pairs = size_t(groups) * size_t(segments(group_len)) * size_t(k);
    return (pairs * (sizeof(int64_t) + sizeof(float)) + 255) / 256 * 256;
}

}  // namespace

RowRules row_rules(const StepRules& rules, int64_t vocab, int history_stride) {
    check(vocab > 0, "log_softmax_process: vocab must be positive");
    check(rules.cur_len >= 1, "log_softmax_process: cur_len must be at least 1");
    check(rules.no_repeat_ngram >= 0, "log_softmax_process: no_repeat_ngram must be non-negative");
    if (rules.no_repeat_ngram > 0)
        check(history_stride >= rules.cur_len,
              "log_softmax_process: the n-gram rule needs a history of cur_len tokens per row");
    // The CPU would write out of its row for these; refuse them instead.
    check(rules.forced_bos_token_id < vocab && rules.forced_eos_token_id < vocab,
          "log_softmax_process: a forced token id is outside the vocabulary");
    // The CPU's own rule for which token is forced (engine/generate/logits_processors.h).
    return RowRules{rules.cur_len, rules.min_length, rules.no_repeat_ngram, rules.eos_token_id,
                    forced_token_at(rules.forced_bos_token_id, rules.forced_eos_token_id, rules.cur_len,
                                    rules.max_length)};
}

void log_softmax_process(float* scores, int rows, int64_t vocab, const int32_t* history, int history_stride,
                         const float* beam_scores, const RowRules* rules, cudaStream_t stream, float* forced_logprob,
                         float* greedy_lse) {
    check(scores != nullptr && rules != nullptr, "log_softmax_process: null scores or rules");
    check(!(greedy_lse && beam_scores), "log_softmax_process: greedy rows take no beam scores");
    check(rows >= 0 && vocab > 0, "log_softmax_process: rows must be non-negative and vocab positive");
    check(history != nullptr && history_stride >= 1,
          "log_softmax_process: each row's history is needed (its rules are read on the device)");
    if (rows == 0) return;
    log_softmax_process_kernel<<<unsigned(rows), kRowThreads, 0, stream>>>(scores, vocab, history, history_stride,
                                                                          beam_scores, rules, forced_logprob, greedy_lse);
    PRECIS_CUDA_LAUNCHED();
}

namespace {
__global__ void subtract_per_row_kernel(float* values, const float* per_row, int rows) {
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) values[r] -= per_row[r];
}
}  // namespace

void to_log_probabilities(float* values, const float* log_sum_exp, int rows, cudaStream_t stream) {
    check(rows >= 0, "to_log_probabilities: rows must be non-negative");
    if (rows == 0) return;
    check(values && log_sum_exp, "to_log_probabilities: null device pointer");
    subtract_per_row_kernel<<<unsigned((rows + 255) / 256), 256, 0, stream>>>(values, log_sum_exp, rows);
    PRECIS_CUDA_LAUNCHED();
}

size_t topk_scratch_bytes(int groups, int64_t group_len, int k) {
    if (groups <= 0 || k <= 0 || segments(group_len) <= 1) return 0;
    return 2 * pass_buffer_bytes(groups, group_len, k);
}

void top_k(const float* scores, int groups, int64_t group_len, int k, float* out_values, int64_t* out_indices,
           void* scratch, cudaStream_t stream) {
    check(scores && out_values && out_indices, "top_k: null device pointer");
    check(groups >= 0, "top_k: groups must be non-negative");
    if (k < 1 || k > kMaxTopK) throw Error("top_k: k must be in [1, " + std::to_string(kMaxTopK) + "]");  // once a step
    check(group_len >= k, "top_k: a group has fewer than k scores");
    const size_t need = topk_scratch_bytes(groups, group_len, k);
    check(need == 0 || scratch != nullptr, "top_k: scratch is needed (topk_scratch_bytes)");
    check(int64_t(groups) * segments(group_len) <= INT_MAX, "top_k: too many groups");
    if (groups == 0) return;
    const size_t half = need / 2;
    const float* in_v = scores;
    const int64_t* in_i = nullptr;  // first pass: the index is the position in the group
    int64_t n = group_len;
    for (int buf = 0;; buf ^= 1) {
        const int64_t segs = segments(n);
        float* ov = out_values;
        int64_t* oi = out_indices;
        if (segs > 1) {  // candidates go to a ping-pong buffer: [groups, segs, k] pairs
            char* base = static_cast<char*>(scratch) + buf * half;
            oi = reinterpret_cast<int64_t*>(base);
            ov = reinterpret_cast<float*>(base + size_t(groups) * size_t(segs) * size_t(k) * sizeof(int64_t));
        }
        topk_pass_kernel<<<unsigned(groups * segs), kTopkThreads, 0, stream>>>(in_v, in_i, n, int(segs), k, ov, oi);
        PRECIS_CUDA_LAUNCHED();
        if (segs == 1) break;
        in_v = ov;
        in_i = oi;
        n = segs * k;  // smaller than n, since kChunk > k: later passes fit the first's buffer
    }
}

}  // namespace precis::cuda
