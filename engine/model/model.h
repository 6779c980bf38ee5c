#pragma once
// A loaded model: config, weights, tokenizer and generation defaults. Immutable once
// built, so many worker threads can share one instance (each with its own run state).
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/model/bart_weights.h"
#include "engine/config/config.h"
#include "engine/tokenizer/tokenizer.h"

namespace precis {

struct LoadOptions {
    // Extrapolate to a longer maximum input by tiling the position tables (lsg-spec 5.3).
    std::optional<int> max_positions;
    // A model that reads with LSG attention gets its position tables tiled to this many
    // times the length it was trained on (at least max_positions), capped at
    // kMaxPositionsLimit: the extrapolation the LSG paper measured (4x, lsg-attention
    // Tables 4-5). 0 or 1: no more than max_positions. Full attention is never extended by it.
    int lsg_extension_factor = 0;
    // Run a plain BART checkpoint with LSG attention: build the global embeddings and
    // LSG config in memory as `precis convert` would (settings from `lsg`).
    bool convert_to_lsg = false;
    LsgSettings lsg;
    bool load_tokenizer = true;  // a folder without tokenizer files still loads (tokenizer() is null)
    // Read the tokenizer from another folder (models that keep it apart, like the test model).
    std::filesystem::path tokenizer_dir;
    // How the linear layers hold their weights (quantized once here, at load).
    ComputeType compute_type = ComputeType::Fp32;
    // int8 / fp16 weights: keep them in a cache file beside the model (weight_cache.h) and
    // map it on later loads. Off by default: the engine writes nothing unless asked.
    bool cache_quantized_weights = false;
    // Where the cache goes when the model folder cannot be written (e.g. ~/.cache/precis/weights).
    std::filesystem::path weight_cache_fallback;
};

class Model {
public:
    static std::shared_ptr<const Model> load(const std::filesystem::path& dir, const LoadOptions& opts = {});
    static std::shared_ptr<const Model> from_parts(ModelConfig cfg, BartWeights weights,
                                                   std::shared_ptr<const Tokenizer> tokenizer,
                                                   GenerationConfig generation, std::string name);

    const ModelConfig& config() const { return config_; }
    const BartWeights& weights() const { return weights_; }
    const Tokenizer* tokenizer() const { return tokenizer_.get(); }
    const GenerationConfig& generation_config() const { return generation_; }
    const std::filesystem::path& path() const { return path_; }
    const std::string& name() const { return name_; }
    // Longest input the position table covers.
    int max_input_tokens() const { return int(weights_.encoder_positions.dim(0)) - 2; }
    // Longest input of the checkpoint as saved, before any extension at load.
    int trained_input_tokens() const { return trained_input_tokens_; }
    // Encoder attention the model was saved for (LSG for LSG checkpoints).
    EncoderAttention native_attention() const {
        return config_.is_lsg ? EncoderAttention::Lsg : EncoderAttention::Full;
    }
    size_t parameter_count() const;
    // Unique per loaded instance in this process (never reused, unlike an address): a device
    // backend keys the weights it uploaded by it.
    uint64_t instance_id() const { return instance_id_; }
    ComputeType compute_type() const { return weights_.compute_type; }
    // What loading did that a person may want to know, one sentence each: weights cached
    // for the next load, a cache that could not be written or was damaged.
    const std::vector<std::string>& load_notes() const { return load_notes_; }

private:
    Model() = default;
    static BartWeights load_weights(const std::filesystem::path& dir, ModelConfig& cfg, const LoadOptions& opts,
                                    std::vector<std::string>& notes);
    ModelConfig config_;
    BartWeights weights_;
    std::shared_ptr<const Tokenizer> tokenizer_;
    GenerationConfig generation_;
    std::filesystem::path path_;
    std::string name_;
    std::vector<std::string> load_notes_;
    int trained_input_tokens_ = 0;
    uint64_t instance_id_ = next_instance_id();
    static uint64_t next_instance_id();
};

}  // namespace precis
