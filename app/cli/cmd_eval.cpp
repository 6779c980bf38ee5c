// precis eval --input FILE.jsonl [--method M] [--model DIR] [--limit N] [--output OUT.jsonl] [--json]
// ROUGE-1/2/L/Lsum of summaries against references. Lines holding "candidate" are scored
// as they are; lines holding "document" (or "article") are summarized first, by the model
// or extractively (--method, as for summarize; extractive candidates are one sentence a
// line, which ROUGE-Lsum reads as sentences).
#include <fstream>
#include <functional>
#include <sstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/method_flags.h"
#include "app/extractive/extractive_summarizer.h"
#include "engine/io/json_file.h"
#include "engine/core/error.h"
#include "app/cli/progress.h"
#include "app/cli/run_settings.h"
#include "app/eval/rouge_eval.h"
#include "engine/pipeline/summarizer.h"

namespace precis::cli {

namespace {

std::function<std::string(const std::string&)> make_summarize_function(const Arguments& args) {
    const MethodChoice choice = choose_method(args);
    if (!choice.notice.empty()) std::cerr << "precis: " << choice.notice << "\n";
    if (choice.method == SummaryMethod::Extractive) {
        const extractive::ExtractiveOptions opts = extractive_from_flags(args);
        return [opts](const std::string& document) {
            return extractive::summarize_extractive(QString::fromStdString(document), opts).text.toStdString();
        };
    }
    warn_if_test_model(*choice.model);
    LoadedRun run = load_model_with_flags(*choice.model, args, true);
    std::string device;
    auto summarizer = std::make_shared<Summarizer>(run.model, backend_from_flags(args, &device));
    SummarizeOptions opts = summarizer->default_options();
    opts.attention = run.attention;
    opts.generation = generation_from_flags(*run.model, args);
    return [summarizer, opts](const std::string& document) {
        return summarizer->summarize(document, opts, progress_callbacks("eval")).text;
    };
}

}  // namespace

int cmd_eval(const Args& raw) {
    auto options = summarize_option_names();
    options.merge(method_option_names());
    options.insert({"--input", "--limit", "--output"});
    auto flags = generation_flag_names();
    flags.insert({"--json", "--no-stemmer"});
    Arguments args("eval", raw, flags, options);
    auto input = args.value("--input");
    if (!input) throw Error("precis eval needs --input FILE.jsonl");
    std::ifstream in(*input);
    if (!in) throw Error("cannot read " + *input);
    const int limit = args.int_value("--limit").value_or(0);

    // Made on the first document: a file of candidates needs no model.
    std::function<std::string(const std::string&)> summarize;
    std::stringstream pairs;
    std::ofstream out_file;
    if (auto o = args.value("--output")) {
        out_file.open(*o);
        if (!out_file) throw Error("cannot write " + *o);
    }
    std::string line;
    int n = 0, line_no = 0;
    while (std::getline(in, line)) {
        ++line_no;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        if (limit && n >= limit) break;
        nlohmann::json j;
        check_json_depth(line, *input + " line " + std::to_string(line_no));
        try {
            j = nlohmann::json::parse(line);
        } catch (const nlohmann::json::exception&) {
            throw Error(*input + " line " + std::to_string(line_no) + " is not valid JSON");
        }
        nlohmann::json pair;
        pair["id"] = j.contains("id") ? j["id"] : nlohmann::json(std::to_string(line_no));
        const char* ref_key = j.contains("reference") ? "reference" : j.contains("highlights") ? "highlights" : "summary";
        if (!j.contains(ref_key)) throw Error(*input + " line " + std::to_string(line_no) + " has no reference");
        pair["reference"] = j[ref_key];
        if (j.contains("candidate")) {
            pair["candidate"] = j["candidate"];
        } else {
            const char* doc_key = j.contains("document") ? "document" : j.contains("article") ? "article" : "text";
            if (!j.contains(doc_key))
                throw Error(*input + " line " + std::to_string(line_no) + " has neither a candidate nor a document");
            if (!summarize) summarize = make_summarize_function(args);
            progress_line("eval: summarizing example " + std::to_string(n + 1));
            pair["candidate"] = summarize(j[doc_key].get<std::string>());
        }
        if (out_file) out_file << pair.dump() << "\n";
        pairs << pair.dump() << "\n";
        ++n;
    }
    progress_done();
    eval::RougeOptions ro;
    ro.use_stemmer = !args.flag("--no-stemmer");
    eval::RougeEvalResult res = eval::rouge_eval_stream(pairs, *input, ro);
    if (args.flag("--json")) {
        auto score = [](const eval::RougeScore& s) {
            return nlohmann::json{{"precision", s.precision}, {"recall", s.recall}, {"fmeasure", s.fmeasure}};
        };
        nlohmann::json j{{"count", res.count},
                         {"rouge1", score(res.mean.rouge1)},
                         {"rouge2", score(res.mean.rouge2)},
                         {"rougeL", score(res.mean.rougeL)},
                         {"rougeLsum", score(res.mean.rougeLsum)}};
        std::cout << j.dump(2) << "\n";
    } else {
        std::cout << res.table;
    }
    return 0;
}

}  // namespace precis::cli
