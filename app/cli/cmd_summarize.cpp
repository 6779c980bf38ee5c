// precis summarize FILE... : ingest each file, summarize it, print the summary (or one
// JSON object per file). A file that fails is reported and the others still run.
#include <iostream>

#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/file_names.h"
#include "engine/core/error.h"
#include "app/cli/progress.h"
#include "app/cli/run_settings.h"
#include "app/ingest/ingest.h"
#include "engine/model/model.h"
#include "engine/pipeline/summarizer.h"

namespace precis::cli {

int cmd_summarize(const Args& raw) {
    auto options = summarize_option_names();
    options.insert({"--password", "--max-input-tokens"});
    auto flags = generation_flag_names();
    flags.insert("--json");
    Arguments args("summarize", raw, flags, options);
    if (args.positional().empty()) throw Error("precis summarize needs at least one FILE");

    ModelLocation where = locate_model(args);
    warn_if_test_model(where);
    LoadedRun run = load_model_with_flags(where, args, true);
    std::string device;
    auto backend = backend_from_flags(args, &device);
    Summarizer summarizer(run.model, backend);
    SummarizeOptions opts = summarizer.default_options();
    opts.attention = run.attention;
    opts.generation = generation_from_flags(*run.model, args);
    if (auto v = args.int_value("--max-input-tokens")) {
        check(*v > 0, "--max-input-tokens must be positive, not " + std::to_string(*v));
        opts.max_input_tokens = *v;
    }

    IngestOptions ingest_opts;
    if (auto p = args.value("--password")) ingest_opts.password = QString::fromStdString(*p);
    const bool json = args.flag("--json");
    int failures = 0;
    for (const std::string& file : args.positional()) {
        // File names are bytes: opened as given, shown with odd bytes escaped (app/file_names.h).
        const std::string shown = display_utf8(path_from_native(file));
        try {
            IngestedDocument doc = ingest_file(path_from_native(file), ingest_opts);
            for (const QString& note : doc.notes) std::cerr << "precis: " << shown << ": " << note.toStdString() << "\n";
            SummaryResult r = summarizer.summarize(doc.text.toStdString(), opts, progress_callbacks(shown));
            progress_done();
            if (r.truncated)
                std::cerr << "precis: " << shown << ": read the first " << r.tokens_read << " of " << r.input_tokens
                          << " tokens (the model's limit); the rest was not summarized\n";
            if (json) {
                nlohmann::json o;
                o["file"] = shown;
                o["title"] = doc.title.toStdString();
                o["summary"] = r.text;
                o["summary_ids"] = r.ids;
                o["input_tokens"] = r.input_tokens;
                o["tokens_read"] = r.tokens_read;
                o["truncated"] = r.truncated;
                o["seconds"] = r.encode_seconds + r.generate_seconds;
                o["encode_seconds"] = r.encode_seconds;
                o["generate_seconds"] = r.generate_seconds;
                o["device"] = device;
                o["model"] = run.model->name();
                o["test_model"] = where.is_test_model;
                o["parameters"] = describe_options(opts);
                std::cout << o.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
            } else {
                if (args.positional().size() > 1) std::cout << "== " << shown << " ==\n";
                std::cout << r.text << "\n";
                if (args.positional().size() > 1) std::cout << "\n";
                std::cout.flush();
            }
        } catch (const Cancelled&) {
            throw;
        } catch (const std::exception& e) {
            report_file_failure(shown, e);
            ++failures;
        }
    }
    return failures ? 1 : 0;
}

}  // namespace precis::cli
