#pragma once
// config.json and generation_config.json of a HuggingFace BART / LSG-BART folder.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace precis {

// The most positions a model may have (config.json, --max-positions, conversion).
constexpr int kMaxPositionsLimit = 1 << 24;
// The largest LSG block_size / sparse_block_size accepted (from a file or a flag).
constexpr int kMaxLsgBlock = 1 << 14;

enum class SparsityType { None, Norm, Pooling, Stride, BlockStride, BosPooling, Lsh };
const char* sparsity_type_name(SparsityType t);                  // "none", "norm", ...
// Accepts the reference spellings; an unknown name means "no sparse part" in the
// reference, but Precis rejects it with an error naming the value.
SparsityType parse_sparsity_type(const std::string& name);

// The LSG keys of lsg-spec.md section 1, with the reference defaults.
struct LsgSettings {
    bool adaptive = true;
    int block_size = 128;
    int sparse_block_size = 128;
    int sparsity_factor = 2;
    SparsityType sparsity_type = SparsityType::Norm;
    int num_global_tokens = 1;  // clamped to [1, 512]
    bool pass_global_tokens_to_decoder = true;
    bool pool_with_global = true;
    bool mask_first_token = false;
    int lsh_num_pre_rounds = 1;

    bool sparse_enabled() const {
        return sparse_block_size > 0 && sparsity_factor > 0 && sparsity_type != SparsityType::None;
    }
    // Throws precis::Error for the constraints the reference silently relies on
    // (B % f == 0, p even or 1, 4*SB > 3*p, ...). `where` names the file or flag.
    void validate(const std::string& where) const;
};

enum class EncoderAttention { Full, Lsg, Fovea };

struct FoveaSettings {
    int block_size = 64;   // BL
    int wing = 1;          // w: nodes per side per level
    int stop_level = -1;   // -1: no stop level (climb while nodes exist)
    // Near the ends of the sequence the paper's node formula runs out of tree: true covers the
    // rest of the sequence with the coarsest nodes that still fit (every query then sees every
    // token exactly once); false keeps only the formula's nodes (edges left uncovered).
    bool cover_edges = true;
};

struct ModelConfig {
    std::string architecture;      // architectures[0], e.g. "BartForConditionalGeneration"
    bool is_lsg = false;           // an LSG checkpoint (has global embeddings + LSG keys)
    bool is_classifier = false;    // *ForSequenceClassification
    int64_t vocab_size = 0;
    int d_model = 0;
    int encoder_layers = 0, decoder_layers = 0;
    int encoder_heads = 0, decoder_heads = 0;
    int encoder_ffn_dim = 0, decoder_ffn_dim = 0;
    int max_position_embeddings = 0;
    bool scale_embedding = false;
    std::string activation = "gelu";  // only exact-erf "gelu" is supported
    int64_t pad_token_id = 1, bos_token_id = 0, eos_token_id = 2, decoder_start_token_id = 2;
    int64_t forced_bos_token_id = -1, forced_eos_token_id = -1;  // -1: none
    std::vector<std::string> id2label;  // classification labels by id
    std::string problem_type;           // "", "single_label_classification", "multi_label_classification"
    LsgSettings lsg;                    // meaningful when is_lsg

    int encoder_head_dim() const { return d_model / encoder_heads; }
    int decoder_head_dim() const { return d_model / decoder_heads; }
    // The index of a classification label by name, case-insensitive; -1 if absent.
    int label_index(const std::string& name) const;
    // An NLI classifier (entailment and contradiction labels): the kind zero-shot
    // classification runs on.
    bool is_nli_classifier() const { return label_index("entailment") >= 0 && label_index("contradiction") >= 0; }
};

struct GenerationConfig {
    int num_beams = 1;
    double length_penalty = 1.0;
    bool early_stopping = false;
    int no_repeat_ngram_size = 0;
    int min_length = 0;
    int max_length = 20;                // HF default
    std::optional<int> max_new_tokens;  // overrides max_length when set
    int64_t decoder_start_token_id = 2;
    int64_t bos_token_id = 0, eos_token_id = 2, pad_token_id = 1;
    int64_t forced_bos_token_id = -1, forced_eos_token_id = -1;

    bool operator==(const GenerationConfig&) const = default;
};

// Parses config.json. Throws precis::Error naming the file and the key for a missing,
// mistyped or absurd key (non-positive sizes, d_model not divisible by heads, ...).
ModelConfig parse_model_config(const std::filesystem::path& config_json);
ModelConfig model_config_from_json(const nlohmann::json& j, const std::string& where);

// Generation defaults: taken from generation_config.json when present, else from
// the model config (HF semantics). Missing file is not an error.
GenerationConfig load_generation_config(const std::filesystem::path& model_dir, const ModelConfig& model);

}  // namespace precis
