#include "engine/convert/bart_to_lsg.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/core/checked.h"
#include "engine/core/normal_draws.h"
#include "engine/io/json_file.h"
#include "engine/io/regular_file.h"
#include "engine/io/safetensors.h"
#include "engine/io/temp_sibling.h"

namespace precis {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr int kGlobalRows = 512;  // the reference's fixed global table size
const char* kShared = "model.shared.weight";
const char* kEncPos = "model.encoder.embed_positions.weight";
const char* kDecPos = "model.decoder.embed_positions.weight";
const char* kGlobal = "model.encoder.global_embeddings.weight";

std::string lsg_architecture(const std::string& arch) {
    if (arch.empty()) return "LSGBartForConditionalGeneration";
    if (arch.rfind("LSG", 0) == 0) return arch;
    if (arch.rfind("Bart", 0) != 0)
        throw Error("cannot convert architecture '" + arch + "' to LSG (only Bart* models can be converted)");
    return "LSG" + arch;
}

// Rows as float32, whatever the stored dtype.
std::vector<float> rows_f32(const Tensor& t) { return t.to_float_vector(); }

Tensor store(const std::vector<float>& v, Shape shape, DType dtype) {
    Tensor f = Tensor::from_floats(std::move(shape), v);
    return dtype == DType::F32 ? f : f.to(dtype);
}

int64_t default_mask_id(int64_t vocab) { return vocab >= 50265 ? 50264 : vocab - 1; }

}  // namespace

int64_t mask_token_id_from_tokenizer(const fs::path& dir) {
    auto read = [](const fs::path& p) {
        return read_json_file(p, "the tokenizer file '" + p.string() + "'", kMaxTokenizerFileBytes);
    };
    if (fs::exists(dir / "tokenizer.json")) {
        json j = read(dir / "tokenizer.json");
        if (j.is_object() && j.contains("added_tokens") && j["added_tokens"].is_array())
            for (const json& t : j["added_tokens"])
                if (t.is_object() && t.contains("content") && t["content"].is_string() &&
                    t["content"].get<std::string>() == "<mask>" && t.contains("id") && t["id"].is_number_integer())
                    return t["id"].get<int64_t>();
    }
    if (fs::exists(dir / "vocab.json")) {
        json j = read(dir / "vocab.json");
        if (j.is_object() && j.contains("<mask>") && j["<mask>"].is_number_integer()) return j["<mask>"].get<int64_t>();
    }
    return -1;
}

namespace {

void apply_lsg_config(json& j, const ModelConfig& bart, const ConversionOptions& opts) {
    if (!j.is_object()) j = json::object();
    json archs = json::array();
    if (j.contains("architectures") && j["architectures"].is_array() && !j["architectures"].empty()) {
        for (const json& a : j["architectures"]) archs.push_back(lsg_architecture(a.is_string() ? a.get<std::string>() : ""));
    } else {
        archs.push_back(lsg_architecture(bart.architecture));
    }
    j["architectures"] = archs;
    j["auto_map"] = {
        {"AutoModel", "modeling_lsg_bart.LSGBartModel"},
        {"AutoModelForCausalLM", "modeling_lsg_bart.LSGBartForCausalLM"},
        {"AutoModelForQuestionAnswering", "modeling_lsg_bart.LSGBartForQuestionAnswering"},
        {"AutoModelForSeq2SeqLM", "modeling_lsg_bart.LSGBartForConditionalGeneration"},
        {"AutoModelForSequenceClassification", "modeling_lsg_bart.LSGBartForSequenceClassification"}};
    j["base_model_prefix"] = "lsg";
    j["adaptive"] = opts.adaptive;
    j["block_size"] = opts.block_size;
    j["sparse_block_size"] = opts.sparse_block_size;
    j["sparsity_factor"] = opts.sparsity_factor;
    j["sparsity_type"] = opts.sparsity_type;
    j["num_global_tokens"] = opts.num_global_tokens;
    j["pass_global_tokens_to_decoder"] = opts.pass_global_tokens_to_decoder;
    j["pool_with_global"] = opts.pool_with_global;
    j["mask_first_token"] = opts.mask_first_token;
    j["lsh_num_pre_rounds"] = opts.lsh_num_pre_rounds;
    j["max_position_embeddings"] = opts.max_positions;
}

// new[0:2] = old[0:2]; new[2 + j] = old[2 + (j mod (R - 2))] for j < L.
Tensor tile_positions(const Tensor& old, int64_t L, const std::string& name, const std::string& source) {
    if (old.rank() != 2 || old.dim(0) <= 2)
        throw Error("model folder '" + source + "' has a position table '" + name + "' of shape " +
                    shape_str(old.shape()) + ", too small to convert");
    const int64_t R = old.dim(0) - 2, D = old.dim(1);
    const size_t row = size_t(D) * dtype_size(old.dtype());
    Tensor out = Tensor::empty(old.dtype(), {L + 2, D});
    const uint8_t* src = static_cast<const uint8_t*>(old.raw());
    uint8_t* dst = out.data<uint8_t>();
    std::memcpy(dst, src, 2 * row);
    for (int64_t j = 0; j < L; ++j) std::memcpy(dst + size_t(2 + j) * row, src + size_t(2 + j % R) * row, row);
    return out;
}

}  // namespace

