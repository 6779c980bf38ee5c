#include "app/cli/run_settings.h"

#include "app/cli/attention_flags.h"

#include <cstdlib>
#include <iostream>

#include "app/models/model_store.h"
#include "app/paths.h"
#include "app/worker/compute_type_setting.h"
#include "engine/backend/backend.h"
#include "engine/core/checked.h"
#include "engine/model/compute_type_choice.h"
#include "engine/model/encoder.h"
#include "engine/model/model.h"
#include "engine/pipeline/input_text.h"
#include "kernels/backend_factory.h"
#include "kernels/device_query.h"

namespace precis::cli {

namespace fs = std::filesystem;

std::set<std::string> generation_option_names() {
    return {"--beams", "--length-penalty", "--max-length", "--min-length", "--no-repeat-ngram", "--max-new-tokens"};
}

std::set<std::string> generation_flag_names() { return {"--early-stopping"}; }

std::set<std::string> summarize_option_names() {
    std::set<std::string> names = attention_option_names();
    names.merge(generation_option_names());
    names.insert({"--model", "--device", "--dtype", "--compute-type", "--batch-size"});
    return names;
}

ComputeType compute_type_from_flags(const Arguments& args) {
    return parse_compute_type(args.value_or("--compute-type", "fp32"));
}

namespace {

// --compute-type as given; when it is not (or is "auto"), fp32 unless the model would not
// fit in the memory free now, then int8 with a notice on stderr.
ComputeType compute_type_for_model(const fs::path& dir, const Arguments& args) {
    const ComputeTypeChoice choice = resolve_compute_type(args.value_or("--compute-type", "auto"), dir);
    if (!choice.notice.empty()) std::cerr << "precis: " << choice.notice << "\n";
    return choice.type;
}

}  // namespace

LoadedRun load_model_with_flags(const ModelLocation& where, const Arguments& args, bool need_tokenizer,
                                int lsg_extension_factor) {
    const fs::path& dir = where.dir;
    LoadOptions lo;
    lo.lsg_extension_factor = lsg_extension_factor;
    lo.tokenizer_dir = where.tokenizer_dir;
    lo.compute_type = compute_type_for_model(dir, args);
    lo.weight_cache_fallback = weight_cache_dir();
    lo.cache_quantized_weights = !lo.weight_cache_fallback.empty();
    if (auto v = args.int_value("--max-positions")) {
        check(*v > 0 && *v <= kMaxPositionsLimit, "--max-positions must be between 1 and " +
                                                      std::to_string(kMaxPositionsLimit) + ", not " + std::to_string(*v));
        lo.max_positions = *v;
    }
    const bool want_lsg = args.value("--attention").value_or("") == "lsg";
    if (want_lsg) {
        lo.convert_to_lsg = true;  // only acts on plain BART checkpoints
        LsgSettings s;
        apply_lsg_overrides(s, args);
        lo.lsg = s;
    }
    LoadedRun run;
    run.model = Model::load(dir, lo);
    for (const std::string& note : run.model->load_notes()) std::cerr << "precis: " << note << "\n";
    if (need_tokenizer) require_tokenizer(*run.model);
    run.attention = attention_from_flags(*run.model, args);
    return run;
}

GenerationConfig generation_from_flags(const Model& model, const Arguments& args) {
    GenerationConfig g = model.generation_config();
    if (auto v = args.int_value("--beams")) g.num_beams = *v;
    if (auto v = args.double_value("--length-penalty")) g.length_penalty = *v;
    const auto max_length = args.int_value("--max-length");
    const auto max_new_tokens = args.int_value("--max-new-tokens");
    if (max_length) {
        g.max_length = *max_length;
        g.max_new_tokens.reset();
    }
    if (max_new_tokens) g.max_new_tokens = *max_new_tokens;
    if (auto v = args.int_value("--min-length")) g.min_length = *v;
    if (auto v = args.int_value("--no-repeat-ngram")) g.no_repeat_ngram_size = *v;
    if (args.flag("--early-stopping")) g.early_stopping = true;
    check(g.num_beams >= 1 && g.num_beams <= 1024, "--beams must be between 1 and 1024, not " + std::to_string(g.num_beams));
    check(g.min_length >= 0, "--min-length must not be negative, not " + std::to_string(g.min_length));
    check(g.no_repeat_ngram_size >= 0,
          "--no-repeat-ngram must not be negative, not " + std::to_string(g.no_repeat_ngram_size));
    // Name the setting the length came from: the option given, else the model's generation config.
    const int positions = int(model.weights().decoder_positions.dim(0) - 2);
    if (g.max_new_tokens) {
        const std::string who = max_new_tokens ? "--max-new-tokens" : "max_new_tokens of the model's generation config";
        check(*g.max_new_tokens >= 1, who + " must be at least 1, not " + std::to_string(*g.max_new_tokens));
        check(*g.max_new_tokens < positions,
              who + " " + std::to_string(*g.max_new_tokens) + " exceeds the decoder's " + std::to_string(positions - 1) +
                  " generated tokens");
    } else {
        const std::string who = max_length ? "--max-length" : "max_length of the model's generation config";
        check(g.max_length >= 2, who + " must allow at least one generated token (at least 2), not " +
                                     std::to_string(g.max_length));
        check(g.max_length <= positions,
              who + " " + std::to_string(g.max_length) + " exceeds the decoder's " + std::to_string(positions) +
                  " positions");
    }
    return g;
}

std::shared_ptr<Backend> backend_from_flags(const Arguments& args, std::string* device_name) {
    BackendRequest request;
    request.device = args.value_or("--device", "auto");
    request.dtype = args.value_or("--dtype", "auto");
    const BackendChoice choice = make_backend(request);
    if (!choice.notice.empty()) std::cerr << "precis: " << choice.notice << "\n";
    if (device_name) *device_name = choice.device;
    return choice.backend;
}

namespace {

// A model named explicitly: a folder, else a name `precis model list` shows (an installed
// model, or a repo id such as acme/tiny-sum in the HuggingFace cache), as from_pretrained
// takes either. The fixture test model keeps its tokenizer apart.
ModelLocation named_model(const std::string& name, const char* source) {
    fs::path dir(name);  // file names are bytes on Linux: taken as given
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
        const fs::path named = models::model_folder_for(QString::fromStdString(name));
        if (named.empty())
            throw Error(std::string(source) + " " + name + ": no such model folder, and no installed or HuggingFace-cached "
                        "model of that name (precis model list shows the names)");
        dir = named;
    }
    if (TestModel t = fixture_test_model(); !t.dir.empty() && fs::equivalent(dir, t.dir, ec))
        return {t.dir, t.tokenizer_dir, true, source};
    return {dir, {}, false, source};
}

}  // namespace

