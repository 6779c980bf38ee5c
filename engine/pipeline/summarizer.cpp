#include "engine/pipeline/summarizer.h"

#include <chrono>

#include "engine/backend/backend.h"
#include "engine/generate/generation.h"
#include "engine/model/decoder.h"
#include "engine/model/encoder.h"
#include "engine/model/model.h"

namespace precis {

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

Summarizer::Summarizer(std::shared_ptr<const Model> model, std::shared_ptr<Backend> backend)
    : model_(std::move(model)), backend_(std::move(backend)) {}

SummarizeOptions Summarizer::default_options() const {
    SummarizeOptions o;
    o.attention = native_attention_options(*model_);
    o.generation = model_->generation_config();
    return o;
}

SummaryResult Summarizer::summarize(const std::string& text, const SummarizeOptions& options,
                                    const RunCallbacks& callbacks) const {
    const Tokenizer& tok = require_tokenizer(*model_);
    if (is_blank(text)) throw Error("the document has no text to summarize");
    return summarize_ids(tok.encode(text, true), options, callbacks);
}

SummaryResult Summarizer::summarize_ids(std::vector<int64_t> ids, const SummarizeOptions& options,
                                        const RunCallbacks& callbacks) const {
    SummaryResult r;
    r.input_tokens = int(ids.size());
    ids = truncate_ids(ids, readable_input_tokens(*model_, options.attention, options.max_input_tokens),
                       model_->config().eos_token_id);
    r.tokens_read = int(ids.size());
    r.truncated = r.tokens_read < r.input_tokens;

    auto t0 = std::chrono::steady_clock::now();
    EncoderOutput enc = run_encoder(*model_, *backend_, {ids}, {}, options.attention, callbacks);
    r.encode_seconds = seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    GenerationResult g = generate(*model_, *backend_, enc, options.generation, callbacks);
    r.generate_seconds = seconds_since(t0);
    r.ids = g.sequences[0];
    r.score = g.sequence_scores[0];
    if (const Tokenizer* tok = model_->tokenizer()) {
        r.text = tok->decode(r.ids, true);
        const auto b = r.text.find_first_not_of(" \n\t"), e = r.text.find_last_not_of(" \n\t");
        r.text = b == std::string::npos ? std::string() : r.text.substr(b, e - b + 1);
        // Nothing to show or store: say so instead of an empty summary that looks like success.
        if (r.text.empty())
            throw Error("the model produced an empty summary (its output was only end-of-text and special "
                        "tokens): the model may be damaged or may not be a summarization model");
        if (options.source_attention) {
            std::vector<float> w = cross_attention_profile(*model_, *backend_, enc, r.ids);
            // Memory rows: the global rows (when passed to the decoder) then the tokens.
            const size_t skip = w.size() > ids.size() ? w.size() - ids.size() : 0;
            r.source_weights.assign(w.begin() + long(skip), w.end());
            float sum = 0;
            for (float x : r.source_weights) sum += x;
            if (sum > 0)
                for (float& x : r.source_weights) x /= sum;
            r.source_spans = token_byte_spans(*tok, ids);
        }
    }
    return r;
}

std::vector<std::pair<size_t, size_t>> token_byte_spans(const Tokenizer& tok, const std::vector<int64_t>& ids) {
    std::vector<std::pair<size_t, size_t>> spans;
    size_t pos = 0;
    for (int64_t id : ids) {
        const std::string piece = tok.decode({id}, true);
        spans.emplace_back(pos, pos + piece.size());
        pos += piece.size();
    }
    return spans;
}

std::vector<float> cross_attention_profile(const Model& model, Backend& backend, const EncoderOutput& encoded,
                                           const std::vector<int64_t>& summary_ids) {
    check(encoded.rows.size() == 1, "cross_attention_profile: one input row at a time");
    std::vector<float> sink(size_t(encoded.rows[0].memory_rows()), 0.f);
    const int L = int(summary_ids.size());
    if (L == 0) return sink;
    DecoderState dec(model, backend, encoded, 1, L, L);
    dec.set_cross_attention_sink(sink.data());
    dec.forward(summary_ids.data(), L);
    return sink;
}

}  // namespace precis

#include <nlohmann/json.hpp>

namespace precis {

const char* encoder_attention_name(EncoderAttention kind) {
    switch (kind) {
        case EncoderAttention::Full: return "full";
        case EncoderAttention::Lsg: return "lsg";
        case EncoderAttention::Fovea: return "fovea";
    }
    return "?";
}

nlohmann::json describe_options(const SummarizeOptions& o) {
    nlohmann::json j;
    j["attention"] = encoder_attention_name(o.attention.kind);
    if (o.attention.kind == EncoderAttention::Lsg) {
        const LsgSettings& s = o.attention.lsg;
        j["sparsity_type"] = sparsity_type_name(s.sparsity_type);
        j["block_size"] = s.block_size;
        j["sparse_block_size"] = s.sparse_block_size;
        j["sparsity_factor"] = s.sparsity_factor;
        j["num_global_tokens"] = s.num_global_tokens;
        if (s.sparsity_type == SparsityType::Lsh) j["lsh_seed"] = o.attention.lsh_seed;
    } else if (o.attention.kind == EncoderAttention::Fovea) {
        j["fovea_block_size"] = o.attention.fovea.block_size;
        j["fovea_wing"] = o.attention.fovea.wing;
        j["fovea_stop_level"] = o.attention.fovea.stop_level;
    }
    const GenerationConfig& g = o.generation;
    j["num_beams"] = g.num_beams;
    j["length_penalty"] = g.length_penalty;
    j["early_stopping"] = g.early_stopping;
    j["no_repeat_ngram_size"] = g.no_repeat_ngram_size;
    j["min_length"] = g.min_length;
    j["max_length"] = g.max_new_tokens ? *g.max_new_tokens + 1 : g.max_length;
    if (o.max_input_tokens > 0) j["max_input_tokens"] = o.max_input_tokens;
    return j;
}

}  // namespace precis
