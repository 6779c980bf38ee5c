#include "app/worker/encoder_runs.h"

#include <algorithm>

#include "engine/attention/attention.h"
#include "engine/core/error.h"
#include "engine/model/encoder.h"
#include "engine/model/model.h"

namespace precis {

std::vector<int64_t> ids_to_read(const Model& model, const std::string& text, const SummarizeOptions& options,
                                 int* input_tokens) {
    std::vector<int64_t> ids = require_tokenizer(model).encode(text, true);
    if (input_tokens) *input_tokens = int(ids.size());
    // The same tokens Summarizer::summarize_ids reads.
    return truncate_ids(ids, readable_input_tokens(model, options.attention, options.max_input_tokens),
                        model.config().eos_token_id);
}

SourceWeights trace_summary_sources(const Model& model, Backend& backend, const std::string& text,
                                    const SummarizeOptions& options, const std::vector<int64_t>& summary_ids,
                                    const RunCallbacks& callbacks) {
    const std::vector<int64_t> ids = ids_to_read(model, text, options);
    EncoderOutput enc = run_encoder(model, backend, {ids}, {}, options.attention, callbacks);
    callbacks.check_abort();
    const std::vector<float> w = cross_attention_profile(model, backend, enc, summary_ids);
    // Memory rows are the global rows (when passed to the decoder) and then the tokens.
    const size_t skip = w.size() > ids.size() ? w.size() - ids.size() : 0;
    SourceWeights out;
    out.weights.assign(w.begin() + long(skip), w.end());
    float sum = 0;
    for (float x : out.weights) sum += x;
    if (sum > 0)
        for (float& x : out.weights) x /= sum;
    out.byte_spans = token_byte_spans(*model.tokenizer(), ids);
    return out;
}

CapturedAttention fold_attention(const AttentionRecorder& recorder, int rows, int max_grid) {
    CapturedAttention c;
    c.rows = rows;
    c.grid = std::max(1, std::min(rows, max_grid));
    c.cells.assign(size_t(c.grid) * size_t(c.grid), 0.f);
    const auto bucket = [&](int row) { return std::min(c.grid - 1, int(int64_t(row) * c.grid / std::max(rows, 1))); };
    for (const AttentionRecorder::Block& b : recorder.blocks) {
        const size_t nkeys = b.keys.size();
        for (int q = b.query_begin; q < b.query_end; ++q) {
            float* cell_row = c.cells.data() + size_t(bucket(q)) * size_t(c.grid);
            const float* w = b.weights.data() + size_t(q - b.query_begin) * nkeys;
            for (size_t k = 0; k < nkeys; ++k) {
                if (w[k] <= 0) continue;
                const AttentionRecorder::Key& key = b.keys[k];
                // A pooled key stands for several rows: show its weight on each of them.
                for (int r = key.row_begin; r < key.row_end; r += std::max(1, int(key.step))) {
                    float& cell = cell_row[bucket(r)];
                    cell = std::max(cell, w[k]);
                }
            }
        }
    }
    c.max_weight = c.cells.empty() ? 0.f : *std::max_element(c.cells.begin(), c.cells.end());
    return c;
}

CapturedAttention capture_encoder_attention(const Model& model, Backend& backend, const std::string& text,
                                            const SummarizeOptions& options, int layer, int head, int max_grid,
                                            const RunCallbacks& callbacks) {
    const ModelConfig& cfg = model.config();
    check(layer >= 0 && layer < cfg.encoder_layers, "The model's encoder has layers 0 to " +
                                                        std::to_string(cfg.encoder_layers - 1) + ", not " +
                                                        std::to_string(layer) + ".");
    check(head >= 0 && head < cfg.encoder_heads, "The model's encoder layers have heads 0 to " +
                                                     std::to_string(cfg.encoder_heads - 1) + ", not " +
                                                     std::to_string(head) + ".");
    const std::vector<int64_t> ids = ids_to_read(model, text, options);
    AttentionOptions attention = options.attention;
    auto capture = std::make_shared<AttentionCapture>();
    capture->layer = layer;
    capture->head = head;
    capture->recorder = std::make_shared<AttentionRecorder>();
    attention.capture = capture;
    EncoderOutput enc = run_encoder(model, backend, {ids}, {}, attention, callbacks);
    const EncodedRow& row = enc.rows.at(0);
    CapturedAttention c = fold_attention(*capture->recorder, row.num_global + row.padded_length, max_grid);
    c.num_global = row.num_global;
    c.tokens_read = int(ids.size());
    c.sparse_path = row.sparse_path;
    c.sparse = std::move(capture->recorder->sparse);
    // Each token on its own, so the panel can name the words a query and a key stand for.
    const Tokenizer& tokenizer = require_tokenizer(model);
    c.row_texts.assign(size_t(c.rows), std::string());
    for (size_t t = 0; t < ids.size() && c.num_global + t < c.row_texts.size(); ++t)
        c.row_texts[size_t(c.num_global) + t] = tokenizer.decode({ids[t]});
    return c;
}

}  // namespace precis
