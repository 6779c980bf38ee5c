// One greedy step of one row on the CPU (log-softmax, the logits processors, the first best
// token); the greedy loops (stepped_search.h, document_batch.h) call it per row.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "engine/core/simd_exp.h"
#include "engine/core/simd_reduce.h"
#include "engine/generate/search.h"

namespace precis {

namespace {

float row_max(const float* x, int64_t n) {
    __m256 mv = _mm256_set1_ps(-std::numeric_limits<float>::infinity());
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) mv = _mm256_max_ps(mv, _mm256_loadu_ps(x + i));
    float m = horizontal_max(mv);
    for (; i < n; ++i) m = std::max(m, x[i]);
    return m;
}

}  // namespace

// Once per generated token per beam over the whole vocabulary (50k): eight lanes of exp
// at a time, summed in double as the scalar version was.
void log_softmax_row(float* x, int64_t n) {
    const float m = row_max(x, n);
    const __m256 mv = _mm256_set1_ps(m);
    __m256d sum_lo = _mm256_setzero_pd(), sum_hi = _mm256_setzero_pd();
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 e = exp_nonpositive(_mm256_sub_ps(_mm256_loadu_ps(x + i), mv));
        sum_lo = _mm256_add_pd(sum_lo, _mm256_cvtps_pd(_mm256_castps256_ps128(e)));
        sum_hi = _mm256_add_pd(sum_hi, _mm256_cvtps_pd(_mm256_extractf128_ps(e, 1)));
    }
    alignas(32) double lanes[4];
    _mm256_store_pd(lanes, _mm256_add_pd(sum_lo, sum_hi));
    double sum = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
    for (; i < n; ++i) sum += std::exp(double(x[i]) - m);
    const float lse = m + float(std::log(sum));
    const __m256 lv = _mm256_set1_ps(lse);
    for (i = 0; i + 8 <= n; i += 8) _mm256_storeu_ps(x + i, _mm256_sub_ps(_mm256_loadu_ps(x + i), lv));
    for (; i < n; ++i) x[i] -= lse;
}

int64_t greedy_pick(float* row, int64_t V, const std::vector<int64_t>& sequence, const StepRules& rules,
                    float* logprobs, float* logprob) {
    std::memcpy(logprobs, row, size_t(V) * sizeof(float));
    log_softmax_row(logprobs, V);
    process_scores(row, V, sequence, rules);
    const int64_t next = std::max_element(row, row + V) - row;  // first max on ties
    *logprob = logprobs[next];
    return next;
}

}  // namespace precis
