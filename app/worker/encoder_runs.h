#pragma once
// Encoder passes the worker runs outside a full summary: re-tracing which passages a
// stored summary drew on, and capturing one layer/head's attention weights for the panel.
// Both read the document exactly as the Summarizer does (same tokenization and truncation),
// so what they show matches the summaries.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/attention/sparse_selection.h"
#include "engine/model/run_options.h"
#include "engine/pipeline/summarizer.h"

namespace precis {

class Backend;
class Model;
struct AttentionRecorder;

// The ids the Summarizer's encoder reads for `text` with `options` (framed, truncated).
// `input_tokens` receives the untruncated count.
std::vector<int64_t> ids_to_read(const Model& model, const std::string& text, const SummarizeOptions& options,
                                 int* input_tokens = nullptr);

struct SourceWeights {
    std::vector<float> weights;                         // per token read, summing to 1
    std::vector<std::pair<size_t, size_t>> byte_spans;  // per token read, in the UTF-8 text
};
// The summary's cross-attention over the document (what Summarizer reports with
// source_attention), for a summary made earlier.
SourceWeights trace_summary_sources(const Model& model, Backend& backend, const std::string& text,
                                    const SummarizeOptions& options, const std::vector<int64_t>& summary_ids,
                                    const RunCallbacks& callbacks);

struct CapturedAttention {
    int num_global = 0, rows = 0, tokens_read = 0;
    bool sparse_path = false;
    int grid = 0;
    std::vector<float> cells;  // grid x grid, largest weight per (query bucket, key bucket)
    float max_weight = 0;
    SparseSelection sparse;                // LSG sparse path: the keys this head used
    std::vector<std::string> row_texts;    // per row: the token as text ("" for globals and padding)
};
// Runs the encoder on `text` recording layer `layer`, head `head`, and folds the weights
// onto at most `max_grid` x `max_grid` cells. Throws precis::Error for a layer or head the
// model does not have.
CapturedAttention capture_encoder_attention(const Model& model, Backend& backend, const std::string& text,
                                            const SummarizeOptions& options, int layer, int head, int max_grid,
                                            const RunCallbacks& callbacks);

// The folding step alone (exposed for tests): `rows` attention rows onto a grid.
CapturedAttention fold_attention(const AttentionRecorder& recorder, int rows, int max_grid);

}  // namespace precis
