// precis batch DIR [--library DB] [--recursive]: every supported file into the library,
// progress on stderr, Ctrl-C stops after the current step, a rerun resumes. --method as
// for summarize (auto: neural when a model is installed, else extractive).
// --shard I/N (or --shard-from-env [--shard-count N]) summarizes one share of the folder
// into its own --library file, for job arrays (app/batch/shard.h); --failed-files-ok exits
// 0 when the run finished though some files failed (recorded in the library), so that an
// array task is not reported failed, and its merge held back, for one damaged PDF.
#include <cstdlib>
#include <iostream>

#include "app/batch/batch_counts.h"
#include "app/batch/batch_runner.h"
#include "app/cli/commands.h"
#include "app/cli/long_output.h"
#include "app/long/section_store.h"
#include "app/cli/method_flags.h"
#include "app/file_names.h"
#include "engine/core/error.h"
#include "app/cli/progress.h"
#include "app/cli/run_settings.h"
#include "app/library/library.h"
#include "app/paths.h"
#include "engine/model/model.h"

namespace precis::cli {

namespace {

std::optional<ShardSpec> shard_from_flags(const Arguments& args) {
    const auto text = args.value("--shard");
    const bool from_env = args.flag("--shard-from-env");
    const std::optional<int> count = args.int_value("--shard-count");
    if (text && from_env) throw UsageError("precis batch takes --shard I/N or --shard-from-env, not both");
    if (count && !from_env) throw UsageError("--shard-count goes with --shard-from-env (--shard I/N names the count)");
    if (!text && !from_env) return std::nullopt;
    // The user's own library would get one writer per task: each shard needs its own file.
    if (!args.value("--library"))
        throw UsageError("a shard needs its own --library file (e.g. --library shards/shard-I.db), "
                         "merged afterwards with precis library merge");
    if (text) return parse_shard(*text);
    return shard_from_environment(count, [](const char* name) { return std::getenv(name); });
}

}  // namespace

int cmd_batch(const Args& raw) {
    auto options = summarize_option_names();
    options.merge(method_option_names());
    options.insert({"--library", "--classifier", "--labels", "--threshold", "--shard", "--shard-count", "--long"});
    auto flags = generation_flag_names();
    flags.insert({"--recursive", "--retry-failed", "--multi-label", "--shard-from-env", "--failed-files-ok"});
    Arguments args("batch", raw, flags, options);
    if (args.positional().size() != 1) throw Error("precis batch needs exactly one folder");
    const std::optional<ShardSpec> shard = shard_from_flags(args);

    const MethodChoice choice = choose_method(args);
    if (!choice.notice.empty()) std::cerr << "precis: " << choice.notice << "\n";
    auto backend = backend_from_flags(args);
    std::unique_ptr<Summarizer> summarizer;
    BatchOptions opts;
    opts.root = path_from_native(args.positional()[0]);  // file names are bytes (app/file_names.h)
    opts.recursive = args.flag("--recursive");
    opts.retry_failed = args.flag("--retry-failed");
    opts.shard = shard;
    opts.batch_size = batch_size_value(args);
    opts.long_options.mode = long_mode_from_flags(args);
    std::unique_ptr<longdoc::FileSectionStore> sections;
    if (const auto dir = longdoc::default_section_store_dir(); !dir.empty()) {
        sections = std::make_unique<longdoc::FileSectionStore>(dir);
        opts.long_options.store = sections.get();
    }
    opts.extractive = choice.method == SummaryMethod::Extractive;
    opts.extractive_options = extractive_from_flags(args);
    if (!opts.extractive) {
        warn_if_test_model(*choice.model);
        LoadedRun run = load_model_with_flags(*choice.model, args, true,
                                              longdoc::extends_positions(opts.long_options.mode) ? longdoc::kLsgExtension : 0);
        summarizer = std::make_unique<Summarizer>(run.model, backend);
        opts.summarize = summarizer->default_options();
        opts.summarize.attention = run.attention;
        opts.summarize.generation = generation_from_flags(*run.model, args);
    }
    if (auto cls_dir = args.value("--classifier")) {
        auto cls_model = Model::load(*cls_dir);
        auto classifier = std::make_shared<Classifier>(cls_model, backend);
        opts.classify = classifier->default_options();
        if (auto labels = args.value("--labels"))
            for (auto& l : split_list(*labels)) opts.classify.candidate_labels.push_back(l);
        if (args.flag("--multi-label")) opts.classify.multi_label = true;
        if (auto t = args.double_value("--threshold")) {
            check(*t >= 0 && *t <= 1, "--threshold must be between 0 and 1");
            opts.classify.threshold = float(*t);
        }
        opts.classifier = classifier;
    }

    const QString db = QString::fromStdString(args.value_or("--library", default_library_path().string()));
    Library library(db);
    BatchCallbacks cb;
    std::string current;
    int finished_count = 0, total_count = 0;
    // "[3/12] /path/file.pdf", built by appending (GCC 12 warns falsely on "[" + string).
    auto file_line = [&] {
        std::string line("[");
        line += std::to_string(finished_count + 1);
        line += '/';
        line += std::to_string(total_count);
        line += "] ";
        line += current;
        return line;
    };
    cb.on_file_started = [&](int finished, int total, const QString& path) {
        current = display_utf8(path);
        finished_count = finished;
        total_count = total;
        progress_line(file_line());
    };
    cb.on_file_finished = [&](const QString& path, bool ok, const QString& error) {
        progress_done();
        std::cerr << "[" << finished_count + 1 << "/" << total_count << "] " << (ok ? "done    " : "FAILED  ")
                  << display_utf8(path) << (ok ? "" : "\n          " + error.toStdString()) << "\n";
    };
    cb.run = progress_callbacks("");
    cb.run.progress = [&](RunStage stage, int done, int total) {
        const char* what = stage == RunStage::Encoding ? "encoding layer" : "generating token";
        progress_line(file_line() + ": " + what + " " + std::to_string(done) + "/" + std::to_string(total));
    };
    BatchReport report = run_batch(library, summarizer.get(), opts, cb);
    progress_done();

    // The whole job, not only this run: earlier failures keep their reasons, and the
    // report says how to go on.
    std::cerr << "\n" << (shard ? "shard " + shard->text().toStdString() + ", " : std::string()) << "batch job "
              << report.job_id << (report.resumed ? " (resumed)" : "") << " in " << db.toStdString()
              << ": " << batch_counts_text(batch_counts(report)).toStdString() << "\n";
    if (report.retried > 0)
        std::cerr << report.retried << " file" << (report.retried == 1 ? "" : "s") << " that failed before tried again\n";
    for (const BatchFailure& f : report.failures)
        std::cerr << "  failed: " << display_utf8(f.path) << "\n          " << f.reason.toStdString() << "\n";
    for (const BatchFailure& f : report.failed_before)
        std::cerr << "  failed (earlier run): " << display_utf8(f.path) << "\n          " << f.reason.toStdString() << "\n";
    if (report.cancelled) std::cerr << "cancelled: run the same command again to resume\n";
    if (report.failed() > 0)
        std::cerr << "to try the failed files again, run the same command with --retry-failed "
                     "(precis library list --failed lists them later)\n";
    if (report.cancelled) return 130;
    return report.failed() == 0 || args.flag("--failed-files-ok") ? 0 : 1;
}

}  // namespace precis::cli