LsgSettings lsg_settings_from_options(const ConversionOptions& o, const std::string& where) {
    LsgSettings s;
    s.adaptive = o.adaptive;
    s.block_size = o.block_size;
    s.sparse_block_size = o.sparse_block_size;
    s.sparsity_factor = o.sparsity_factor;
    try {
        s.sparsity_type = parse_sparsity_type(o.sparsity_type);
    } catch (const Error& e) {
        throw Error(where + ": " + e.what());
    }
    s.num_global_tokens = o.num_global_tokens;
    s.pass_global_tokens_to_decoder = o.pass_global_tokens_to_decoder;
    s.pool_with_global = o.pool_with_global;
    s.mask_first_token = o.mask_first_token;
    s.lsh_num_pre_rounds = o.lsh_num_pre_rounds;
    s.validate(where);
    if (o.max_positions < 1 || o.max_positions > kMaxPositionsLimit)
        throw Error(where + ": max_positions must be between 1 and " + std::to_string(kMaxPositionsLimit) + ", not " +
                    std::to_string(o.max_positions));
    if (o.stride < 1 || o.stride > kGlobalRows)
        throw Error(where + ": the global positional stride must be between 1 and 512, not " + std::to_string(o.stride));
    return s;
}

ModelConfig lsg_model_config(const ModelConfig& bart, const ConversionOptions& opts) {
    ModelConfig c = bart;
    c.lsg = lsg_settings_from_options(opts);
    c.is_lsg = true;
    c.architecture = lsg_architecture(bart.architecture);
    c.max_position_embeddings = opts.max_positions;
    return c;
}

