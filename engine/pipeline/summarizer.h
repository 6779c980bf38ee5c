#pragma once
// Text in, summary out: tokenize (truncating to what the model can read), encode,
// generate, detokenize. One Summarizer per worker; the Model is shared.
#include <memory>
#include <string>
#include <vector>

#include "engine/model/config.h"
#include "engine/model/run_options.h"

namespace precis {

class Backend;
class Model;

struct SummarizeOptions {
    AttentionOptions attention;
    GenerationConfig generation;
    int max_input_tokens = 0;  // 0: the model's maximum
};

struct SummaryResult {
    std::string text;
    std::vector<int64_t> ids;       // generated ids (start token included)
    int input_tokens = 0;           // tokens the document has (special tokens included)
    int tokens_read = 0;            // tokens the encoder read
    bool truncated = false;
    double encode_seconds = 0, generate_seconds = 0;
    float score = 0;
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

    const Model& model() const { return *model_; }
    Backend& backend() const { return *backend_; }

private:
    std::shared_ptr<const Model> model_;
    std::shared_ptr<Backend> backend_;
};

// Keeps the first max-1 tokens and the final eos, as a truncating tokenizer does.
std::vector<int64_t> truncate_ids(const std::vector<int64_t>& ids, int max_tokens, int64_t eos);

}  // namespace precis

#include <nlohmann/json_fwd.hpp>

namespace precis {
// Every setting a summary was made with (attention kind and LSG/Fovea settings, the
// generation config), as stored in the library next to the summary.
nlohmann::json describe_options(const SummarizeOptions& options);
const char* encoder_attention_name(EncoderAttention kind);
}  // namespace precis
