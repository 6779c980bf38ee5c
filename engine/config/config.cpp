#include "engine/config/config.h"

#include <cctype>

#include <algorithm>
#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "engine/core/error.h"
#include "engine/io/json_file.h"

namespace precis {

namespace fs = std::filesystem;
using nlohmann::json;

const char* sparsity_type_name(SparsityType t) {
    switch (t) {
        case SparsityType::None: return "none";
        case SparsityType::Norm: return "norm";
        case SparsityType::Pooling: return "pooling";
        case SparsityType::Stride: return "stride";
        case SparsityType::BlockStride: return "block_stride";
        case SparsityType::BosPooling: return "bos_pooling";
        case SparsityType::Lsh: return "lsh";
    }
    return "?";
}

int ModelConfig::label_index(const std::string& name) const {
    auto lower = [](std::string s) {
        for (char& ch : s) ch = char(std::tolower(static_cast<unsigned char>(ch)));
        return s;
    };
    for (size_t i = 0; i < id2label.size(); ++i)
        if (lower(id2label[i]) == lower(name)) return int(i);
    return -1;
}

SparsityType parse_sparsity_type(const std::string& name) {
    for (SparsityType t : {SparsityType::None, SparsityType::Norm, SparsityType::Pooling, SparsityType::Stride,
                           SparsityType::BlockStride, SparsityType::BosPooling, SparsityType::Lsh})
        if (name == sparsity_type_name(t)) return t;
    throw Error("unknown LSG sparsity_type \"" + name +
                "\" (expected none, norm, pooling, stride, block_stride, bos_pooling or lsh)");
}

void LsgSettings::validate(const std::string& where) const {
    auto bad = [&](const std::string& problem) { throw Error(where + ": " + problem); };
    const std::string B = std::to_string(block_size), SB = std::to_string(sparse_block_size),
                      f = std::to_string(sparsity_factor);
    if (block_size <= 0) bad("block_size must be positive, not " + B);
    // Attention works on blocks of B x (several B) scores: far beyond any trained setting
    // (32 to 512), a block size only asks for gigabytes.
    if (block_size > kMaxLsgBlock) bad("block_size must be at most " + std::to_string(kMaxLsgBlock) + ", not " + B);
    if (sparse_block_size > kMaxLsgBlock)
        bad("sparse_block_size must be at most " + std::to_string(kMaxLsgBlock) + ", not " + SB);
    if (sparse_block_size < 0) bad("sparse_block_size must not be negative, not " + SB);
    if (sparsity_factor <= 0) bad("sparsity_factor must be positive, not " + f);
    if (num_global_tokens < 1 || num_global_tokens > 512)
        bad("num_global_tokens must be between 1 and 512, not " + std::to_string(num_global_tokens));
    if (lsh_num_pre_rounds < 0)
        bad("lsh_num_pre_rounds must not be negative, not " + std::to_string(lsh_num_pre_rounds));
    if (!sparse_enabled()) return;
    if (sparsity_factor > block_size) bad("sparsity_factor " + f + " is larger than block_size " + B);
    if (block_size % sparsity_factor != 0) bad("sparsity_factor " + f + " does not divide block_size " + B);
    const int p = block_size / sparsity_factor;
    if (p != 1 && p % 2 != 0)
        bad("block_size / sparsity_factor = " + std::to_string(p) + " must be even or exactly 1");
    if (!(4 * int64_t(sparse_block_size) > 3 * int64_t(p)))
        bad("sparse_block_size " + SB + " is too small for block_size " + B + " and sparsity_factor " + f +
            " (4 * sparse_block_size must exceed 3 * block_size / sparsity_factor)");
    // norm and lsh work in chunks of min(B, SB) tokens (lsh with f == SB is bos_pooling).
    const bool lsh_as_bos = sparsity_type == SparsityType::Lsh && sparsity_factor == sparse_block_size;
    if ((sparsity_type == SparsityType::Norm || sparsity_type == SparsityType::Lsh) && !lsh_as_bos) {
        const int bs = std::min(block_size, sparse_block_size);
        if (block_size % bs != 0)
            bad("with sparsity_type " + std::string(sparsity_type_name(sparsity_type)) + ", sparse_block_size " + SB +
                " must divide block_size " + B);
        if (bs % sparsity_factor != 0)
            bad("with sparsity_type " + std::string(sparsity_type_name(sparsity_type)) + ", sparsity_factor " + f +
                " must divide min(block_size, sparse_block_size) = " + std::to_string(bs));
    }
}

namespace {

// A value as it appears in an error message: short, and printable even when its strings
// are not valid UTF-8.
std::string brief(const json& v) {
    std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
    if (s.size() > 60) s = s.substr(0, 57) + "...";
    return s;
}

// Typed access to one JSON object with errors that name the source and the key.
class Keys {
public:
    Keys(const json& j, const std::string& where) : j_(j), where_(where) {}

