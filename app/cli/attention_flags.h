#pragma once
// The encoder attention options on the command line (--attention, the LSG and Fovea settings),
// read once here for precis and for precis-bench, which is built without Qt.
#include <set>
#include <string>

#include "app/cli/arguments.h"
#include "engine/config/config.h"
#include "engine/model/run_options.h"

namespace precis {
class Model;
}

namespace precis::cli {

std::set<std::string> attention_option_names();  // --attention, --sparsity-type, ...

// --sparsity-type, --block-size, --sparse-block-size, --sparsity-factor, --num-global-tokens
// over `s` (for the in-memory BART -> LSG conversion as much as for a run).
void apply_lsg_overrides(LsgSettings& s, const Arguments& args);

// The model's native attention options with the overrides applied; throws precis::Error
// naming the flag for a value out of range.
AttentionOptions attention_from_flags(const Model& model, const Arguments& args);

}  // namespace precis::cli
