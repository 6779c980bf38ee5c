#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "engine/core/simd_exp.h"
#include "engine/core/simd_reduce.h"
#include "engine/generate/search.h"
#include "engine/model/decoder.h"
#include "engine/model/model.h"

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

int64_t greedy_pick(float* row, int64_t V, const std::vector<int64_t>& sequence, const GenerationConfig& cfg,
                    int max_length, float* logprobs, float* logprob) {
    std::memcpy(logprobs, row, size_t(V) * sizeof(float));
    log_softmax_row(logprobs, V);
    process_scores(row, V, sequence, cfg, max_length);
    const int64_t next = std::max_element(row, row + V) - row;  // first max on ties
    *logprob = logprobs[next];
    return next;
}

GenerationResult greedy_search(const Model& model, Backend& backend, const EncoderOutput& encoded,
                               const GenerationConfig& cfg, const RunCallbacks& cb, bool keep_step_scores) {
    const int items = int(encoded.rows.size());
    const int64_t V = model.config().vocab_size;
    const int max_length = effective_max_length(cfg);
    DecoderState dec(model, backend, encoded, 1, max_length);
    GenerationResult res;
    res.sequences.assign(size_t(items), {cfg.decoder_start_token_id});
    res.sequence_scores.assign(size_t(items), 0.f);
    std::vector<char> finished(size_t(items), 0);
    std::vector<float> logits(size_t(items) * V), logprobs(static_cast<size_t>(V));
    std::vector<int64_t> last(size_t(items), cfg.decoder_start_token_id);
    const int total = max_length - 1;
    while (int(res.sequences[0].size()) < max_length) {
        cb.check_abort();
        dec.forward(last.data(), 1);
        dec.logits(logits.data());
        for (int i = 0; i < items; ++i) {
            float logprob = 0;
            const int64_t next = greedy_pick(logits.data() + int64_t(i) * V, V, res.sequences[size_t(i)], cfg,
                                             max_length, logprobs.data(), &logprob);
            const int64_t token = finished[size_t(i)] ? cfg.pad_token_id : next;
            if (!finished[size_t(i)]) res.sequence_scores[size_t(i)] += logprob;
            res.sequences[size_t(i)].push_back(token);
            last[size_t(i)] = token;
            if (token == cfg.eos_token_id) finished[size_t(i)] = 1;
        }
        if (keep_step_scores) res.step_scores.push_back(Tensor::from_floats({items, V}, logits));
        ++res.steps;
        for (int i = 0; i < items; ++i)
            if (cb.on_tokens) cb.on_tokens(i, res.sequences[size_t(i)]);
        cb.report(RunStage::Generating, res.steps, total);
        if (std::all_of(finished.begin(), finished.end(), [](char f) { return f != 0; })) break;
    }
    return res;
}

}  // namespace precis
