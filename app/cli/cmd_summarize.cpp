// precis summarize FILE... : ingest each file, summarize it, print the summary (or one
// JSON object per file). --method picks a neural model or an extractive summary (auto:
// neural when a model is installed). A file that fails is reported and the others still run.
#include <iostream>
#include <optional>

#include <nlohmann/json.hpp>

#include "app/batch/source_passages.h"
#include "app/cli/commands.h"
#include "app/cli/long_output.h"
#include "app/cli/method_flags.h"
#include "app/cli/progress.h"
#include "app/cli/run_settings.h"
#include "app/extractive/extractive_summarizer.h"
#include "app/file_names.h"
#include "app/ingest/ingest.h"
#include "app/long/extractive_outline.h"
#include "app/long/section_store.h"
#include "engine/core/error.h"
#include "engine/model/model.h"
#include "engine/pipeline/input_text.h"
#include "engine/pipeline/summarizer.h"

namespace precis::cli {

namespace {

void print_text(const std::string& file, const std::string& summary, size_t files) {
    if (files > 1) std::cout << "== " << file << " ==\n";
    std::cout << summary << "\n";
    if (files > 1) std::cout << "\n";
    std::cout.flush();
}

void print_json(const nlohmann::json& o) {
    std::cout << o.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
}

// A neural summary as the person asked for it: text, or one JSON object.
void print_neural(const std::string& file, const IngestedDocument& doc, const longdoc::LongSummary& long_summary,
                  const Summarizer& summarizer, const SummarizeOptions& opts, const LoadedRun& run,
                  const ModelLocation& where, bool json, size_t files) {
    const SummaryResult& r = long_summary.summary;
    if (const std::string how = describe_reading(long_summary); !how.empty())
        std::cerr << "precis: " << file << ": " << how << "\n";
    if (!json) {
        if (long_summary.sections.isEmpty()) return print_text(file, r.text, files);
        return print_text(file, r.text + "\n\nSections:\n" + outline_text(long_summary.sections), files);
    }
    nlohmann::json o;
    o["file"] = file;
    o["title"] = doc.title.toStdString();
    o["method"] = "neural";
    o["summary"] = r.text;
    o["summary_ids"] = r.ids;
    o["input_tokens"] = r.input_tokens;
    o["tokens_read"] = r.tokens_read;
    o["truncated"] = r.truncated;
    o["long"] = longdoc::long_reading_name(long_summary.reading);
    o["trained_tokens"] = long_summary.trained_tokens;
    o["sections"] = outline_json(long_summary.sections);
    o["combining_passes"] = long_summary.levels;
    o["seconds"] = r.encode_seconds + r.generate_seconds;
    o["encode_seconds"] = r.encode_seconds;
    o["generate_seconds"] = r.generate_seconds;
    // Where this file ran: the CPU after a GPU failure, even if the run started on the GPU.
    o["device"] = summarizer.backend().name();
    o["model"] = run.model->name();
    o["test_model"] = where.is_test_model;
    o["parameters"] = describe_options(opts);
    print_json(o);
}

// How long documents are read, and where finished sections wait for a continued run.
struct LongRun {
    longdoc::LongOptions options;
    std::unique_ptr<longdoc::FileSectionStore> store;
};

// A document of any length (app/long/long_summarizer.h): its sections' progress, then the
// encoding and generating of the final pass.
longdoc::LongSummary summarize_document(const std::string& file, const IngestedDocument& doc,
                                        const Summarizer& summarizer, const SummarizeOptions& opts,
                                        const LongRun& long_run) {
    longdoc::LongProgress progress;
    progress.sections = [&](int done, int total) {
        progress_line(file + ": section " + std::to_string(std::min(done + 1, total)) + " of " + std::to_string(total) +
                      " (" + std::to_string(done) + " done)");
    };
    progress.combining = [&](int level) {
        progress_line(file + ": combining the section summaries" + (level > 1 ? " (pass " + std::to_string(level) + ")" : ""));
    };
    longdoc::LongSummary s = longdoc::summarize_long(summarizer, {doc.text, doc.page_offsets, doc.outline}, opts,
                                                     long_run.options, progress, progress_callbacks(file));
    progress_done();
    return s;
}

// One file, neural: the model's summary, with its progress.
void summarize_neural(const std::string& file, const IngestedDocument& doc, const Summarizer& summarizer,
                      const SummarizeOptions& opts, const LoadedRun& run, const ModelLocation& where, bool json,
                      size_t files, const LongRun& long_run) {
    const longdoc::LongSummary s = summarize_document(file, doc, summarizer, opts, long_run);
    print_neural(file, doc, s, summarizer, opts, run, where, json, files);
}

// Several files, neural: read them all, then the model summarizes them together
// (engine/generate/document_batch.h); each is printed in the files' order as soon as the
// ones before it are, and the status line counts documents as they finish. Returns failures.
int summarize_neural_together(const std::vector<std::string>& shown, const std::vector<IngestedDocument>& docs,
                              const std::vector<std::string>& read_errors, const Summarizer& summarizer,
                              const SummarizeOptions& opts, const LoadedRun& run, const ModelLocation& where,
                              const LongRun& long_run, bool json) {
    const size_t n = shown.size();
    std::vector<std::optional<longdoc::LongSummary>> done(n);
    std::vector<std::string> errors = read_errors;  // non-empty: the file failed
    std::vector<std::vector<int64_t>> ids;
    std::vector<size_t> file_of, in_sections;
    const int readable = readable_input_tokens(summarizer.model(), opts.attention, opts.max_input_tokens);
    for (size_t i = 0; i < n; ++i) {
        if (!errors[i].empty()) continue;
        const std::string text = docs[i].text.toStdString();
        if (is_blank(text)) {
            errors[i] = shown[i] + ": the document has no text to summarize";
            continue;
        }
        std::vector<int64_t> doc_ids = require_tokenizer(summarizer.model()).encode(text, true);
        if (longdoc::beyond_one_pass(long_run.options.mode, int(doc_ids.size()), readable)) {
            in_sections.push_back(i);  // its own windows run together after the others
            continue;
        }
        ids.push_back(std::move(doc_ids));
        file_of.push_back(i);
    }
    size_t printed = 0, finished = n - ids.size() - in_sections.size();
    int failures = 0;
    auto flush = [&] {
        for (; printed < n && (done[printed] || !errors[printed].empty()); ++printed) {
            progress_done();
            if (!errors[printed].empty()) {
                std::cerr << "precis: " << errors[printed] << "\n";
                ++failures;
            } else {
                print_neural(shown[printed], docs[printed], *done[printed], summarizer, opts, run, where, json, n);
                done[printed].reset();
            }
        }
        if (printed < n)
            progress_line("summarized " + std::to_string(finished) + " of " + std::to_string(n) + " documents");
    };
    flush();
    ManySummariesCallbacks on;
    const int trained = summarizer.model().trained_input_tokens();
    on.done = [&](int k, SummaryResult r) {
        done[file_of[size_t(k)]] = longdoc::one_pass_summary(std::move(r), trained);
        ++finished;
        flush();
    };
    on.failed = [&](int k, const std::string& why) {
        errors[file_of[size_t(k)]] = shown[file_of[size_t(k)]] + ": " + why;
        ++finished;
        flush();
    };
    RunCallbacks cb;
    cb.should_abort = [] { return cancel_requested(); };
    cb.on_notice = [](const std::string& line) {
        progress_done();
        std::cerr << "precis: " << line << "\n";
    };
    summarizer.summarize_many(ids, opts, long_run.options.batch_size, on, cb);
    flush();
    for (size_t i : in_sections) {
        try {
            done[i] = summarize_document(shown[i], docs[i], summarizer, opts, long_run);
        } catch (const Cancelled&) {
            throw;
        } catch (const std::exception& e) {
            errors[i] = shown[i] + ": " + e.what();
        }
        ++finished;
        flush();
    }
    progress_done();
    return failures;
}

// One file, extractive: the document's own sentences, with where they are.
void summarize_extractive(const std::string& file, const IngestedDocument& doc, const extractive::ExtractiveOptions& opts,
                          bool json, size_t files) {
    extractive::ExtractiveOptions run_opts = opts;
    run_opts.should_abort = progress_callbacks(file).should_abort;  // Ctrl-C
    const extractive::ExtractiveSummary e = extractive::summarize_extractive(doc.text, run_opts);
    // A long document's parts, each with its own sentences, as a neural summary's outline.
    const DocumentOutline sections = longdoc::extractive_outline(doc.text, doc.page_offsets, doc.outline, run_opts);
    if (!json) {
        if (sections.isEmpty()) return print_text(file, e.text.toStdString(), files);
        return print_text(file, e.text.toStdString() + "\n\nSections:\n" + outline_text(sections), files);
    }
    nlohmann::json sentences = nlohmann::json::array();
    for (const auto& s : e.sentences)
        sentences.push_back({{"begin", s.begin},
                             {"end", s.end},
                             {"index", s.index},
                             {"page", page_of_offset(doc.page_offsets, s.begin)},
                             {"words", s.words},
                             {"score", s.score}});
    nlohmann::json o;
    o["file"] = file;
    o["title"] = doc.title.toStdString();
    o["method"] = "extractive";
    o["summary"] = e.text.toStdString();
    o["summary_ids"] = nlohmann::json::array();
    o["sentences"] = sentences;
    o["summary_words"] = e.summary_words;
    o["input_tokens"] = 0;
    o["input_words"] = e.document_words;
    o["input_sentences"] = e.document_sentences;
    o["sections"] = outline_json(sections);
    o["similarity_sections"] = e.sections;  // the parts its sentences were chosen across
    o["truncated"] = false;
    o["seconds"] = e.seconds;
    o["device"] = "cpu";
    o["parameters"] = {{"budget", extractive::describe_budget(opts.budget).toStdString()},
                       {"budget_words", e.budget_words},
                       {"position_weight", opts.position_weight},
                       {"redundancy", opts.redundancy}};
    print_json(o);
}

}  // namespace

int cmd_summarize(const Args& raw) {
    auto options = summarize_option_names();
    options.merge(method_option_names());
    options.insert({"--password", "--max-input-tokens", "--long"});
    auto flags = generation_flag_names();
    flags.insert("--json");
    Arguments args("summarize", raw, flags, options);
    if (args.positional().empty()) throw UsageError("precis summarize needs at least one FILE (see precis summarize --help)");

    const MethodChoice choice = choose_method(args);
    const bool neural = choice.method == SummaryMethod::Neural;
    const extractive::ExtractiveOptions extractive_opts = extractive_from_flags(args);
    std::optional<LoadedRun> run;
    std::unique_ptr<Summarizer> summarizer;
    SummarizeOptions opts;
    LongRun long_run;
    long_run.options.mode = long_mode_from_flags(args);
    long_run.options.batch_size = batch_size_value(args);
    if (const auto dir = longdoc::default_section_store_dir(); !dir.empty()) {
        long_run.store = std::make_unique<longdoc::FileSectionStore>(dir);
        long_run.options.store = long_run.store.get();
    }
    if (neural) {
        warn_if_test_model(*choice.model);
        run = load_model_with_flags(*choice.model, args, true,
                                    longdoc::extends_positions(long_run.options.mode) ? longdoc::kLsgExtension : 0);
        summarizer = std::make_unique<Summarizer>(run->model, backend_from_flags(args));
        opts = summarizer->default_options();
        opts.attention = run->attention;
        opts.generation = generation_from_flags(*run->model, args);
        if (auto v = args.int_value("--max-input-tokens")) {
            check(*v > 0, "--max-input-tokens must be positive, not " + std::to_string(*v));
            opts.max_input_tokens = *v;
        }
    }

    IngestOptions ingest_opts;
    if (auto p = args.value("--password")) ingest_opts.password = QString::fromStdString(*p);
    ingest_opts.should_abort = [] { return cancel_requested(); };  // Ctrl-C, also while Poppler reads
    const bool json = args.flag("--json");
    const size_t files = args.positional().size();
    int failures = 0;
    bool notice_said = false;
    // Several files for a model: read first, then summarized together.
    const bool together = neural && files > 1;
    std::vector<std::string> shown_names, read_errors;
    std::vector<IngestedDocument> read_docs;
    for (const std::string& file : args.positional()) {
        // File names are bytes: opened as given, shown with odd bytes escaped (app/file_names.h).
        const std::string shown = display_utf8(path_from_native(file));
        try {
            IngestedDocument doc = ingest_file(path_from_native(file), ingest_opts);
            for (const QString& note : doc.notes) std::cerr << "precis: " << shown << ": " << note.toStdString() << "\n";
            if (together) {
                shown_names.push_back(shown);
                read_docs.push_back(std::move(doc));
                read_errors.emplace_back();
            } else if (neural) {
                summarize_neural(shown, doc, *summarizer, opts, *run, *choice.model, json, files, long_run);
            } else {
                // Said once, and only when there is a document to summarize (not before an
                // error about the file).
                if (!notice_said && !choice.notice.empty()) std::cerr << "precis: " << choice.notice << "\n";
                notice_said = true;
                summarize_extractive(shown, doc, extractive_opts, json, files);
            }
        } catch (const Cancelled&) {
            throw;
        } catch (const std::exception& e) {
            if (together) {
                // Reported in the files' order with the summaries.
                shown_names.push_back(shown);
                read_docs.emplace_back();
                const bool named = dynamic_cast<const IngestError*>(&e) != nullptr;
                read_errors.push_back(named ? std::string(e.what()) : shown + ": " + e.what());
                continue;
            }
            report_file_failure(shown, e);
            ++failures;
        }
    }
    if (together)
        failures += summarize_neural_together(shown_names, read_docs, read_errors, *summarizer, opts, *run,
                                              *choice.model, long_run, json);
    return failures ? 1 : 0;
}

}  // namespace precis::cli
