#pragma once
// The flags shared by summarize, forward, bench and batch: which model, which device,
// which encoder attention with which LSG/Fovea settings, and the generation settings.
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "app/cli/arguments.h"
#include "engine/model/compute_type.h"
#include "engine/config/config.h"
#include "engine/model/run_options.h"

#include "app/cli/attention_flags.h"

namespace precis {
class Backend;
class Model;
}

namespace precis::cli {

// Option names each group adds to a command's parser.
std::set<std::string> generation_option_names();  // --beams, --length-penalty, ...
std::set<std::string> generation_flag_names();    // --early-stopping
// --compute-type fp32|int8|fp16-weights: how the linear layers hold their weights (fp32
// when not given). Loading a model folder also takes "auto", its default there: fp32
// unless the model would not fit in the free memory (see compute_type_choice.h).
ComputeType compute_type_from_flags(const Arguments& args);
// Everything a summarizing command takes: attention, generation, --model, --device,
// --compute-type.
std::set<std::string> summarize_option_names();

// Loading options implied by the attention flags (extrapolation, in-memory conversion).
struct LoadedRun {
    std::shared_ptr<const Model> model;
    AttentionOptions attention;
};
struct ModelLocation;
// `lsg_extension_factor`: LoadOptions::lsg_extension_factor (--long auto and extend).
LoadedRun load_model_with_flags(const ModelLocation& where, const Arguments& args, bool need_tokenizer,
                                int lsg_extension_factor = 0);

// The model's generation config with the command-line overrides applied.
GenerationConfig generation_from_flags(const Model& model, const Arguments& args);

// --device auto|cpu|cuda: the backend to run on. Prints a one-line notice on stderr when
// the request cannot be met and the CPU is used instead. `device_name` receives "cpu"...
std::shared_ptr<Backend> backend_from_flags(const Arguments& args, std::string* device_name = nullptr);

// Where the model is and whether it is only the meaningless test model (which a run uses
// only when named with --model or PRECIS_MODEL: tests do, users never get it by default).
struct ModelLocation {
    std::filesystem::path dir;
    std::filesystem::path tokenizer_dir;  // empty: the model folder itself
    bool is_test_model = false;
    std::string source;  // "--model", "PRECIS_MODEL", "user model folder", "bundled"
};
// --model, else PRECIS_MODEL, else the first of the user's models, else the bundled one;
// nullopt when there is none.
std::optional<ModelLocation> find_model(const Arguments& args);
// find_model, or an error saying how to install a model.
ModelLocation locate_model(const Arguments& args);
// Prints the loud warning when the model is the fixture test model.
void warn_if_test_model(const ModelLocation& where);

}  // namespace precis::cli
