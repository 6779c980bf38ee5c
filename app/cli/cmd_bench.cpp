// precis bench: the neural benchmark of bench_core.cpp with the Qt application's settings
// (backend_from_flags, model loading with its weight cache, progress lines), and the
// extractive benchmark (bench_extractive.cpp), which needs Qt and stays here, and the
// library merge benchmark (bench_merge.cpp).
#include <nlohmann/json.hpp>

#include "app/cli/bench_core.h"
#include "app/cli/bench_extractive.h"
#include "app/cli/bench_merge.h"
#include "app/cli/commands.h"
#include "app/cli/method_flags.h"
#include "app/cli/progress.h"
#include "app/cli/run_settings.h"
#include "engine/core/error.h"

namespace precis::cli {

int cmd_bench(const Args& raw) {
    auto options = attention_option_names();
    options.merge(bench_option_names());
    options.merge(method_option_names());
    options.insert("--child-share");  // bench_extractive's child processes
    options.insert({"--merge-summaries", "--shards", "--document-bytes"});  // bench_merge.cpp
    Arguments args("bench", raw, bench_flag_names(), options);
    if (args.value("--merge-summaries")) return bench_merge(args);
    if (args.value("--method") == "extractive") return bench_extractive(args);

    BenchFrontEnd front;
    front.child_prefix = {"bench"};
    front.backend = [](const Arguments& a, std::string* device) { return backend_from_flags(a, device); };
    front.load_model = [](const Arguments& a) {
        ModelLocation where{*a.value("--model"), {}, false, "--model"};
        LoadedRun run = load_model_with_flags(where, a, false);
        return BenchModel{run.model, run.attention};
    };
    front.attention = [](const Model& model, const Arguments& a) { return attention_from_flags(model, a); };
    front.progress = [](const std::string& label) { return progress_callbacks(label); };
    front.progress_done = [] { progress_done(); };
    return run_bench(args, raw, front);
}

}  // namespace precis::cli
