// precis inspect MODEL: architecture, sizes, attention settings, tokenizer.
#include <iostream>

#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "engine/core/error.h"
#include "engine/model/model.h"

namespace precis::cli {

int cmd_inspect(const Args& raw) {
    Arguments args("inspect", raw, {"--json"}, {});
    if (args.positional().size() != 1) throw Error("precis inspect needs exactly one MODEL folder");
    auto model = Model::load(args.positional()[0]);
    const ModelConfig& c = model->config();
    const GenerationConfig& g = model->generation_config();
    std::cout << "model:          " << model->path().string() << "\n"
              << "architecture:   " << c.architecture << "\n"
              << "parameters:     " << model->parameter_count() << " (" << model->parameter_count() * 4 / 1000000
              << " MB as float32)\n"
              << "layers:         " << c.encoder_layers << " encoder + " << c.decoder_layers << " decoder\n"
              << "d_model:        " << c.d_model << ", heads " << c.encoder_heads << " (head dim "
              << c.encoder_head_dim() << "), ffn " << c.encoder_ffn_dim << "\n"
              << "vocabulary:     " << c.vocab_size << "\n"
              << "max positions:  " << model->max_input_tokens() << "\n";
    if (c.is_lsg) {
        const LsgSettings& s = c.lsg;
        std::cout << "attention:      LSG, sparsity " << sparsity_type_name(s.sparsity_type) << ", block "
                  << s.block_size << ", sparse block " << s.sparse_block_size << ", factor " << s.sparsity_factor
                  << ", " << s.num_global_tokens << " global token(s)"
                  << (s.pass_global_tokens_to_decoder ? "" : ", globals not passed to decoder")
                  << (s.mask_first_token ? ", first token masked" : "") << "\n";
    } else {
        std::cout << "attention:      full (plain BART; --attention lsg converts it in memory)\n";
    }
    if (c.is_classifier) {
        std::cout << "labels:         ";
        for (size_t i = 0; i < c.id2label.size(); ++i) std::cout << (i ? ", " : "") << c.id2label[i];
        std::cout << (c.problem_type == "multi_label_classification" ? " (multi-label)" : "") << "\n";
    } else {
        std::cout << "generation:     beams " << g.num_beams << ", length penalty " << g.length_penalty
                  << ", max length " << (g.max_new_tokens ? *g.max_new_tokens + 1 : g.max_length) << ", min length "
                  << g.min_length << ", no-repeat n-gram " << g.no_repeat_ngram_size << "\n";
    }
    if (const Tokenizer* t = model->tokenizer())
        std::cout << "tokenizer:      " << t->kind() << ", " << t->vocab_size() << " tokens\n";
    else
        std::cout << "tokenizer:      none in this folder\n";
    return 0;
}

}  // namespace precis::cli
