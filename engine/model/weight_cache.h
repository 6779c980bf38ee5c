#pragma once
// Quantized weights cached beside the model. Quantizing bart-large to int8 reads 1.6 GB
// of float32 and takes seconds; the result is written once as a safetensors file (int8
// matrices with their per-row scales, fp16 matrices, float32 biases, norms and tables) in
// the model folder's hidden ".precis-cache" (or, where that folder cannot be written, a
// per-model folder under a fallback such as ~/.cache/precis/weights), and every later load
// memory-maps it: no float32 copy is read, and only the quantized bytes stay resident.
//
// The file is named by what it holds (the compute type, and the settings of an in-memory
// LSG conversion) and a fingerprint of the files it was made from: config.json and the
// weight files (name, size, modification time), with this format's version. A changed
// checkpoint gives a new name, and stale files of the same kind are removed when the new
// one is written. A damaged cache file is reported, removed and rebuilt, never trusted.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "engine/io/checkpoint.h"
#include "engine/model/bart_weights.h"

namespace precis {

struct WeightCacheLocation {
    std::filesystem::path model_dir;
    std::filesystem::path fallback_root;  // empty: only beside the model
    std::string variant;                  // "int8-plain-", "fp16-weights-lsg<8 hex>-"
    std::string file_name;                // variant + "<fingerprint of the files>.safetensors"
    // Where the file may be, in the order tried: beside the model, then the fallback.
    std::vector<std::filesystem::path> candidates() const;
};

// The cache file for `model_dir` loaded as `compute` after `conversion` (a description of
// the in-memory LSG conversion; empty when none). Reads only file metadata and config.json.
WeightCacheLocation weight_cache_location(const std::filesystem::path& model_dir, ComputeType compute,
                                          const std::string& conversion, const std::filesystem::path& fallback_root);

// The cached tensors, memory-mapped, or nullopt when there is no cache file. A file that
// cannot be read or is not a cache of this compute type is removed, and `note` says so.
std::optional<WeightMap> read_weight_cache(const WeightCacheLocation& where, ComputeType compute, std::string& note);

// Writes `w` (as BartWeights::from_map made it, before any position extension) to the
// first candidate folder that takes it, removing stale caches of the same compute type
// there. Returns the file written; on failure (read-only folders, a full disk) nothing is
// left behind, the result is empty and `note` says why.
std::filesystem::path write_weight_cache(const WeightCacheLocation& where, const BartWeights& w, std::string& note);

}  // namespace precis