WeightMap convert_bart_to_lsg(const WeightMap& bart, const ModelConfig& cfg, const ConversionOptions& opts,
                              json* new_config_json) {
    const std::string src = bart.source().empty() ? std::string("(in memory)") : bart.source();
    if (cfg.is_lsg || bart.has(kGlobal))
        throw Error("model folder '" + src + "' is already an LSG model; only plain BART checkpoints can be converted");
    lsg_settings_from_options(opts);
    if (opts.keep_first_global_token)
        throw Error("keep_first_global_token needs a source that already has global embeddings, and the BART model '" +
                    src + "' has none");

    const Tensor& shared = bart.get(kShared);
    const Tensor& enc_pos = bart.get(kEncPos);
    const Tensor& dec_pos = bart.get(kDecPos);
    if (shared.rank() != 2 || enc_pos.rank() != 2 || dec_pos.rank() != 2 || shared.dim(1) != enc_pos.dim(1) ||
        dec_pos.dim(1) != enc_pos.dim(1) || enc_pos.dim(0) <= 2)
        throw Error("model folder '" + src + "' has embedding tables of inconsistent shapes (shared " +
                    shape_str(shared.shape()) + ", encoder positions " + shape_str(enc_pos.shape()) + ")");
    const int64_t V = shared.dim(0), D = shared.dim(1);
    const int64_t bos = opts.bos_id >= 0 ? opts.bos_id : cfg.bos_token_id;
    const int64_t mask = opts.mask_id >= 0 ? opts.mask_id : default_mask_id(V);
    if (bos < 0 || bos >= V)
        throw Error("conversion of '" + src + "': bos id " + std::to_string(bos) + " is outside the vocabulary of " +
                    std::to_string(V));
    if (mask < 0 || mask >= V)
        throw Error("conversion of '" + src + "': mask id " + std::to_string(mask) + " is outside the vocabulary of " +
                    std::to_string(V));

    // Global rows from the ORIGINAL encoder positions P = table[2:].
    const std::vector<float> pos = rows_f32(enc_pos);
    int64_t n = enc_pos.dim(0) - 2;
    std::vector<float> P(pos.begin() + 2 * D, pos.end());
    if (n % kGlobalRows != 0) {
        if (n > kGlobalRows) {
            n = kGlobalRows * (n / kGlobalRows);
            P.resize(size_t(n * D));
        } else {  // pad with N(mean, std) rows (std unbiased, as torch.std)
            std::vector<double> mean(size_t(D), 0.0), sd(size_t(D), 0.0);
            for (int64_t r = 0; r < n; ++r)
                for (int64_t c = 0; c < D; ++c) mean[size_t(c)] += P[size_t(r * D + c)];
            for (double& m : mean) m /= double(n);
            for (int64_t r = 0; r < n; ++r)
                for (int64_t c = 0; c < D; ++c) {
                    const double d = P[size_t(r * D + c)] - mean[size_t(c)];
                    sd[size_t(c)] += d * d;
                }
            for (double& s : sd) s = n > 1 ? std::sqrt(s / double(n - 1)) : 0.0;
            NormalDraws rng(opts.seed);
            P.resize(size_t(kGlobalRows * D));
            for (int64_t r = n; r < kGlobalRows; ++r)
                for (int64_t c = 0; c < D; ++c)
                    P[size_t(r * D + c)] = float(mean[size_t(c)] + sd[size_t(c)] * rng.next());
            n = kGlobalRows;
        }
    }
    const int64_t F = n / kGlobalRows;  // keep every F-th position
    const int64_t s = opts.stride / F;
    if (s < 1 || kGlobalRows % s != 0)
        throw Error("conversion of '" + src + "': the global positional stride " + std::to_string(opts.stride) +
                    " does not fit a position table of " + std::to_string(n) + " rows (stride / " + std::to_string(F) +
                    " must divide 512)");
    const int64_t per = kGlobalRows / s;
    std::vector<float> global(size_t(kGlobalRows * D));
    const std::vector<float> emb = rows_f32(shared);  // small enough; the conversion is offline
    for (int64_t k = 0; k < kGlobalRows; ++k) {
        const int64_t srcrow = F * ((k % per) * s + k / per);
        const float* add = emb.data() + size_t((k == 0 ? bos : mask) * D);
        for (int64_t c = 0; c < D; ++c)
            global[size_t(k * D + c)] = P[size_t(srcrow * D + c)] + add[c];
    }

    WeightMap out(bart.source());
    for (const auto& [name, t] : bart) out.insert(name, t);
    {  // both tiled tables, before either is allocated
        const std::string what = "converting model folder '" + src + "' to " + std::to_string(opts.max_positions) +
                                 " positions";
        const uint64_t row = checked_mul(uint64_t(D), uint64_t(dtype_size(enc_pos.dtype())), what);
        require_memory(checked_mul(checked_mul(uint64_t(opts.max_positions) + 2, row, what), uint64_t(2), what), what);
    }
    out.insert(kEncPos, tile_positions(enc_pos, opts.max_positions, kEncPos, src));
    out.insert(kDecPos, tile_positions(dec_pos, opts.max_positions, kDecPos, src));
    out.insert(kGlobal, store(global, {kGlobalRows, D}, enc_pos.dtype()));
    if (new_config_json) apply_lsg_config(*new_config_json, cfg, opts);
    return out;
}

