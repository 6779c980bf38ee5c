#include <iostream>

#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "app/cli/progress.h"
#include "app/cli/usage.h"
#include "app/ingest/pdf_reader_process.h"
#include "engine/core/error.h"
#include "kernels/device_query.h"
#include "kernels/device_support.h"

namespace precis::cli {

namespace {

const char* kUsage = R"(usage: precis [COMMAND] [OPTIONS]

Without a command, precis opens the desktop application.

  summarize FILE... [--method auto|neural|extractive] [--sentences N|--words N|--ratio X]
            [--model DIR|NAME] [--device auto|cpu|cuda] [--dtype auto|fp32|fp16|bf16]
            [--beams N] [--length-penalty X]
            [--max-length N] [--min-length N] [--no-repeat-ngram N] [--password P] [--json]
            [--attention lsg|full|fovea] [--sparsity-type T] [--block-size N]
            [--sparse-block-size N] [--sparsity-factor N] [--num-global-tokens N]
            [--max-positions N] [--lsh-seed N] [--max-input-tokens N]
            [--compute-type auto|fp32|int8|fp16-weights]
  classify FILE... --model DIR [--labels "a,b,c"] [--multi-label] [--threshold X] [--json]
           [--template "This text is about {}."] [--store] [--library DB]
  batch DIR [--library DB] [--recursive] [--retry-failed] [--classifier DIR [--labels ...]]
        [--method auto|neural|extractive] [--sentences N] [summarize options]
        [--shard I/N|--shard-from-env [--shard-count N]] [--failed-files-ok]
  library list [--label L] [--failed]|show ID|search TEXT|export ID --format md|json|delete ID
          [--library DB]
  library merge OUT IN...
  cluster submit DIR --library OUT.db --tasks N [--partition P] [--time T] [--mem M]
          [--cpus-per-task C] [--gres gpu:1] [--merge-after ok|any] [batch options]
  cluster status JOB | resubmit JOB --task I | merge JOB
  convert SRC DST [--max-positions N] [--block-size N] [--sparse-block-size N]
          [--sparsity-factor N] [--sparsity-type T] [--num-global-tokens N]
  tokenize --model DIR [--json] [--decode] TEXT | --windows FILE --max-tokens N
  forward --model DIR --input IN.json --out OUT.safetensors [--generate greedy|beam] ...
  inspect MODEL
  bench [--model DIR|--shape base|large|tiny] [--device ...] [--lengths 1024,4096,16384]
        [--attention lsg|full|fovea] [--compute-type fp32,int8,fp16-weights] [--json]
  eval --input PAIRS.jsonl [--model DIR] [--limit N] [--output OUT.jsonl] [--json]
  model catalog [--json]
  model download REPO [--revision R] [--name NAME] [--convert-lsg 4096]
  model list [--json] | remove NAME | default [NAME]

Without a command, any arguments are documents the desktop application opens.
  --version, help [COMMAND]; precis COMMAND --help shows a command's options
)";

}  // namespace

bool is_command(const std::string& w) {
    static const char* names[] = {"summarize", "classify", "tokenize", "forward", "inspect", "bench", "convert",
                                  "batch", "library", "cluster", "eval", "model", "help", "--help", "-h", "--version", "version"};
    for (const char* n : names)
        if (w == n) return true;
    return false;
}

std::string version_text() {
    std::string backends = "cpu";
    if (cuda::compiled_with_cuda()) {
        // What GPU code this build carries, and whether the GPU here can run it.
        const cuda::BuildTargets build = cuda::build_targets();
        std::string why;
        auto devices = cuda::list_devices(&why);
        std::string now = "no GPU now: " + why;
        if (!devices.empty()) {
            const cuda::DeviceSupport s = cuda::check_device(devices[0], devices[0].driver_version, build);
            now = s.usable ? devices[0].name : s.why;
        }
        backends += ", cuda (built in, " + cuda::describe_targets(build) + "; " + now + ")";
    }
    // Where PDFs are read: a report of a PDF that misbehaved should say which way it was.
    const std::string reader = find_pdf_reader();
    const std::string pdf = reader.empty() ? "in-process (precis-pdf-reader is not installed)" : reader;
    return std::string("precis ") + PRECIS_VERSION + " (git " + PRECIS_GIT_REVISION + ")\nbackends: " + backends +
           "\npdf reader: " + pdf;
}

int run_cli(int argc, char** argv) {
    std::string cmd = argv[1];
    Args args(argv + 2, argv + argc);
    try {
        install_cancel_handler();
        if (cmd == "--version" || cmd == "version") {
            std::cout << version_text() << "\n";
            return 0;
        }
        if (cmd == "help" || cmd == "--help" || cmd == "-h") {
            // "precis help library list": that command's usage, as --help prints it.
            std::string topic;
            for (const std::string& a : args) topic += (topic.empty() ? "" : " ") + a;
            if (topic.empty()) {
                std::cout << kUsage;
                return 0;
            }
            if (auto usage = command_usage(topic)) {
                std::cout << *usage;
                return 0;
            }
            std::cerr << "precis: there is no command '" << topic << "'\n" << kUsage;
            return 2;
        }
        if (cmd == "summarize") return cmd_summarize(args);
        if (cmd == "classify") return cmd_classify(args);
        if (cmd == "tokenize") return cmd_tokenize(args);
        if (cmd == "forward") return cmd_forward(args);
        if (cmd == "inspect") return cmd_inspect(args);
        if (cmd == "bench") return cmd_bench(args);
        if (cmd == "convert") return cmd_convert(args);
        if (cmd == "batch") return cmd_batch(args);
        if (cmd == "library") return cmd_library(args);
        if (cmd == "cluster") return cmd_cluster(args);
        if (cmd == "eval") return cmd_eval(args);
        if (cmd == "model") return cmd_model(args);
        std::cerr << "precis: unknown command '" << cmd << "'\n" << kUsage;
        return 2;
    } catch (const HelpRequested& help) {
        std::cout << command_usage(help.command).value_or(kUsage);
        return 0;
    } catch (const UsageError& e) {
        std::cerr << "precis: " << e.what() << "\n";
        return 2;
    } catch (const Cancelled&) {
        progress_done();
        std::cerr << "precis: cancelled\n";
        return 130;
    } catch (const std::exception& e) {
        progress_done();
        std::cerr << "precis: " << e.what() << "\n";
        return 1;
    }
}

}  // namespace precis::cli
