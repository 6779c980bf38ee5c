#include "app/cli/attention_flags.h"

#include "engine/core/error.h"
#include "engine/model/encoder.h"
#include "engine/model/model.h"

namespace precis::cli {

namespace {

EncoderAttention parse_attention_kind(const std::string& s) {
    if (s == "lsg") return EncoderAttention::Lsg;
    if (s == "full") return EncoderAttention::Full;
    if (s == "fovea") return EncoderAttention::Fovea;
    throw Error("--attention must be lsg, full or fovea, not '" + s + "'");
}

}  // namespace

std::set<std::string> attention_option_names() {
    return {"--attention",         "--sparsity-type",     "--block-size",   "--sparse-block-size",
            "--sparsity-factor",   "--num-global-tokens", "--max-positions", "--lsh-seed",
            "--fovea-block-size",  "--fovea-wing",        "--fovea-stop-level"};
}

void apply_lsg_overrides(LsgSettings& s, const Arguments& args) {
    if (auto v = args.value("--sparsity-type")) s.sparsity_type = parse_sparsity_type(*v);
    if (auto v = args.int_value("--block-size")) s.block_size = *v;
    if (auto v = args.int_value("--sparse-block-size")) s.sparse_block_size = *v;
    if (auto v = args.int_value("--sparsity-factor")) s.sparsity_factor = *v;
    if (auto v = args.int_value("--num-global-tokens")) s.num_global_tokens = *v;
}

AttentionOptions attention_from_flags(const Model& model, const Arguments& args) {
    AttentionOptions a = native_attention_options(model);
    if (auto v = args.value("--attention")) a.kind = parse_attention_kind(*v);
    apply_lsg_overrides(a.lsg, args);
    if (a.kind == EncoderAttention::Lsg) {
        if (a.lsg.num_global_tokens > 512 || a.lsg.num_global_tokens < 1)
            throw Error("--num-global-tokens must be between 1 and 512");
        a.lsg.validate("the LSG settings on the command line");
    }
    if (auto v = args.int_value("--lsh-seed")) a.lsh_seed = uint64_t(*v);
    if (auto v = args.int_value("--fovea-block-size")) a.fovea.block_size = *v;
    if (auto v = args.int_value("--fovea-wing")) a.fovea.wing = *v;
    if (auto v = args.int_value("--fovea-stop-level")) a.fovea.stop_level = *v;
    check(a.fovea.block_size > 0 && a.fovea.block_size <= kMaxLsgBlock,
          "--fovea-block-size must be between 1 and " + std::to_string(kMaxLsgBlock) + ", not " +
              std::to_string(a.fovea.block_size));
    check(a.fovea.wing > 0 && a.fovea.wing <= 1024,
          "--fovea-wing must be between 1 and 1024, not " + std::to_string(a.fovea.wing));
    return a;
}

}  // namespace precis::cli
