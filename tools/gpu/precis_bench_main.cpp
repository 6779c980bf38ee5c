// precis-bench: `precis bench` without Qt, for machines that have no Qt (the lent GPU
// machine, see README.md). The benchmark is the same code (app/cli/bench_core.cpp); this
// file supplies the parts precis takes from its Qt-linked settings: the backend, from
// make_backend (kernels/backend_factory.h) with --device and --dtype, and loading a model
// folder (without precis's weight cache or settings); the attention flags are shared
// (app/cli/attention_flags.h).
#include <iostream>

#include "app/cli/attention_flags.h"
#include "app/cli/bench_core.h"
#include "engine/core/error.h"
#include "engine/model/compute_type.h"
#include "engine/config/config.h"
#include "engine/model/encoder.h"
#include "engine/model/model.h"
#include "kernels/backend_factory.h"
#include "tools/gpu/device_memory_probe.h"

namespace precis::cli {
namespace {

BenchModel load_model(const Arguments& args) {
    LoadOptions lo;
    lo.load_tokenizer = false;  // the benchmark makes its own ids
    // precis picks "auto" from free memory and remembered settings (Qt); here it is fp32.
    const std::string compute = args.value_or("--compute-type", "fp32");
    lo.compute_type = parse_compute_type(compute == "auto" ? "fp32" : compute);
    if (auto v = args.int_value("--max-positions")) {
        check(*v > 0 && *v <= kMaxPositionsLimit, "--max-positions must be between 1 and " +
                                                      std::to_string(kMaxPositionsLimit));
        lo.max_positions = *v;
    }
    if (args.value("--attention").value_or("") == "lsg") {
        lo.convert_to_lsg = true;  // only acts on plain BART checkpoints
        apply_lsg_overrides(lo.lsg, args);
    }
    BenchModel m;
    m.model = Model::load(*args.value("--model"), lo);
    for (const std::string& note : m.model->load_notes()) std::cerr << "precis-bench: " << note << "\n";
    m.attention = attention_from_flags(*m.model, args);
    return m;
}

std::shared_ptr<Backend> backend(const Arguments& args, std::string* device) {
    BackendRequest request;
    request.device = args.value_or("--device", "auto");
    request.dtype = args.value_or("--dtype", "auto");
    // model_bytes stays 0 (unknown): the random model is built after the backend, and
    // auto's room check then assumes it fits.
    BackendChoice choice = make_backend(request);
    if (!choice.notice.empty()) std::cerr << "precis-bench: " << choice.notice << "\n";
    if (device) *device = choice.device;
    return choice.backend;
}

const char* kUsage = R"(usage: precis-bench [--model DIR | --shape base|large|tiny] [OPTIONS]

precis bench without Qt (the neural benchmark only): encoder seconds, the encoder's
products alone, greedy and beam tokens/s and peak memory per input length.

  --model DIR | --shape S   a real model, or random weights of a standard shape
  --device auto|cpu|cuda    where to run
  --dtype auto|fp32|fp16|bf16  the GPU's compute type (auto: fp16)
  --lengths 1024,4096,16384 input lengths in tokens
  --compute-type fp32,int8,fp16-weights
                            host weight formats to compare (one child process each)
  --repeat N                timed repetitions (median reported)
  --rounds N                run the compute types one after another N times
  --new-tokens N            tokens generated per timing (default 32)
  --beams N                 beams of the beam-search timing (default 4)
  --include-infeasible      also run full attention beyond 8192 tokens
  --json                    one JSON array
  --attention lsg|full|fovea, --sparsity-type T, --block-size N, --sparsity-factor N,
  --sparse-block-size N, --num-global-tokens N, --max-positions N, --lsh-seed N,
  --fovea-block-size N, --fovea-wing N, --fovea-stop-level N
)";

}  // namespace
}  // namespace precis::cli

int main(int argc, char** argv) {
    using namespace precis::cli;
    const std::vector<std::string> raw(argv + 1, argv + argc);
    try {
        auto options = attention_option_names();
        options.merge(bench_option_names());
        options.insert("--method");  // accepted for precis bench's command lines; neural only
        Arguments args("precis-bench", raw, bench_flag_names(), options);
        if (auto m = args.value("--method"); m && *m != "neural" && *m != "auto")
            throw UsageError("precis-bench times the neural model only: --method " + *m + " needs precis bench");
        if (args.value_or("--device", "auto") != "cpu") precis::gpu::register_device_memory_probe();
        BenchFrontEnd front;
        front.child_prefix = {};
        front.backend = backend;
        front.load_model = load_model;
        front.attention = attention_from_flags;
        return run_bench(args, raw, front);
    } catch (const HelpRequested&) {
        std::cout << kUsage;
        return 0;
    } catch (const UsageError& e) {
        // The shared parser names commands of precis ("precis bench"); this one stands alone.
        std::string what = e.what();
        for (size_t at; (at = what.find("precis precis-bench")) != std::string::npos;)
            what.replace(at, 19, "precis-bench");
        std::cerr << "precis-bench: " << what << "\n" << kUsage;
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "precis-bench: " << e.what() << "\n";
        return 1;
    }
}