std::optional<ModelLocation> find_model(const Arguments& args) {
    if (auto v = args.value("--model")) return named_model(*v, "--model");
    if (const char* e = std::getenv("PRECIS_MODEL"); e && *e) return named_model(e, "PRECIS_MODEL");
    if (auto user = user_default_model(); !user.empty()) return ModelLocation{user, {}, false, "user model folder"};
    if (auto bundled = bundled_model(); !bundled.empty()) return ModelLocation{bundled, {}, false, "bundled"};
    return std::nullopt;
}

ModelLocation locate_model(const Arguments& args) {
    if (std::optional<ModelLocation> found = find_model(args)) return *found;
    throw Error("no summarization model is installed: pass --model DIR, set PRECIS_MODEL, or put a HuggingFace "
                "BART/LSG-BART folder in " + user_models_dir().string() + " (or use --method extractive)");
}

void warn_if_test_model(const ModelLocation& where) {
    if (!where.is_test_model) return;
    std::cerr << "\n"
                 "**********************************************************************\n"
                 "* WARNING: this is the tiny RANDOM test model of the reference       *\n"
                 "* fixtures, meant for tests only:                                    *\n"
                 "*   " << where.dir.string() << "\n"
                 "* ITS OUTPUT IS MEANINGLESS. Install a real model (see README).      *\n"
                 "**********************************************************************\n\n";
}

}  // namespace precis::cli
