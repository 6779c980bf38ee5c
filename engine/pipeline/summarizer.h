#pragma once
// Text in, summary out: tokenize (truncating to what the model can read), encode,
// generate, detokenize. One Summarizer per worker; the Model is shared.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/config/config.h"
#include "engine/generate/document_batch.h"
#include "engine/model/run_options.h"
#include "engine/pipeline/input_text.h"

namespace precis {

class Backend;
class Model;
class Tokenizer;
struct EncoderOutput;

struct SummarizeOptions {
    AttentionOptions attention;
    GenerationConfig generation;
    int max_input_tokens = 0;  // 0: the model's maximum
    // Also compute which input tokens the summary drew on (one extra decoder pass).
    bool source_attention = false;
};

struct SummaryResult {
    std::string text;
    std::vector<int64_t> ids;       // generated ids (start token included)
    int input_tokens = 0;           // tokens the document has (special tokens included)
    int tokens_read = 0;            // tokens the encoder read
    bool truncated = false;
    double encode_seconds = 0, generate_seconds = 0;
    float score = 0;
    // With source_attention: per input token read (tokens_read entries), the decoder's
    // cross-attention weight, summed over layers, heads and summary positions, normalized
    // to sum 1; and each input token's byte span in the original text (empty for special
    // tokens), so a viewer can highlight passages.
    std::vector<float> source_weights;
    std::vector<std::pair<size_t, size_t>> source_spans;
};

// summarize_many() hands each document's outcome over as it finishes (in finishing order,
// not the input's); a document that cannot be summarized fails alone.
struct ManySummariesCallbacks {
    std::function<void(int document, SummaryResult result)> done;
    std::function<void(int document, const std::string& why)> failed;
};

class Summarizer {
public:
    Summarizer(std::shared_ptr<const Model> model, std::shared_ptr<Backend> backend);

    // Options for this model as saved: its attention, its generation config.
    SummarizeOptions default_options() const;
    // Throws precis::Error for empty text or a model without a tokenizer, Cancelled on abort.
    SummaryResult summarize(const std::string& text, const SummarizeOptions& options,
                            const RunCallbacks& callbacks = {}) const;
    // The same from ids (framed with bos/eos already).
    SummaryResult summarize_ids(std::vector<int64_t> ids, const SummarizeOptions& options,
                                const RunCallbacks& callbacks = {}) const;

    // Many documents at once (engine/generate/document_batch.h): ids as summarize_ids takes
    // them, `batch_size` documents together (0: as many as memory and speed call for).
    // Throws Cancelled on abort, after handing over what finished.
    DocumentBatchReport summarize_many(const std::vector<std::vector<int64_t>>& documents,
                                       const SummarizeOptions& options, int batch_size,
                                       const ManySummariesCallbacks& on, const RunCallbacks& callbacks = {}) const;

    const Model& model() const { return *model_; }
    Backend& backend() const { return *backend_; }

private:
    // The ids the encoder reads (cut to what the model reads) and the counts that say so.
    std::vector<int64_t> prepare(std::vector<int64_t> ids, const SummarizeOptions& options, SummaryResult& r) const;
    // The text, its checks and the source passages of a generated summary.
    void finish(SummaryResult& r, const std::vector<int64_t>& read, const EncoderOutput& encoded,
                const SummarizeOptions& options) const;
    std::shared_ptr<const Model> model_;
    std::shared_ptr<Backend> backend_;
};

// The byte span of each id's text in the decoded string, decoding ids one by one
// (special tokens get empty spans). For byte-level BPE and sentencepiece this matches
// the original text wherever decoding is lossless.
std::vector<std::pair<size_t, size_t>> token_byte_spans(const Tokenizer& tokenizer, const std::vector<int64_t>& ids);

// Per memory row of `encoded` (one row), the decoder's cross-attention over it while
// reading `summary_ids` (teacher-forced), summed over layers, heads and positions.
std::vector<float> cross_attention_profile(const Model& model, Backend& backend, const EncoderOutput& encoded,
                                           const std::vector<int64_t>& summary_ids);


}  // namespace precis

#include <nlohmann/json_fwd.hpp>

namespace precis {
// Every setting a summary was made with (attention kind and LSG/Fovea settings, the
// generation config), as stored in the library next to the summary.
nlohmann::json describe_options(const SummarizeOptions& options);
const char* encoder_attention_name(EncoderAttention kind);
}  // namespace precis
