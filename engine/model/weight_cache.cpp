#include "engine/model/weight_cache.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "engine/io/safetensors.h"

namespace precis {

namespace fs = std::filesystem;

namespace {

constexpr const char* kFormat = "precis-weight-cache";
constexpr const char* kVersion = "1";  // bump when the tensors written or their meaning change

// FNV-1a: a stable name for a set of file facts, not a security hash (the files are the
// user's own; a collision would need a changed checkpoint with the same sizes and times).
uint64_t fnv1a(const std::string& s) {
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    return h;
}

std::string hex16(uint64_t v) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    return buf;
}

// The files a load reads weights or shapes from: config.json and the checkpoint files
// (model.safetensors, shards and their index, pytorch_model.bin and its shards).
bool feeds_the_weights(const std::string& name) {
    if (name == "config.json") return true;
    const bool stem = name.rfind("model", 0) == 0 || name.rfind("pytorch_model", 0) == 0;
    auto ends = [&](const char* suffix) {
        const std::string s(suffix);
        return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
    };
    return stem && (ends(".safetensors") || ends(".bin") || ends(".json"));
}

// The facts of the files the weights are made from.
std::string files_fingerprint(const fs::path& model_dir) {
    std::vector<std::string> facts;
    std::error_code ec;
    for (fs::directory_iterator it(model_dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (!feeds_the_weights(name)) continue;
        std::error_code fe;
        const auto size = fs::file_size(it->path(), fe);  // follows links (HuggingFace cache blobs)
        const auto when = fs::last_write_time(it->path(), fe);
        if (fe) continue;
        facts.push_back(name + '|' + std::to_string(size) + '|' + std::to_string(when.time_since_epoch().count()));
    }
    std::sort(facts.begin(), facts.end());
    std::string all = std::string(kFormat) + ' ' + kVersion;
    for (const std::string& f : facts) all += '\n' + f;
    return hex16(fnv1a(all));
}

using TensorList = std::vector<std::pair<std::string, Tensor>>;

void add_linear(TensorList& out, const std::string& prefix, const LinearWeights& l) {
    out.emplace_back(prefix + ".weight", l.weight);
    if (l.scales.defined()) out.emplace_back(prefix + ".weight_scale", l.scales);
    if (l.bias.defined()) out.emplace_back(prefix + ".bias", l.bias);
}

void add_attention(TensorList& out, const std::string& prefix, const AttentionWeights& a) {
    add_linear(out, prefix + ".q_proj", a.q);
    add_linear(out, prefix + ".k_proj", a.k);
    add_linear(out, prefix + ".v_proj", a.v);
    add_linear(out, prefix + ".out_proj", a.out);
}

void add_norm(TensorList& out, const std::string& prefix, const LayerNormWeights& n) {
    out.emplace_back(prefix + ".weight", n.gamma);
    out.emplace_back(prefix + ".bias", n.beta);
}

// The tensors under the names BartWeights::from_cache reads (the checkpoint's names,
// "<linear>.weight_scale" for int8 scales, "lm_head.*" for the stored LM head).
TensorList cache_tensors(const BartWeights& w) {
    TensorList out;
    add_linear(out, "lm_head", w.lm_head);  // its bias is final_logits_bias
    if (w.shared.defined()) out.emplace_back("model.shared.weight", w.shared);
    out.emplace_back("model.encoder.embed_positions.weight", w.encoder_positions);
    out.emplace_back("model.decoder.embed_positions.weight", w.decoder_positions);
    if (w.global_embeddings.defined()) out.emplace_back("model.encoder.global_embeddings.weight", w.global_embeddings);
    add_norm(out, "model.encoder.layernorm_embedding", w.encoder_embedding_norm);
    add_norm(out, "model.decoder.layernorm_embedding", w.decoder_embedding_norm);
    for (size_t i = 0; i < w.encoder_layers.size(); ++i) {
        const std::string p = "model.encoder.layers." + std::to_string(i);
        const EncoderLayerWeights& l = w.encoder_layers[i];
        add_attention(out, p + ".self_attn", l.self_attn);
        add_norm(out, p + ".self_attn_layer_norm", l.self_attn_norm);
        add_linear(out, p + ".fc1", l.fc1);
        add_linear(out, p + ".fc2", l.fc2);
        add_norm(out, p + ".final_layer_norm", l.final_norm);
    }
    for (size_t i = 0; i < w.decoder_layers.size(); ++i) {
        const std::string p = "model.decoder.layers." + std::to_string(i);
        const DecoderLayerWeights& l = w.decoder_layers[i];
        add_attention(out, p + ".self_attn", l.self_attn);
        add_norm(out, p + ".self_attn_layer_norm", l.self_attn_norm);
        add_attention(out, p + ".encoder_attn", l.cross_attn);
        add_norm(out, p + ".encoder_attn_layer_norm", l.cross_attn_norm);
        add_linear(out, p + ".fc1", l.fc1);
        add_linear(out, p + ".fc2", l.fc2);
        add_norm(out, p + ".final_layer_norm", l.final_norm);
    }
    if (w.classification_head) {
        add_linear(out, "classification_head.dense", w.classification_head->dense);
        add_linear(out, "classification_head.out_proj", w.classification_head->out_proj);
    }
    return out;
}

// "int8-plain-" or "int8-lsg<hash of the conversion>-": what a cache is of, before the
// fingerprint of the files it was made from.
std::string variant_prefix(ComputeType compute, const std::string& conversion) {
    return std::string(compute_type_name(compute)) + '-' +
           (conversion.empty() ? std::string("plain") : "lsg" + hex16(fnv1a(conversion)).substr(0, 8)) + '-';
}

// Earlier caches of the same kind in `dir`: made from a checkpoint that changed since.
void remove_stale(const fs::path& dir, const std::string& keep, const std::string& prefix) {
    std::error_code ec;
    std::vector<fs::path> stale;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name != keep && name.rfind(prefix, 0) == 0 && it->path().extension() == ".safetensors")
            stale.push_back(it->path());
    }
    for (const fs::path& p : stale) fs::remove(p, ec);
}

