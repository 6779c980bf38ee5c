#pragma once
// The neural benchmark behind both `precis bench` (the Qt application's subcommand) and
// `precis-bench` (tools/gpu/, a Qt-free executable for machines without Qt, such as the
// lent GPU machine). It lives here, free of Qt, so the two front ends cannot drift: each
// supplies only what needs its own libraries (the backend, loading a model folder, the
// attention flags, progress lines) through BenchFrontEnd.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "app/cli/arguments.h"
#include "engine/model/run_options.h"

namespace precis {
class Backend;
class Model;
}

namespace precis::cli {

struct BenchModel {
    std::shared_ptr<const Model> model;
    AttentionOptions attention;
};

struct BenchFrontEnd {
    // How the child processes are started: the executable (/proc/self/exe) followed by
    // these words, then --child and the options ({"bench"} for precis, {} for precis-bench).
    std::vector<std::string> child_prefix;
    // --device/--dtype: the backend and the name the JSON records ("cpu", "cuda:0 ...").
    std::function<std::shared_ptr<Backend>(const Arguments&, std::string* device)> backend;
    // --model DIR: the model and its attention options with the flags applied.
    std::function<BenchModel(const Arguments&)> load_model;
    // The attention flags applied to a (random) model's native options.
    std::function<AttentionOptions(const Model&, const Arguments&)> attention;
    // Optional status line while encoding; null draws nothing.
    std::function<RunCallbacks(const std::string& label)> progress;
    std::function<void()> progress_done;
};

// A device run (a backend with a ModelRunner) takes its peak memory and the encoder's
// products-alone time from the runner (RunnerStats, with profiling on for extra encodes).
// These hooks add or replace measurements without touching the benchmark; all are optional.
// They are registered before the command line is dispatched, so the child processes (the
// same executable) register them too.
struct BenchDeviceHooks {
    // A second measure of the peak device memory, reported beside the runner's own as
    // peak_gpu_memory_sampled_mb: reset once the backend exists, read after decoding.
    // precis-bench samples cudaMemGetInfo (tools/gpu/device_memory_probe.cpp).
    std::function<void(Backend&)> reset_peak_memory;
    std::function<std::optional<uint64_t>(Backend&)> peak_memory_bytes;
    std::string peak_memory_method;  // a few words saying how
    // Replaces the runner's products-alone time: seconds of the encoder's matrix products
    // for `rows` rows (the padded input plus global tokens), nullopt if not measured.
    std::function<std::optional<double>(Backend&, const Model&, const AttentionOptions&, int64_t rows, bool sparse)>
        encoder_products_seconds;
};
BenchDeviceHooks& bench_device_hooks();

// Options and flags the benchmark itself reads; a front end adds its attention options
// (and precis adds --method's).
std::set<std::string> bench_option_names();
std::set<std::string> bench_flag_names();

// Runs the benchmark (or, with --child, one length in this process) and returns the exit
// code. `raw` is the argument list as given, for rebuilding the child's command line.
int run_bench(const Arguments& args, const std::vector<std::string>& raw, const BenchFrontEnd& front);

}  // namespace precis::cli
