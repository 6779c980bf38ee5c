// precis classify FILE... --model DIR [--labels "a,b,c"] [--multi-label] [--threshold X] [--json]
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "app/batch/records.h"
#include "app/cli/commands.h"
#include "app/file_names.h"
#include "engine/core/error.h"
#include "app/cli/progress.h"
#include "app/cli/run_settings.h"
#include "app/ingest/ingest.h"
#include "app/library/library.h"
#include "engine/model/model.h"
#include "engine/pipeline/classifier_pipeline.h"

namespace precis::cli {

int cmd_classify(const Args& raw) {
    auto options = attention_option_names();
    options.insert({"--model", "--device", "--dtype", "--compute-type", "--labels", "--threshold", "--template",
                    "--password", "--library"});
    Arguments args("classify", raw, {"--json", "--multi-label", "--store"}, options);
    if (args.positional().empty()) throw UsageError("precis classify needs at least one FILE (see precis classify --help)");
    auto dir = args.value("--model");
    if (!dir) throw Error("precis classify needs --model DIR (a sequence-classification or NLI model)");
    LoadedRun run = load_model_with_flags(ModelLocation{*dir, {}, false, "--model"}, args, true);
    std::string device;
    auto backend = backend_from_flags(args, &device);
    Classifier classifier(run.model, backend);
    ClassifyOptions opts = classifier.default_options();
    opts.attention = run.attention;
    if (auto labels = args.value("--labels")) {
        opts.candidate_labels = split_list(*labels);
        if (opts.candidate_labels.empty()) throw Error("--labels needs at least one label");
    }
    if (args.flag("--multi-label")) opts.multi_label = true;
    if (auto t = args.double_value("--threshold")) {
        check(*t >= 0 && *t <= 1, "--threshold must be between 0 and 1");
        opts.threshold = float(*t);
    }
    if (auto t = args.value("--template")) opts.hypothesis_template = *t;
    IngestOptions ingest_opts;
    if (auto p = args.value("--password")) ingest_opts.password = QString::fromStdString(*p);
    ingest_opts.should_abort = [] { return cancel_requested(); };  // Ctrl-C, also while Poppler reads
    std::unique_ptr<Library> library;
    if (args.flag("--store") || args.value("--library"))
        library = std::make_unique<Library>(QString::fromStdString(args.value_or("--library", Library::default_path().toStdString())));

    int failures = 0;
    for (const std::string& file : args.positional()) {
        // File names are bytes: opened as given, shown with odd bytes escaped (app/file_names.h).
        const std::string shown = display_utf8(path_from_native(file));
        try {
            IngestedDocument doc = ingest_file(path_from_native(file), ingest_opts);
            ClassificationResult r = classifier.classify(doc.text.toStdString(), opts, progress_callbacks(shown));
            progress_done();
            if (library) {
                const qint64 id = library->add_or_get_document(doc);
                library->add_classifications(make_classification_records(id, *run.model, r));
            }
            if (args.flag("--json")) {
                nlohmann::json o;
                o["file"] = shown;
                o["model"] = run.model->name();
                o["multi_label"] = r.multi_label;
                o["zero_shot"] = r.zero_shot;
                o["threshold"] = r.threshold;
                o["predicted"] = r.predicted;
                o["input_tokens"] = r.input_tokens;
                o["truncated"] = r.truncated;
                o["device"] = device;
                nlohmann::json scores = nlohmann::json::array();
                for (const LabelScore& s : r.scores) scores.push_back({{"label", s.label}, {"score", s.score}, {"logit", s.logit}});
                o["scores"] = scores;
                std::cout << o.dump() << std::endl;
            } else {
                if (args.positional().size() > 1) std::cout << "== " << shown << " ==\n";
                for (const LabelScore& s : r.scores) {
                    const bool chosen = std::find(r.predicted.begin(), r.predicted.end(), s.label) != r.predicted.end();
                    std::printf("%s %-24s %.4f\n", chosen ? "*" : " ", s.label.c_str(), double(s.score));
                }
                std::fflush(stdout);
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
