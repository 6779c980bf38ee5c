#include "engine/model/model.h"

#include "engine/convert/bart_to_lsg.h"
#include "engine/io/checkpoint.h"

namespace precis {

namespace fs = std::filesystem;

std::shared_ptr<const Model> Model::load(const fs::path& dir, const LoadOptions& opts) {
    if (!fs::is_directory(dir)) throw Error("model folder " + dir.string() + " does not exist");
    const fs::path config_path = dir / "config.json";
    if (!fs::exists(config_path)) throw Error("model folder " + dir.string() + " has no config.json");
    ModelConfig cfg = parse_model_config(config_path);
    WeightMap map = load_checkpoint(dir);
    if (opts.convert_to_lsg && !cfg.is_lsg) {
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
        map = convert_bart_to_lsg(map, cfg, co);
        cfg = lsg_model_config(cfg, co);
    }
    auto m = std::shared_ptr<Model>(new Model());
    m->weights_ = BartWeights::from_map(map, cfg, dir.string(), opts.compute_type);
    if (opts.max_positions && *opts.max_positions > m->max_input_tokens()) {
        m->weights_.extend_positions(*opts.max_positions);
        cfg.max_position_embeddings = *opts.max_positions;
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
