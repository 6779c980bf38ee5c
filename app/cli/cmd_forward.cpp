// precis forward --model DIR --input IN.json --out OUT.safetensors [--generate greedy|beam] ...
// Runs the encoder and one decoder pass on given ids and writes the tensors named as
// in the reference fixtures, for parity checks.
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "engine/io/json_file.h"
#include "engine/core/error.h"
#include "app/cli/progress.h"
#include "app/cli/run_settings.h"
#include "engine/attention/attention.h"
#include "engine/io/safetensors.h"
#include "engine/model/model.h"
#include "engine/pipeline/forward_pass.h"

namespace precis::cli {

namespace {

std::vector<std::vector<int64_t>> id_rows(const nlohmann::json& j, const std::string& key, const std::string& file) {
    if (!j.contains(key)) return {};
    const auto& v = j[key];
    if (!v.is_array()) throw Error(file + ": '" + key + "' must be a list of lists of integers");
    std::vector<std::vector<int64_t>> rows;
    for (const auto& row : v) {
        if (!row.is_array()) throw Error(file + ": '" + key + "' must be a list of lists of integers");
        std::vector<int64_t> r;
        for (const auto& x : row) {
            if (!x.is_number_integer()) throw Error(file + ": '" + key + "' holds a value that is not an integer");
            r.push_back(x.get<int64_t>());
        }
        rows.push_back(std::move(r));
    }
    return rows;
}

void inject_projections(LshProjections& lsh, const std::string& file) {
    SafetensorsFile f = read_safetensors(file);
    int count = 0;
    for (const auto& [name, t] : f.tensors) {
        // lsh_R_<layer>_<round>
        if (name.rfind("lsh_R_", 0) != 0) continue;
        const std::string rest = name.substr(6);
        const auto us = rest.find('_');
        if (us == std::string::npos) throw Error(file + ": tensor '" + name + "' is not named lsh_R_<layer>_<round>");
        lsh.inject(std::stoi(rest.substr(0, us)), std::stoi(rest.substr(us + 1)), t.to_f32());
        ++count;
    }
    if (!count) throw Error(file + " holds no tensors named lsh_R_<layer>_<round>");
}

}  // namespace

int cmd_forward(const Args& raw) {
    auto options = attention_option_names();
    for (auto& o : generation_option_names()) options.insert(o);
    options.insert(
        {"--model", "--input", "--out", "--generate", "--device", "--dtype", "--lsh-projections", "--compute-type"});
    auto flags = generation_flag_names();
    Arguments args("forward", raw, flags, options);
    auto model_dir = args.value("--model");
    auto input = args.value("--input");
    auto out = args.value("--out");
    if (!model_dir || !input || !out) throw Error("precis forward needs --model DIR, --input IN.json and --out OUT.safetensors");

    const nlohmann::json j = read_json_file(*input, "input file '" + *input + "'", uint64_t(256) << 20);
    ModelLocation where{*model_dir, {}, false, "--model"};
    LoadedRun run = load_model_with_flags(where, args, false);
    std::string device;
    auto backend = backend_from_flags(args, &device);

    ForwardRequest req;
    req.input_ids = id_rows(j, "input_ids", *input);
    req.attention_mask = id_rows(j, "attention_mask", *input);
    req.decoder_input_ids = id_rows(j, "decoder_input_ids", *input);
    if (req.input_ids.empty()) throw Error(*input + " has no input_ids");
    req.attention = run.attention;
    if (auto p = args.value("--lsh-projections")) {
        auto lsh = std::make_shared<LshProjections>(LshProjections::seeded(run.attention.lsh_seed));
        inject_projections(*lsh, *p);
        req.attention.lsh = lsh;
    }
    GenerationConfig g = generation_from_flags(*run.model, args);
    if (auto mode = args.value("--generate")) {
        if (*mode == "greedy") {
            req.greedy = true;
            req.greedy_config = g;
            req.greedy_config.num_beams = 1;
        } else if (*mode == "beam") {
            req.beam = true;
            req.beam_config = g;
            if (!args.int_value("--beams") && g.num_beams < 2) req.beam_config.num_beams = 4;
        } else {
            throw Error("--generate must be greedy or beam, not '" + *mode + "'");
        }
    }
    NamedTensors tensors = run_forward(*run.model, *backend, req, progress_callbacks("forward"));
    progress_done();
    write_safetensors(*out, tensors, {{"generator", "precis forward"}});
    std::cerr << "precis: wrote " << tensors.size() << " tensors to " << *out << "\n";
    return 0;
}

}  // namespace precis::cli