    [[noreturn]] void fail(const std::string& problem) const { throw Error(where_ + ": " + problem); }

    bool has(const char* key) const { return j_.contains(key); }
    bool is_null(const char* key) const { return j_.contains(key) && j_.at(key).is_null(); }

    int64_t integer(const char* key, int64_t lo, int64_t hi) const {
        if (!j_.contains(key)) fail("the required key '" + std::string(key) + "' is missing");
        return to_int(key, j_.at(key), lo, hi);
    }
    int64_t integer(const char* key, int64_t fallback, int64_t lo, int64_t hi) const {
        if (!j_.contains(key)) return fallback;
        return to_int(key, j_.at(key), lo, hi);
    }
    // A token id: an integer, or null (-1, "none").
    int64_t token(const char* key, int64_t fallback, int64_t vocab) const {
        if (!j_.contains(key)) return fallback;
        const json& v = j_.at(key);
        if (v.is_null()) return -1;
        if (v.is_array()) {  // HF allows a list of eos ids; the first one is the main one
            if (v.empty()) return -1;
            return to_int(key, v.at(0), 0, vocab - 1);
        }
        return to_int(key, v, 0, vocab - 1);
    }
    bool boolean(const char* key, bool fallback) const {
        if (!j_.contains(key)) return fallback;
        const json& v = j_.at(key);
        if (!v.is_boolean()) fail("key '" + std::string(key) + "' must be true or false, not " + brief(v));
        return v.get<bool>();
    }
    double number(const char* key, double fallback) const {
        if (!j_.contains(key)) return fallback;
        const json& v = j_.at(key);
        if (!v.is_number() || !std::isfinite(v.get<double>()))
            fail("key '" + std::string(key) + "' must be a finite number, not " + brief(v));
        return v.get<double>();
    }
    std::string string(const char* key, const std::string& fallback) const {
        if (!j_.contains(key)) return fallback;
        const json& v = j_.at(key);
        if (!v.is_string()) fail("key '" + std::string(key) + "' must be a string, not " + brief(v));
        return v.get<std::string>();
    }

private:
    int64_t to_int(const char* key, const json& v, int64_t lo, int64_t hi) const {
        int64_t x = 0;
        if (v.is_number_unsigned() && v.get<uint64_t>() <= uint64_t(std::numeric_limits<int64_t>::max())) {
            x = int64_t(v.get<uint64_t>());
        } else if (v.is_number_integer() && !v.is_number_unsigned()) {
            x = v.get<int64_t>();
        } else if (v.is_number_float() && std::isfinite(v.get<double>()) && std::floor(v.get<double>()) == v.get<double>() &&
                   std::fabs(v.get<double>()) < 9e15) {
            x = int64_t(v.get<double>());
        } else {
            fail("key '" + std::string(key) + "' must be an integer, not " + brief(v));
        }
        if (x < lo || x > hi)
            fail("key '" + std::string(key) + "' = " + std::to_string(x) + " is out of the sensible range [" +
                 std::to_string(lo) + ", " + std::to_string(hi) + "]");
        return x;
    }

