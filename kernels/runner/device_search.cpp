#include "kernels/runner/device_search.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "engine/generate/beam_book.h"
#include "engine/generate/logits_processors.h"
#include "engine/model/model.h"
#include "kernels/device_buffer.h"
#include "kernels/ops/search_step.h"
#include "kernels/runner/device_decoder.h"
#include "kernels/span_timer.h"

namespace precis::cuda {

namespace {

StepRules rules_for(const GenerationConfig& cfg, int cur_len, int max_length) {
    StepRules r;
    r.cur_len = cur_len;
    r.max_length = max_length;
    r.min_length = cfg.min_length;
    r.no_repeat_ngram = cfg.no_repeat_ngram_size;
    r.eos_token_id = cfg.eos_token_id;
    r.forced_bos_token_id = cfg.forced_bos_token_id;
    r.forced_eos_token_id = cfg.forced_eos_token_id;
    return r;
}

// The token histories the n-gram rule reads, [rows, max_length] int32 on the device. Only
// the rows' tokens so far are sent each step (a few kilobytes), not the scores, from pinned
// memory (rewritten only after the search has synchronized on the previous step).
class DeviceHistory {
public:
    DeviceHistory(int rows, int max_length, cudaStream_t stream)
        : rows_(rows), stride_(max_length), stream_(stream), count_(size_t(rows) * size_t(max_length)),
          host_(count_ * sizeof(int32_t)), device_(count_ * sizeof(int32_t)) {
        std::fill_n(host_.as<int32_t>(), count_, 0);
    }

