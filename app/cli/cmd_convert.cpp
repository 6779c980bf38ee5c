// precis convert SRC DST [...]: a HuggingFace BART folder into an LSG one (lsg-spec 5).
#include <iostream>

#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "app/cli/progress.h"
#include "engine/core/error.h"
#include "engine/convert/bart_to_lsg.h"

namespace precis::cli {

int cmd_convert(const Args& raw) {
    Arguments args("convert", raw, {},
                   {"--max-positions", "--block-size", "--sparse-block-size", "--sparsity-factor", "--sparsity-type",
                    "--num-global-tokens", "--seed", "--stride"});
    if (args.positional().size() != 2) throw Error("precis convert needs SRC and DST folders");
    ConversionOptions o;
    if (auto v = args.int_value("--max-positions")) o.max_positions = *v;
    if (auto v = args.int_value("--block-size")) o.block_size = *v;
    if (auto v = args.int_value("--sparse-block-size")) o.sparse_block_size = *v;
    if (auto v = args.int_value("--sparsity-factor")) o.sparsity_factor = *v;
    if (auto v = args.value("--sparsity-type")) o.sparsity_type = *v;
    if (auto v = args.int_value("--num-global-tokens")) o.num_global_tokens = *v;
    if (auto v = args.int_value("--seed")) o.seed = uint64_t(*v);
    if (auto v = args.int_value("--stride")) o.stride = *v;
    lsg_settings_from_options(o, "the conversion options");
    const ByteProgress progress = byte_progress("converting");
    convert_bart_folder(args.positional()[0], args.positional()[1], o, &progress);
    progress_done();
    std::cerr << "precis: converted " << args.positional()[0] << " to LSG (" << o.max_positions << " positions, "
              << o.sparsity_type << ", block " << o.block_size << ") in " << args.positional()[1] << "\n";
    return 0;
}

}  // namespace precis::cli
