#pragma once
// The weights of a HuggingFace model folder, by tensor name.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "engine/core/tensor.h"

namespace precis {

class WeightMap {
public:
    WeightMap() = default;
    // `source` names where the weights came from (the model folder) in error messages.
    explicit WeightMap(std::string source) : source_(std::move(source)) {}

    // Throws precis::Error "model folder X has no tensor 'name'" when absent.
    const Tensor& get(const std::string& name) const;
    const Tensor* find(const std::string& name) const;  // nullptr when absent
    bool has(const std::string& name) const { return tensors_.count(name) != 0; }
    std::vector<std::string> names() const;             // sorted
    void insert(const std::string& name, Tensor t) { tensors_[name] = std::move(t); }
    bool erase(const std::string& name) { return tensors_.erase(name) != 0; }
    size_t size() const { return tensors_.size(); }
    bool empty() const { return tensors_.empty(); }

    const std::string& source() const { return source_; }
    void set_source(std::string s) { source_ = std::move(s); }

    std::map<std::string, Tensor>::const_iterator begin() const { return tensors_.begin(); }
    std::map<std::string, Tensor>::const_iterator end() const { return tensors_.end(); }

private:
    std::string source_;
    std::map<std::string, Tensor> tensors_;
};

// Loads the weights of a model folder, trying in order: model.safetensors,
// model.safetensors.index.json (shards), pytorch_model.bin, pytorch_model.bin.index.json.
// Tensors are memory-mapped views where possible. Tied weights are resolved with
// resolve_tied_weights(). Throws precis::Error naming the folder when it holds no weights
// or a file is unreadable.
WeightMap load_checkpoint(const std::filesystem::path& model_dir);

// Throws precis::Error naming `where` and the tensor when a float tensor of `w` holds a
// NaN or an infinity (damaged weights would run and write nonsense).
void check_finite_weights(const WeightMap& w, const std::filesystem::path& where);

// BART ties: a missing `lm_head.weight`, `model.encoder.embed_tokens.weight` or
// `model.decoder.embed_tokens.weight` aliases `model.shared.weight` (same memory); a
// missing `model.shared.weight` aliases an embed_tokens weight (encoder first).
void resolve_tied_weights(WeightMap& weights);

}  // namespace precis