    const int32_t* upload(const std::vector<std::vector<int64_t>>& seqs) {
        int32_t* h = host_.as<int32_t>();
        size_t used = 0;  // the longest history so far: the rest of each row is not read
        for (int r = 0; r < rows_; ++r) {
            const size_t len = std::min(seqs[size_t(r)].size(), size_t(stride_));
            for (size_t i = 0; i < len; ++i) h[size_t(r) * size_t(stride_) + i] = int32_t(seqs[size_t(r)][i]);
            used = std::max(used, size_t(r) * size_t(stride_) + len);
        }
        PRECIS_CUDA_CHECK(
            cudaMemcpyAsync(device_.get(), h, used * sizeof(int32_t), cudaMemcpyHostToDevice, stream_));
        return device_.as<int32_t>();
    }
    int stride() const { return stride_; }

private:
    int rows_, stride_;
    cudaStream_t stream_;
    size_t count_;
    PinnedBuffer host_;
    DeviceBuffer device_;
};

}  // namespace

GenerationResult device_greedy_search(const SearchContext& ctx, DeviceDecoder& dec, int items) {
    const GenerationConfig& cfg = ctx.cfg;
    const int64_t V = ctx.model.config().vocab_size;
    const int max_length = effective_max_length(cfg);
    cudaStream_t stream = ctx.stream;
    GenerationResult res;
    res.sequences.assign(size_t(items), {cfg.decoder_start_token_id});
    res.sequence_scores.assign(size_t(items), 0.f);
    std::vector<char> finished(size_t(items), 0);
    std::vector<int64_t> last(size_t(items), cfg.decoder_start_token_id);
    DeviceHistory history(items, max_length, stream);
    DeviceBuffer best_value(size_t(items) * sizeof(float)), best_index(size_t(items) * sizeof(int64_t));
    DeviceBuffer forced_logprob(size_t(items) * sizeof(float));
    DeviceBuffer scratch(topk_scratch_bytes(items, V, 1));
    PinnedBuffer picked(size_t(items) * (sizeof(float) + sizeof(int64_t)));  // values, then indices
    float* values = picked.as<float>();
    int64_t* indices = reinterpret_cast<int64_t*>(picked.as<char>() + size_t(items) * sizeof(float));
    const int total = max_length - 1;
    while (int(res.sequences[0].size()) < max_length) {
        ctx.callbacks.check_abort();
        std::optional<TimedSpan> step(std::in_place, ctx.step_time, stream);
        {
            TimedSpan layers(ctx.layers_time, stream);
            dec.forward(last.data(), 1);
        }
        float* scores = const_cast<float*>(dec.logits());
        const int cur_len = int(res.sequences[0].size());
        const bool forced = log_softmax_process(scores, items, V, history.upload(res.sequences), history.stride(),
                                                nullptr, rules_for(cfg, cur_len, max_length), stream,
                                                forced_logprob.as<float>());
        // log-softmax shifts a row by a constant, so its first maximum is the processed
        // logits' first maximum, the token the CPU's greedy search picks.
        top_k(scores, items, V, 1, best_value.as<float>(), best_index.as<int64_t>(), scratch.get(), stream);
        // The score adds the chosen token's log-probability, as the CPU's: the processed
        // value is that, except on a forced step, whose row holds 0 for the forced token.
        PRECIS_CUDA_CHECK(cudaMemcpyAsync(values, forced ? forced_logprob.get() : best_value.get(),
                                          size_t(items) * sizeof(float), cudaMemcpyDeviceToHost, stream));
        PRECIS_CUDA_CHECK(cudaMemcpyAsync(indices, best_index.get(), size_t(items) * sizeof(int64_t),
                                          cudaMemcpyDeviceToHost, stream));
        step.reset();
        PRECIS_CUDA_CHECK(cudaStreamSynchronize(stream));
        for (int i = 0; i < items; ++i) {
            const int64_t token = finished[size_t(i)] ? cfg.pad_token_id : indices[size_t(i)];
            if (!finished[size_t(i)]) res.sequence_scores[size_t(i)] += values[size_t(i)];
            res.sequences[size_t(i)].push_back(token);
            last[size_t(i)] = token;
            if (token == cfg.eos_token_id) finished[size_t(i)] = 1;
        }
        ++res.steps;
        for (int i = 0; i < items; ++i)
            if (ctx.callbacks.on_tokens) ctx.callbacks.on_tokens(i, res.sequences[size_t(i)]);
        ctx.callbacks.report(RunStage::Generating, res.steps, total);
        if (std::all_of(finished.begin(), finished.end(), [](char f) { return f != 0; })) break;
    }
    return res;
}

GenerationResult device_beam_search(const SearchContext& ctx, DeviceDecoder& dec, int items) {
    const GenerationConfig& cfg = ctx.cfg;
    const int64_t V = ctx.model.config().vocab_size;
    const int max_length = effective_max_length(cfg);
    BeamBook book(items, cfg, max_length);
    const int K = book.beams(), keep = book.keep(), rows = items * K;
    check(keep <= 64, "beam search on the GPU takes at most 32 beams, not " + std::to_string(K));
    cudaStream_t stream = ctx.stream;
    // Pinned: the per-step copies are plain DMAs (beam scores up; candidates down).
    const size_t n_top = size_t(items) * size_t(keep);
    PinnedBuffer pinned(size_t(rows) * sizeof(float) + n_top * (sizeof(float) + sizeof(int64_t)));
    float* beam_scores = pinned.as<float>();
    float* top_scores = beam_scores + rows;
    int64_t* top_indices = reinterpret_cast<int64_t*>(top_scores + n_top);
    DeviceHistory history(rows, max_length, stream);
    DeviceBuffer d_beam_scores(size_t(rows) * sizeof(float));
    DeviceBuffer d_values(n_top * sizeof(float)), d_indices(n_top * sizeof(int64_t));
    DeviceBuffer scratch(topk_scratch_bytes(items, int64_t(K) * V, keep));
    GenerationResult res;
    while (true) {
        ctx.callbacks.check_abort();
        std::optional<TimedSpan> step(std::in_place, ctx.step_time, stream);
        {
            TimedSpan layers(ctx.layers_time, stream);
            dec.forward(book.last_tokens().data(), 1);
        }
        float* scores = const_cast<float*>(dec.logits());
        std::copy_n(book.beam_scores().data(), rows, beam_scores);
        PRECIS_CUDA_CHECK(cudaMemcpyAsync(d_beam_scores.get(), beam_scores, size_t(rows) * sizeof(float),
                                          cudaMemcpyHostToDevice, stream));
        log_softmax_process(scores, rows, V, history.upload(book.sequences()), history.stride(),
                            d_beam_scores.as<float>(), rules_for(cfg, book.cur_len(), max_length), stream);
        top_k(scores, items, int64_t(K) * V, keep, d_values.as<float>(), d_indices.as<int64_t>(), scratch.get(),
              stream);
        PRECIS_CUDA_CHECK(cudaMemcpyAsync(top_scores, d_values.get(), n_top * sizeof(float), cudaMemcpyDeviceToHost,
                                          stream));
        PRECIS_CUDA_CHECK(cudaMemcpyAsync(top_indices, d_indices.get(), n_top * sizeof(int64_t),
                                          cudaMemcpyDeviceToHost, stream));
        step.reset();
        PRECIS_CUDA_CHECK(cudaStreamSynchronize(stream));
        book.advance(top_scores, top_indices, V);
        dec.reorder(book.parents());
        ++res.steps;
        if (ctx.callbacks.on_tokens)
            for (int i = 0; i < items; ++i) ctx.callbacks.on_tokens(i, book.sequences()[size_t(i * K)]);
        ctx.callbacks.report(RunStage::Generating, book.cur_len() - 1, max_length - 1);
        if (book.finished()) break;
    }
    book.finish(res);
    return res;
}

}  // namespace precis::cuda