void convert_bart_folder(const fs::path& src_in, const fs::path& dst_in, const ConversionOptions& opts,
                         const ByteProgress* progress) {
    const fs::path src = src_in.filename().empty() ? src_in.parent_path() : src_in;
    const fs::path dst = dst_in.filename().empty() ? dst_in.parent_path() : dst_in;
    lsg_settings_from_options(opts);  // reject bad options before any work
    std::error_code ec;
    if (!fs::is_directory(src, ec)) throw Error("model folder '" + src.string() + "' does not exist or is not a folder");
    if (fs::exists(dst, ec) && !(fs::is_directory(dst, ec) && fs::is_empty(dst, ec)))
        throw Error("cannot convert into '" + dst.string() + "': it already exists and is not an empty folder");
    const fs::path cfg_path = src / "config.json";
    if (!fs::exists(cfg_path)) throw Error("model folder '" + src.string() + "' has no config.json");
    const ModelConfig cfg = parse_model_config(cfg_path);
    if (cfg.is_lsg)
        throw Error("model folder '" + src.string() + "' is already an LSG model (" + cfg.architecture +
                    "); only plain BART checkpoints can be converted");
    json cfg_json = read_json_file(cfg_path, "config file '" + cfg_path.string() + "'", kMaxConfigJsonBytes);

    ConversionOptions o = opts;
    if (o.mask_id < 0) {
        const int64_t m = mask_token_id_from_tokenizer(src);
        // A tokenizer whose <mask> lies outside the embedding table (bart-large-cnn has
        // 50264 rows) falls back to the default rule.
        if (m >= 0 && m < cfg.vocab_size) o.mask_id = m;
    }
    const WeightMap bart = load_checkpoint(src);
    if (progress) progress->check_abort();
    const WeightMap lsg = convert_bart_to_lsg(bart, cfg, o, &cfg_json);
    if (progress) progress->check_abort();
    cfg_json["_name_or_path"] = dst.filename().string();

    // Tied weights (lm_head, embed_tokens sharing the memory of model.shared) are written once.
    const void* shared_data = lsg.get(kShared).raw();
    std::vector<std::pair<std::string, Tensor>> tensors;
    for (const auto& [name, t] : lsg) {
        const bool tied = name == "lm_head.weight" || name == "model.encoder.embed_tokens.weight" ||
                          name == "model.decoder.embed_tokens.weight";
        if (tied && t.raw() == shared_data) continue;
        tensors.emplace_back(name, t);
    }

    fs::path parent = dst.parent_path().empty() ? fs::path(".") : dst.parent_path();
    if (!fs::is_directory(parent, ec))
        throw Error("cannot convert into '" + dst.string() + "': the folder '" + parent.string() + "' does not exist");
    const fs::path tmp = temp_sibling(dst, "partial");
    fs::remove_all(tmp, ec);
    try {
        fs::create_directory(tmp);
        {
            const fs::path p = tmp / "config.json";
            std::ofstream out(p, std::ios::binary);
            out << cfg_json.dump(2) << '\n';
            out.close();
            if (!out) throw Error("cannot write '" + p.string() + "'");
        }
        write_safetensors(tmp / "model.safetensors", tensors, {{"format", "pt"}}, progress);
        static const char* kCopied[] = {"generation_config.json", "tokenizer.json", "vocab.json",
                                        "merges.txt", "tokenizer_config.json", "special_tokens_map.json",
                                        "added_tokens.json"};
        for (const char* f : kCopied)
            if (fs::exists(src / f)) {
                require_regular_file(src / f, quoted_path(src / f));
                fs::copy_file(src / f, tmp / f);
            }
        for (const auto& e : fs::directory_iterator(src))
            if (e.is_regular_file() && e.path().extension() == ".model") fs::copy_file(e.path(), tmp / e.path().filename());
        if (fs::exists(dst)) fs::remove(dst);  // an empty folder, checked above
        fs::rename(tmp, dst);
    } catch (const fs::filesystem_error& e) {
        fs::remove_all(tmp, ec);
        throw Error("cannot write the converted model to '" + dst.string() + "': " + e.code().message());
    } catch (...) {
        fs::remove_all(tmp, ec);
        throw;
    }
}

}  // namespace precis
