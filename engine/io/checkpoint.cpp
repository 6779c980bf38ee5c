#include "engine/io/checkpoint.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "engine/io/json_file.h"
#include "engine/io/regular_file.h"
#include "engine/io/safetensors.h"
#include "engine/io/torch_pickle.h"

namespace precis {

namespace fs = std::filesystem;

const Tensor& WeightMap::get(const std::string& name) const {
    auto it = tensors_.find(name);
    if (it == tensors_.end())
        throw Error("model folder " + (source_.empty() ? std::string("(in memory)") : "'" + source_ + "'") +
                    " has no tensor '" + name + "'");
    return it->second;
}

const Tensor* WeightMap::find(const std::string& name) const {
    auto it = tensors_.find(name);
    return it == tensors_.end() ? nullptr : &it->second;
}

std::vector<std::string> WeightMap::names() const {
    std::vector<std::string> out;
    out.reserve(tensors_.size());
    for (const auto& kv : tensors_) out.push_back(kv.first);
    return out;
}

void resolve_tied_weights(WeightMap& w) {
    static const char* kShared = "model.shared.weight";
    static const char* kTied[] = {"model.encoder.embed_tokens.weight", "model.decoder.embed_tokens.weight",
                                  "lm_head.weight"};
    if (!w.has(kShared)) {
        for (const char* n : kTied)
            if (const Tensor* t = w.find(n)) {
                w.insert(kShared, *t);
                break;
            }
    }
    if (const Tensor* shared = w.find(kShared)) {
        Tensor s = *shared;
        for (const char* n : kTied)
            if (!w.has(n)) w.insert(n, s);
    }
}

namespace {

using Loader = std::map<std::string, Tensor> (*)(const fs::path&);

std::map<std::string, Tensor> load_safetensors_tensors(const fs::path& p) { return read_safetensors(p).tensors; }

void add_all(WeightMap& w, std::map<std::string, Tensor>&& tensors, const fs::path& file) {
    for (auto& [name, t] : tensors) {
        if (w.has(name))
            throw Error("checkpoint '" + file.string() + "' repeats tensor '" + name + "' already read from another shard");
        w.insert(name, std::move(t));
    }
}

void load_sharded(WeightMap& w, const fs::path& index_file, Loader load) {
    const std::string subject = "shard index '" + index_file.string() + "'";
    const std::string text = read_regular_file(index_file, subject, kMaxIndexJsonBytes);
    check_json_depth(text, subject);
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) throw Error(subject + " is not a valid JSON object");
    auto wm = j.find("weight_map");
    if (wm == j.end() || !wm->is_object() || wm->empty())
        throw Error("shard index '" + index_file.string() + "' has no \"weight_map\" object");
    std::map<std::string, std::vector<std::string>> by_shard;
    for (auto it = wm->begin(); it != wm->end(); ++it) {
        if (!it->is_string())
            throw Error("shard index '" + index_file.string() + "' maps tensor '" + it.key() + "' to a non-string");
        const std::string shard = it->get<std::string>();
        if (shard.empty() || fs::path(shard).filename().string() != shard || shard == "." || shard == "..")
            throw Error("shard index '" + index_file.string() + "' names the shard '" + shard +
                        "', which is not a file name inside the model folder");
        by_shard[shard].push_back(it.key());
    }
    for (const auto& [shard, names] : by_shard) {
        const fs::path file = index_file.parent_path() / shard;
        if (!fs::exists(file))
            throw Error("shard index '" + index_file.string() + "' lists the shard '" + shard + "', which is missing");
        std::map<std::string, Tensor> tensors = load(file);
        for (const std::string& n : names)
            if (!tensors.count(n))
                throw Error("shard '" + file.string() + "' lacks tensor '" + n + "' that its index lists");
        add_all(w, std::move(tensors), file);
    }
}

// Index of the first element whose exponent bits are all ones (NaN or infinity), or -1.
// Elements are raw bit patterns; the inner loop has no branch, so it vectorises, and
// large tensors are scanned in blocks by all threads.
template <class Bits>
int64_t first_non_finite(const Bits* p, int64_t n, Bits exponent_mask) {
    constexpr int64_t kBlock = 1 << 14;
    const int64_t blocks = (n + kBlock - 1) / kBlock;
    int64_t first_block = blocks;
#pragma omp parallel for schedule(static) reduction(min : first_block) if (n > (int64_t(1) << 20))
    for (int64_t b = 0; b < blocks; ++b) {
        const int64_t end = std::min(n, (b + 1) * kBlock);
        Bits bad = 0;
        for (int64_t i = b * kBlock; i < end; ++i) bad |= Bits((p[i] & exponent_mask) == exponent_mask);
        if (bad && b < first_block) first_block = b;
    }
    if (first_block == blocks) return -1;
    for (int64_t i = first_block * kBlock;; ++i)
        if ((p[i] & exponent_mask) == exponent_mask) return i;
}

}  // namespace

// Weights holding NaN or infinity would run and write nonsense; refuse them at load.
void check_finite_weights(const WeightMap& w, const fs::path& file) {
    for (const auto& [name, t] : w) {
        if (!t.defined() || t.numel() == 0) continue;
        int64_t at = -1;
        switch (t.dtype()) {
            case DType::F32: at = first_non_finite(t.data<uint32_t>(), t.numel(), uint32_t(0x7f800000u)); break;
            case DType::F16: at = first_non_finite(t.data<uint16_t>(), t.numel(), uint16_t(0x7c00u)); break;
            case DType::BF16: at = first_non_finite(t.data<uint16_t>(), t.numel(), uint16_t(0x7f80u)); break;
            default: break;
        }
        if (at >= 0)
            throw Error("model folder '" + file.string() + "' has a NaN or infinite value in tensor '" + name +
                        "' (element " + std::to_string(at) + " of " + shape_str(t.shape()) +
                        "); the weights are damaged");
    }
}

WeightMap load_checkpoint(const fs::path& model_dir) {
    std::error_code ec;
    if (!fs::is_directory(model_dir, ec))
        throw Error("model folder '" + model_dir.string() + "' does not exist or is not a folder");
    WeightMap w(model_dir.string());
    const fs::path st = model_dir / "model.safetensors";
    const fs::path st_index = model_dir / "model.safetensors.index.json";
    const fs::path bin = model_dir / "pytorch_model.bin";
    const fs::path bin_index = model_dir / "pytorch_model.bin.index.json";
    if (fs::exists(st)) {
        add_all(w, read_safetensors(st).tensors, st);
    } else if (fs::exists(st_index)) {
        load_sharded(w, st_index, &load_safetensors_tensors);
    } else if (fs::exists(bin)) {
        add_all(w, read_torch_checkpoint(bin), bin);
    } else if (fs::exists(bin_index)) {
        load_sharded(w, bin_index, &read_torch_checkpoint);
    } else {
        throw Error("model folder '" + model_dir.string() +
                    "' has no weights (expected model.safetensors, model.safetensors.index.json, "
                    "pytorch_model.bin or pytorch_model.bin.index.json)");
    }
    if (w.empty()) throw Error("model folder '" + model_dir.string() + "' has a weights file with no tensors");
    check_finite_weights(w, model_dir);
    resolve_tied_weights(w);
    return w;
}

}  // namespace precis