// The right to write one cache file. N array tasks loading one model from a shared file
// system all find no cache at first; the one that creates "<file>.writing" (O_EXCL, which
// NFS v3+ and Lustre honour) writes it, the others use their own quantized weights this
// once and read the cache next time. The file lands by atomic rename (write_safetensors),
// so a reader never sees half of it. A lock older than kStaleLock was left by a killed
// writer and is taken over.
class CacheWriteLock {
public:
    explicit CacheWriteLock(const fs::path& file) : lock_(file.string() + ".writing") {
        for (int attempt = 0; attempt < 2 && !held_; ++attempt) {
            const int fd = ::open(lock_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
            if (fd >= 0) {
                ::close(fd);
                held_ = true;
                break;
            }
            error_ = errno;
            busy_ = error_ == EEXIST;
            if (!busy_) break;  // a folder that cannot be written: the caller tries the next
            std::error_code ec;
            const auto written = fs::last_write_time(lock_, ec);
            if (ec || fs::file_time_type::clock::now() - written < kStaleLock) break;
            fs::remove(lock_, ec);
        }
    }
    ~CacheWriteLock() {
        std::error_code ec;
        if (held_) fs::remove(lock_, ec);
    }
    CacheWriteLock(const CacheWriteLock&) = delete;
    CacheWriteLock& operator=(const CacheWriteLock&) = delete;
    bool held() const { return held_; }
    bool busy() const { return busy_ && !held_; }  // another process holds it
    int error() const { return error_; }
    const fs::path& path() const { return lock_; }

    static constexpr std::chrono::minutes kStaleLock{30};

private:
    fs::path lock_;
    bool held_ = false;
    bool busy_ = false;
    int error_ = 0;
};

}  // namespace

std::vector<fs::path> WeightCacheLocation::candidates() const {
    std::vector<fs::path> dirs{model_dir / ".precis-cache"};
    if (!fallback_root.empty()) {
        // One folder per model folder, named by its absolute path.
        std::error_code ec;
        const fs::path abs = fs::absolute(model_dir, ec).lexically_normal();
        dirs.push_back(fallback_root / hex16(fnv1a(abs.string())));
    }
    return dirs;
}

WeightCacheLocation weight_cache_location(const fs::path& model_dir, ComputeType compute, const std::string& conversion,
                                          const fs::path& fallback_root) {
    const std::string prefix = variant_prefix(compute, conversion);
    return {model_dir, fallback_root, prefix, prefix + files_fingerprint(model_dir) + ".safetensors"};
}

std::optional<WeightMap> read_weight_cache(const WeightCacheLocation& where, ComputeType compute, std::string& note) {
    for (const fs::path& dir : where.candidates()) {
        const fs::path file = dir / where.file_name;
        std::error_code ec;
        if (!fs::is_regular_file(file, ec)) continue;
        try {
            SafetensorsFile f = read_safetensors(file);
            if (f.metadata["format"] != kFormat || f.metadata["version"] != kVersion ||
                f.metadata["compute_type"] != compute_type_name(compute))
                throw Error("it is not a version " + std::string(kVersion) + " " + compute_type_name(compute) +
                            " weight cache");
            WeightMap map(file.string());
            for (auto& [name, t] : f.tensors) map.insert(name, std::move(t));
            check_finite_weights(map, file);
            return map;
        } catch (const Error& e) {
            note = "ignored the damaged weight cache " + file.string() + " (" + e.what() +
                   "); the weights are quantized again from the checkpoint";
            fs::remove(file, ec);
        }
    }
    return std::nullopt;
}

fs::path write_weight_cache(const WeightCacheLocation& where, const BartWeights& w, std::string& note) {
    const TensorList tensors = cache_tensors(w);
    const std::map<std::string, std::string> metadata{
        {"format", kFormat}, {"version", kVersion}, {"compute_type", compute_type_name(w.compute_type)}};
    std::string why;
    for (const fs::path& dir : where.candidates()) {
        std::error_code ec;
        fs::create_directories(dir, ec);
        if (ec) {
            why = "cannot create " + dir.string() + ": " + ec.message();
            continue;
        }
        const fs::path file = dir / where.file_name;
        const CacheWriteLock lock(file);
        if (lock.busy()) {
            note = "another process is writing the weight cache " + file.string() + " (" + lock.path().string() +
                   "); this run keeps its own copy and the next load reads that file";
            return {};
        }
        if (!lock.held()) {
            why = "cannot create " + lock.path().string() + ": " + std::strerror(lock.error());
            continue;
        }
        if (fs::exists(file, ec)) return file;  // written by another process since this one looked
        try {
            write_safetensors(file, tensors, metadata);
            remove_stale(dir, where.file_name, where.variant);
            return file;
        } catch (const Error& e) {
            why = e.what();
            fs::remove(dir, ec);  // only if empty: a folder made for nothing goes again
        }
    }
    note = std::string("could not cache the ") + compute_type_name(w.compute_type) + " weights (" + why +
           "); the next load quantizes them again";
    return {};
}

}  // namespace precis
