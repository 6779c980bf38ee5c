#pragma once
// BART -> LSG-BART conversion (lsg-spec.md section 5; fixtures README 5.4), in memory or
// folder to folder. In memory: convert_bart_to_lsg() + lsg_model_config() give weights and
// a config an LSG model can run from, so a plain BART checkpoint can use LSG attention
// without writing files.
#include <cstdint>
#include <filesystem>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "engine/core/byte_progress.h"
#include "engine/io/checkpoint.h"
#include "engine/config/config.h"

namespace precis {

struct ConversionOptions {
    int max_positions = 4096;  // L: new max_position_embeddings (encoder and decoder)
    int block_size = 128;
    int sparse_block_size = 128;
    int sparsity_factor = 2;
    std::string sparsity_type = "norm";
    int num_global_tokens = 1;
    bool adaptive = true;
    bool pass_global_tokens_to_decoder = true;
    bool pool_with_global = true;
    bool mask_first_token = false;
    int lsh_num_pre_rounds = 1;
    int stride = 64;                       // global_positional_stride of the reference
    bool keep_first_global_token = false;  // only meaningful for a source that has global rows
    uint64_t seed = 0;                     // for the random padding rows of the global table
    int64_t bos_id = -1;                   // -1: the config's bos_token_id
    // -1: from the folder's tokenizer ("<mask>" in tokenizer.json / vocab.json) when
    // converting a folder; otherwise 50264 for the real BART vocabulary (>= 50265 ids),
    // vocab_size - 1 for any other vocabulary.
    int64_t mask_id = -1;
};

// The id of "<mask>" in the tokenizer files of a model folder (tokenizer.json added
// tokens, else vocab.json), or -1 when there is none. Use it to fill
// ConversionOptions::mask_id for an in-memory conversion of a folder.
int64_t mask_token_id_from_tokenizer(const std::filesystem::path& model_dir);

// The LSG settings the options describe; throws precis::Error (naming `where`) when invalid.
LsgSettings lsg_settings_from_options(const ConversionOptions& opts, const std::string& where = "conversion options");

// The config of the converted model: `bart` with is_lsg, the LSG settings, the LSG
// architecture name and max_position_embeddings = opts.max_positions.
ModelConfig lsg_model_config(const ModelConfig& bart, const ConversionOptions& opts);

// Returns the LSG weights: every BART tensor shared unchanged (no copy) except the encoder
// and decoder position tables, which are tiled to max_positions + 2 rows, plus
// `model.encoder.global_embeddings.weight` [512, d] built from the ORIGINAL encoder
// positions (stride reordering, <s> and <mask> embeddings added; when the table has fewer
// than 512 rows the missing ones are drawn from N(mean, std) of the table, seeded by
// opts.seed, so they differ from the reference's torch draws). Computed in float32 and
// stored in the source dtype. When `new_config_json` is not null, the JSON object it
// points to (the source config.json, or an empty object) is updated in place with the
// LSG keys the reference writes. Throws precis::Error when the source is already LSG or
// the options are invalid.
WeightMap convert_bart_to_lsg(const WeightMap& bart, const ModelConfig& cfg, const ConversionOptions& opts,
                              nlohmann::json* new_config_json = nullptr);

// Converts the HuggingFace BART folder `src` into a new LSG folder `dst`: config.json,
// generation_config.json (copied when present), model.safetensors (source dtype, tied
// weights written once) and the tokenizer files present in `src`. Everything is written
// to a temporary sibling folder first and renamed to `dst` at the end. Refuses an LSG
// source and a `dst` that exists and is not an empty folder. `progress` (optional) sees
// the weights being written and may cancel: precis::Cancelled, with nothing left behind.
void convert_bart_folder(const std::filesystem::path& src, const std::filesystem::path& dst,
                         const ConversionOptions& opts, const ByteProgress* progress = nullptr);

}  // namespace precis
