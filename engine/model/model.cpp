#include <atomic>
#include "engine/model/model.h"

#include <sstream>

#include "engine/convert/bart_to_lsg.h"
#include "engine/io/checkpoint.h"
#include "engine/model/weight_cache.h"

namespace precis {

namespace fs = std::filesystem;

namespace {

ConversionOptions conversion_options(const ModelConfig& cfg, const LoadOptions& opts) {
    ConversionOptions co;
    co.max_positions = std::max(cfg.max_position_embeddings, opts.max_positions.value_or(0));
    co.block_size = opts.lsg.block_size;
    co.sparse_block_size = opts.lsg.sparse_block_size;
    co.sparsity_factor = opts.lsg.sparsity_factor;
    co.sparsity_type = sparsity_type_name(opts.lsg.sparsity_type);
    co.num_global_tokens = opts.lsg.num_global_tokens;
    co.adaptive = opts.lsg.adaptive;
    co.pass_global_tokens_to_decoder = opts.lsg.pass_global_tokens_to_decoder;
    co.pool_with_global = opts.lsg.pool_with_global;
    co.mask_first_token = opts.lsg.mask_first_token;
    co.lsh_num_pre_rounds = opts.lsg.lsh_num_pre_rounds;
    return co;
}

// Everything of a conversion that changes the weights it makes (part of the cache's name).
std::string describe(const ConversionOptions& co) {
    std::ostringstream d;
    d << "lsg " << co.max_positions << ' ' << co.block_size << ' ' << co.sparse_block_size << ' ' << co.sparsity_factor
      << ' ' << co.sparsity_type << ' ' << co.num_global_tokens << ' ' << co.adaptive << ' '
      << co.pass_global_tokens_to_decoder << ' ' << co.pool_with_global << ' ' << co.mask_first_token << ' '
      << co.lsh_num_pre_rounds << ' ' << co.stride << ' ' << co.seed << ' ' << co.bos_id << ' ' << co.mask_id;
    return d.str();
}

std::string megabytes(const fs::path& file) {
    std::error_code ec;
    const auto bytes = fs::file_size(file, ec);
    return ec ? std::string("?") : std::to_string((bytes + (1u << 19)) >> 20);
}

}  // namespace

// The weights of `dir` as `opts` asks, and `cfg` as it then reads (LSG after an in-memory
// conversion). Quantized weights come from the cache when it holds them; otherwise they
// are made from the checkpoint and, when asked, cached and mapped back from the cache so
// the float32 checkpoint's mapping is let go (biases and norms were views into it).
BartWeights Model::load_weights(const fs::path& dir, ModelConfig& cfg, const LoadOptions& opts,
                                std::vector<std::string>& notes) {
    const bool convert = opts.convert_to_lsg && !cfg.is_lsg;
    const ConversionOptions co = conversion_options(cfg, opts);
    const ModelConfig source_cfg = cfg;
    if (convert) cfg = lsg_model_config(source_cfg, co);
    std::optional<WeightCacheLocation> cache;
    if (opts.cache_quantized_weights && opts.compute_type != ComputeType::Fp32)
        cache = weight_cache_location(dir, opts.compute_type, convert ? describe(co) : std::string(), opts.weight_cache_fallback);

    auto from_cache = [&]() -> std::optional<BartWeights> {
        std::string note;
        std::optional<WeightMap> map = read_weight_cache(*cache, opts.compute_type, note);
        if (!note.empty()) notes.push_back(note);
        if (!map) return std::nullopt;
        try {
            return BartWeights::from_cache(*map, cfg, map->source(), opts.compute_type);
        } catch (const Error& e) {  // readable but not what this config needs: rebuild it
            notes.push_back("ignored the damaged weight cache " + map->source() + " (" + e.what() +
                            "); the weights are quantized again from the checkpoint");
            std::error_code ec;
            fs::remove(map->source(), ec);
            return std::nullopt;
        }
    };
    if (cache)
        if (std::optional<BartWeights> cached = from_cache()) return std::move(*cached);

    auto from_checkpoint = [&] {
        WeightMap map = load_checkpoint(dir);
        if (convert) map = convert_bart_to_lsg(map, source_cfg, co);
        return BartWeights::from_map(map, cfg, dir.string(), opts.compute_type);
    };
    BartWeights weights = from_checkpoint();
    if (!cache) return weights;
    std::string note;
    const fs::path written = write_weight_cache(*cache, weights, note);
    if (written.empty()) {
        notes.push_back(note);
        return weights;
    }
    notes.push_back(std::string(opts.compute_type == ComputeType::Int8 ? "int8" : "fp16") + " weights cached in " +
                    written.string() + " (" + megabytes(written) + " MB): later loads map them instead of quantizing again");
    weights = BartWeights();  // let the checkpoint's mapping go before the cache is mapped
    if (std::optional<BartWeights> cached = from_cache()) return std::move(*cached);
    return from_checkpoint();
}

uint64_t Model::next_instance_id() {
    static std::atomic<uint64_t> counter{0};
    return ++counter;
}

std::shared_ptr<const Model> Model::load(const fs::path& dir, const LoadOptions& opts) {
    if (!fs::is_directory(dir)) throw Error("model folder " + dir.string() + " does not exist");
    const fs::path config_path = dir / "config.json";
    if (!fs::exists(config_path)) throw Error("model folder " + dir.string() + " has no config.json");
    ModelConfig cfg = parse_model_config(config_path);
    auto m = std::shared_ptr<Model>(new Model());
    const int saved_positions = cfg.max_position_embeddings;
    m->weights_ = load_weights(dir, cfg, opts, m->load_notes_);
    // An in-memory conversion may already have tiled the tables to max_positions.
    m->trained_input_tokens_ = std::min(saved_positions, m->max_input_tokens());
    int positions = opts.max_positions.value_or(0);
    if (cfg.is_lsg && opts.lsg_extension_factor > 1)
        positions = std::max(positions, std::min(kMaxPositionsLimit, m->trained_input_tokens_ * opts.lsg_extension_factor));
    if (positions > m->max_input_tokens()) {
        m->weights_.extend_positions(positions);
        cfg.max_position_embeddings = positions;
    }
    m->config_ = std::move(cfg);
    m->generation_ = load_generation_config(dir, m->config_);
    // A folder with weights but no tokenizer files still loads (for `forward`); callers
    // that need text check tokenizer() and report it. Broken tokenizer files are an error.
    if (opts.load_tokenizer && (!opts.tokenizer_dir.empty() || has_tokenizer_files(dir)))
        m->tokenizer_ = load_tokenizer(opts.tokenizer_dir.empty() ? dir : opts.tokenizer_dir);

    m->path_ = dir;
    m->name_ = fs::absolute(dir).lexically_normal().filename().string();
    if (m->name_.empty()) m->name_ = fs::absolute(dir).parent_path().filename().string();
    return m;
}

std::shared_ptr<const Model> Model::from_parts(ModelConfig cfg, BartWeights weights,
                                               std::shared_ptr<const Tokenizer> tokenizer,
                                               GenerationConfig generation, std::string name) {
    auto m = std::shared_ptr<Model>(new Model());
    m->config_ = std::move(cfg);
    m->weights_ = std::move(weights);
    m->trained_input_tokens_ = m->max_input_tokens();
    m->tokenizer_ = std::move(tokenizer);
    m->generation_ = generation;
    m->name_ = std::move(name);
    return m;
}

size_t Model::parameter_count() const {
    size_t n = weights_.lm_head.weight.numel() + weights_.encoder_positions.numel() + weights_.decoder_positions.numel();
    auto lin = [](const LinearWeights& l) { return size_t(l.weight.numel() + (l.bias.defined() ? l.bias.numel() : 0)); };
    auto att = [&](const AttentionWeights& a) { return lin(a.q) + lin(a.k) + lin(a.v) + lin(a.out); };
    for (auto& l : weights_.encoder_layers) n += att(l.self_attn) + lin(l.fc1) + lin(l.fc2) + 4 * config_.d_model;
    for (auto& l : weights_.decoder_layers)
        n += att(l.self_attn) + att(l.cross_attn) + lin(l.fc1) + lin(l.fc2) + 6 * config_.d_model;
    if (weights_.global_embeddings.defined()) n += weights_.global_embeddings.numel();
    return n;
}

}  // namespace precis