    const json& j_;
    std::string where_;
};

json read_json_object(const fs::path& path, const char* what) {
    const std::string subject = std::string(what) + " '" + path.string() + "'";
    json j = read_json_file(path, subject, kMaxConfigJsonBytes);
    if (!j.is_object()) throw Error(subject + " is not a JSON object");
    return j;
}

constexpr int64_t kMaxDim = int64_t(1) << 20;

}  // namespace

ModelConfig model_config_from_json(const json& j, const std::string& where) {
    if (!j.is_object()) throw Error(where + ": the configuration is not a JSON object");
    Keys k(j, where);
    ModelConfig c;

    const std::string model_type = k.string("model_type", "bart");
    if (model_type != "bart")
        k.fail("model_type '" + model_type + "' is not supported (Precis runs BART and LSG-BART models)");
    if (k.has("architectures")) {
        const json& a = j.at("architectures");
        if (!a.is_array() || (!a.empty() && !a.at(0).is_string()))
            k.fail("key 'architectures' must be a list of class names, not " + brief(a));
        if (!a.empty()) c.architecture = a.at(0).get<std::string>();
    }
    c.is_lsg = c.architecture.find("LSG") != std::string::npos;
    c.is_classifier = c.architecture.find("SequenceClassification") != std::string::npos;

    c.vocab_size = k.integer("vocab_size", 1, int64_t(1) << 27);
    c.d_model = int(k.integer("d_model", 1, 1 << 16));
    c.encoder_layers = int(k.integer("encoder_layers", 1, 1024));
    c.decoder_layers = int(k.integer("decoder_layers", 1, 1024));
    c.encoder_heads = int(k.integer("encoder_attention_heads", 1, 1024));
    c.decoder_heads = int(k.integer("decoder_attention_heads", 1, 1024));
    c.encoder_ffn_dim = int(k.integer("encoder_ffn_dim", 1, kMaxDim));
    c.decoder_ffn_dim = int(k.integer("decoder_ffn_dim", 1, kMaxDim));
    c.max_position_embeddings = int(k.integer("max_position_embeddings", 1, kMaxPositionsLimit));
    if (c.d_model % c.encoder_heads != 0)
        k.fail("d_model " + std::to_string(c.d_model) + " is not divisible by encoder_attention_heads " +
               std::to_string(c.encoder_heads));
    if (c.d_model % c.decoder_heads != 0)
        k.fail("d_model " + std::to_string(c.d_model) + " is not divisible by decoder_attention_heads " +
               std::to_string(c.decoder_heads));
    c.scale_embedding = k.boolean("scale_embedding", false);
    c.activation = k.string("activation_function", "gelu");
    if (c.activation != "gelu")
        k.fail("activation_function '" + c.activation + "' is not supported (only \"gelu\", the exact erf GELU)");

    // Token ids with the BartConfig defaults; null means "none" (-1).
    const int64_t V = c.vocab_size;
    c.pad_token_id = k.token("pad_token_id", 1, V);
    c.bos_token_id = k.token("bos_token_id", 0, V);
    c.eos_token_id = k.token("eos_token_id", 2, V);
    c.decoder_start_token_id = k.token("decoder_start_token_id", 2, V);
    c.forced_bos_token_id = k.token("forced_bos_token_id", -1, V);
    c.forced_eos_token_id = k.token("forced_eos_token_id", 2, V);
    if (c.forced_bos_token_id < 0 && k.boolean("force_bos_token_to_be_generated", false))
        c.forced_bos_token_id = c.bos_token_id;  // legacy spelling, as HF handles it
    if (c.decoder_start_token_id < 0) k.fail("key 'decoder_start_token_id' must not be null");

    // Labels: id2label keyed by string ints; else num_labels (BartConfig default 3).
    if (k.has("id2label") && !k.is_null("id2label")) {
        const json& m = j.at("id2label");
        if (!m.is_object()) k.fail("key 'id2label' must be an object of \"id\": \"label\"");
        c.id2label.assign(m.size(), std::string());
        std::vector<bool> seen(m.size(), false);
        for (auto it = m.begin(); it != m.end(); ++it) {
            size_t used = 0;
            long long id = -1;
            try {
                id = std::stoll(it.key(), &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (used != it.key().size() || id < 0 || id >= (long long)m.size() || seen[size_t(id)])
                k.fail("id2label key \"" + it.key() + "\" is not one of the ids 0.." + std::to_string(m.size() - 1));
            if (!it->is_string()) k.fail("id2label[\"" + it.key() + "\"] is not a string");
            seen[size_t(id)] = true;
            c.id2label[size_t(id)] = it->get<std::string>();
        }
        // As in HF, id2label wins over a disagreeing num_labels.
    } else {
        const int64_t n = k.integer("num_labels", 3, 1, 1 << 20);
        for (int64_t i = 0; i < n; ++i) c.id2label.push_back("LABEL_" + std::to_string(i));
    }
    if (!k.is_null("problem_type")) {
        c.problem_type = k.string("problem_type", "");
        if (!c.problem_type.empty() && c.problem_type != "single_label_classification" &&
            c.problem_type != "multi_label_classification" && c.problem_type != "regression")
            k.fail("problem_type '" + c.problem_type + "' is not a HuggingFace problem type");
    }

    if (c.is_lsg) {
        LsgSettings& l = c.lsg;
        l.adaptive = k.boolean("adaptive", l.adaptive);
        l.block_size = int(k.integer("block_size", l.block_size, std::numeric_limits<int>::min(), kMaxDim));
        l.sparse_block_size =
            int(k.integer("sparse_block_size", l.sparse_block_size, std::numeric_limits<int>::min(), kMaxDim));
        l.sparsity_factor =
            int(k.integer("sparsity_factor", l.sparsity_factor, std::numeric_limits<int>::min(), kMaxDim));
        if (k.has("sparsity_type")) {
            const std::string s = k.string("sparsity_type", "norm");
            try {
                l.sparsity_type = parse_sparsity_type(s);
            } catch (const Error& e) {
                k.fail(e.what());
            }
        }
        // The reference clamps the global token count to [1, 512].
        const int64_t g = k.integer("num_global_tokens", l.num_global_tokens, std::numeric_limits<int>::min(),
                                    std::numeric_limits<int>::max());
        l.num_global_tokens = int(std::clamp<int64_t>(g, 1, 512));
        l.pass_global_tokens_to_decoder = k.boolean("pass_global_tokens_to_decoder", l.pass_global_tokens_to_decoder);
        l.pool_with_global = k.boolean("pool_with_global", l.pool_with_global);
        l.mask_first_token = k.boolean("mask_first_token", l.mask_first_token);
        l.lsh_num_pre_rounds = int(k.integer("lsh_num_pre_rounds", l.lsh_num_pre_rounds, -1000, 1000));
        l.validate(where);
    }
    return c;
}

ModelConfig parse_model_config(const fs::path& config_json) {
    return model_config_from_json(read_json_object(config_json, "config file"),
                                  "config file '" + config_json.string() + "'");
}

GenerationConfig load_generation_config(const fs::path& model_dir, const ModelConfig& model) {
    GenerationConfig g;
    g.decoder_start_token_id = model.decoder_start_token_id;
    g.bos_token_id = model.bos_token_id;
    g.eos_token_id = model.eos_token_id;
    g.pad_token_id = model.pad_token_id;

    const fs::path gen = model_dir / "generation_config.json";
    const fs::path cfg = model_dir / "config.json";
    json j;
    std::string where;
    bool from_generation_file = false;
    if (fs::exists(gen)) {
        j = read_json_object(gen, "generation config");
        where = "generation config '" + gen.string() + "'";
        from_generation_file = true;
    } else if (fs::exists(cfg)) {
        j = read_json_object(cfg, "config file");
        where = "config file '" + cfg.string() + "'";
    } else {
        g.forced_bos_token_id = model.forced_bos_token_id;
        g.forced_eos_token_id = model.forced_eos_token_id;
        return g;
    }
    Keys k(j, where);
    const int64_t V = model.vocab_size > 0 ? model.vocab_size : std::numeric_limits<int64_t>::max();
    g.num_beams = int(k.integer("num_beams", 1, 1, 1024));
    g.length_penalty = k.number("length_penalty", 1.0);
    if (k.has("early_stopping") && j.at("early_stopping").is_string()) {
        // HF also accepts "never"; Precis treats it like false.
        if (j.at("early_stopping").get<std::string>() != "never")
            k.fail("key 'early_stopping' must be true, false or \"never\"");
        g.early_stopping = false;
    } else {
        g.early_stopping = k.boolean("early_stopping", false);
    }
    g.no_repeat_ngram_size = int(k.integer("no_repeat_ngram_size", 0, 0, 1 << 20));
    g.min_length = int(k.integer("min_length", 0, 0, 1 << 24));
    g.max_length = int(k.integer("max_length", 20, 1, 1 << 24));
    if (k.has("max_new_tokens") && !k.is_null("max_new_tokens"))
        g.max_new_tokens = int(k.integer("max_new_tokens", 1, 1 << 24));
    // Token ids: in generation_config.json a missing id keeps the model's value, except the
    // forced ones, which HF leaves unset; from config.json they are the model's.
    g.decoder_start_token_id = k.token("decoder_start_token_id", model.decoder_start_token_id, V);
    g.bos_token_id = k.token("bos_token_id", model.bos_token_id, V);
    g.eos_token_id = k.token("eos_token_id", model.eos_token_id, V);
    g.pad_token_id = k.token("pad_token_id", model.pad_token_id, V);
    if (from_generation_file) {
        g.forced_bos_token_id = k.token("forced_bos_token_id", -1, V);
        g.forced_eos_token_id = k.token("forced_eos_token_id", -1, V);
    } else {
        g.forced_bos_token_id = model.forced_bos_token_id;
        g.forced_eos_token_id = model.forced_eos_token_id;
    }
    return g;
}

}  // namespace precis
