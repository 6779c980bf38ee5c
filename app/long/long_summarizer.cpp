#include "app/long/long_summarizer.h"

#include <nlohmann/json.hpp>

#include <chrono>

#include "app/long/section_store.h"
#include "app/long/section_windows.h"
#include "app/long/source_tree.h"
#include "engine/core/error.h"
#include "engine/model/model.h"
#include "engine/pipeline/input_text.h"
#include "engine/tokenizer/tokenizer.h"

namespace precis::longdoc {

namespace {

using Clock = std::chrono::steady_clock;

// Token counts of pieces may differ from the whole's by a token where a piece boundary
// falls oddly; windows are planned this much short of the limit and checked after.
int planning_margin(int content_tokens) { return std::max(4, content_tokens / 200); }

// A summary's text when it becomes the input of the next pass.
const char* const kSeparator = "\n\n";

std::string join(const std::vector<std::string>& texts, int first, int last) {
    std::string s;
    for (int i = first; i < last; ++i) {
        if (texts[size_t(i)].empty()) continue;  // a window that could not be summarized
        if (!s.empty()) s += kSeparator;
        s += texts[size_t(i)];
    }
    return s;
}

// Everything that makes a window's summary, for the store's key.
std::string settings_of(const SummarizeOptions& options, int readable) {
    SummarizeOptions o = options;
    o.source_attention = false;  // passages do not change the summary
    return describe_options(o).dump() + " read " + std::to_string(readable);
}

std::string model_identity(const Model& m) {
    return m.path().string() + "|" + m.name() + "|" + compute_type_name(m.compute_type());
}

}  // namespace

// The windows, each encoding to at most `readable` ids: planned short of the limit, and
// planned again shorter in the rare case one still encodes longer.
std::vector<ModelWindow> cut_into_windows(const LongDocument& doc, const Tokenizer& tok, int readable,
                                          const std::function<bool()>& should_abort) {
    const int content = readable - 2;  // bos and eos
    const TokenCounter count = [&](const QString& t) { return int(tok.encode(t.toStdString(), false).size()); };
    int limit = content - planning_margin(content);
    for (int attempt = 0;; ++attempt) {
        check(limit > 0, "the model reads too few tokens to summarize a document in sections");
        std::vector<ModelWindow> out;
        int over = 0;
        size_t bytes = 0;
        for (SectionWindow& w : plan_section_windows({doc.text, doc.page_offsets, doc.outline}, limit, count, should_abort)) {
            ModelWindow x;
            x.text = doc.text.mid(w.start, w.end - w.start).toStdString();
            x.ids = tok.encode(x.text, true);
            x.byte_start = bytes;
            bytes += x.text.size();
            over = std::max(over, int(x.ids.size()) - readable);
            w.tokens = int(x.ids.size()) - 2;
            x.place = std::move(w);
            out.push_back(std::move(x));
        }
        if (over <= 0 || attempt == 3) {
            check(over <= 0, "could not cut the document into windows the model reads whole");
            return out;
        }
        limit -= 2 * over;
    }
}

const char* long_reading_name(LongReading reading) {
    switch (reading) {
        case LongReading::Whole: return "whole";
        case LongReading::Extended: return "extended";
        case LongReading::Sections: return "sections";
        case LongReading::Truncated: return "truncated";
    }
    return "?";
}

LongReading one_pass_reading(const SummaryResult& r, int trained_tokens) {
    if (r.truncated) return LongReading::Truncated;
    return r.tokens_read > trained_tokens ? LongReading::Extended : LongReading::Whole;
}

LongSummary one_pass_summary(SummaryResult r, int trained_tokens) {
    LongSummary s;
    s.reading = one_pass_reading(r, trained_tokens);
    s.trained_tokens = trained_tokens;
    s.summary = std::move(r);
    return s;
}

LongSummary summarize_long(const Summarizer& s, const LongDocument& doc, const SummarizeOptions& options,
                           const LongOptions& long_options, const LongProgress& progress, const RunCallbacks& callbacks) {
    const Model& model = s.model();
    const Tokenizer& tok = require_tokenizer(model);
    const std::string utf8 = doc.text.toStdString();
    if (is_blank(utf8)) throw Error("the document has no text to summarize");
    std::vector<int64_t> ids = tok.encode(utf8, true);
    const int readable = readable_input_tokens(model, options.attention, options.max_input_tokens);
    LongSummary out;
    out.trained_tokens = model.trained_input_tokens();
    const int tokens = int(ids.size());
    if (tokens > readable && long_options.mode == LongMode::Extend)
        throw Error("the document has " + std::to_string(tokens) + " tokens and the model, extended, reads " +
                    std::to_string(readable) + ": summarize it in sections (--long sections or auto)");
    if (tokens <= readable || long_options.mode == LongMode::Truncate) {
        out.summary = s.summarize_ids(std::move(ids), options, callbacks);
        out.reading = one_pass_reading(out.summary, out.trained_tokens);
        return out;
    }

    // Section by section.
    const auto t0 = Clock::now();
    out.reading = LongReading::Sections;
    std::vector<ModelWindow> windows = cut_into_windows(doc, tok, readable, callbacks.should_abort);
    const int n = int(windows.size());
    const std::string identity = model_identity(model), settings = settings_of(options, readable);
    std::vector<std::string> summaries(static_cast<size_t>(n)), keys(static_cast<size_t>(n));
    SourceTree tree(n);
    int done = 0;
    std::vector<std::vector<int64_t>> todo_ids;
    std::vector<int> todo;
    for (int i = 0; i < n; ++i) {
        ModelWindow& w = windows[size_t(i)];
        keys[size_t(i)] = section_key(identity, settings, w.text);
        if (long_options.store)
            if (std::optional<std::string> kept = long_options.store->find(keys[size_t(i)])) {
                summaries[size_t(i)] = std::move(*kept);
                ++out.kept_sections;
                ++done;
                continue;
            }
        todo.push_back(i);
        todo_ids.push_back(w.ids);
    }
    if (progress.sections) progress.sections(done, n);
    double encode_seconds = 0;
    std::string first_failure;
    ManySummariesCallbacks on;
    on.done = [&](int k, SummaryResult r) {
        const int i = todo[size_t(k)];
        summaries[size_t(i)] = r.text;
        if (long_options.store) long_options.store->keep(keys[size_t(i)], r.text);
        encode_seconds += r.encode_seconds;
        tree.set_window_sources(i, std::move(r.source_weights), std::move(r.source_spans), windows[size_t(i)].byte_start);
        ++done;
        if (progress.sections) progress.sections(done, n);
    };
    on.failed = [&](int k, const std::string& why) {
        const ModelWindow& w = windows[size_t(todo[size_t(k)])];
        const std::string line = "section " + std::to_string(todo[size_t(k)] + 1) + " of " + std::to_string(n) + " (" +
                                 w.place.title.toStdString() + ") could not be summarized: " + why;
        if (first_failure.empty()) first_failure = line;
        callbacks.notice(line);
        ++done;
        if (progress.sections) progress.sections(done, n);
    };
    if (!todo.empty()) s.summarize_many(todo_ids, options, long_options.batch_size, on, callbacks);
    for (int i = 0; i < n; ++i) {
        out.sections.push_back(outline_entry(windows[size_t(i)].place, QString::fromStdString(summaries[size_t(i)])));
    }
    if (join(summaries, 0, n).empty()) throw Error(first_failure.empty() ? "no section could be summarized" : first_failure);

    // Combining: while the joined summaries are longer than the model reads, group and summarize again.
    std::vector<std::string> level = std::move(summaries);
    std::vector<int64_t> joined_ids;
    for (;;) {
        callbacks.check_abort();
        joined_ids = tok.encode(join(level, 0, int(level.size())), true);
        if (int(joined_ids.size()) <= readable) break;
        std::vector<int> counts;
        for (const std::string& t : level) counts.push_back(t.empty() ? 0 : int(tok.encode(t, false).size()) + 2);
        const int content = readable - 2;
        const auto groups = group_consecutive(counts, content - planning_margin(content));
        check(groups.size() < level.size(), "the section summaries are too long to combine: each is about as long as "
                                            "what the model reads");
        ++out.levels;
        if (progress.combining) progress.combining(out.levels);
        std::vector<std::vector<int64_t>> group_ids;
        for (const auto& [first, last] : groups) group_ids.push_back(tok.encode(join(level, first, last), true));
        std::vector<std::string> next(groups.size());
        tree.begin_level(groups);
        ManySummariesCallbacks combine;
        combine.done = [&](int k, SummaryResult r) {
            next[size_t(k)] = r.text;
            tree.set_group_sources(k, r.source_weights, r.source_spans, level, kSeparator);
        };
        combine.failed = [&](int k, const std::string& why) {
            throw Error("combining the section summaries failed (group " + std::to_string(k + 1) + "): " + why);
        };
        s.summarize_many(group_ids, options, long_options.batch_size, combine, callbacks);
        level = std::move(next);
    }
    ++out.levels;
    if (progress.combining) progress.combining(out.levels);
    out.summary = s.summarize_ids(std::move(joined_ids), options, callbacks);
    if (options.source_attention) {
        tree.finish(out.summary.source_weights, out.summary.source_spans, level, kSeparator);
        out.summary.source_weights = tree.document_weights();
        out.summary.source_spans = tree.document_spans();
    }
    out.summary.input_tokens = tokens;
    out.summary.tokens_read = tokens;
    out.summary.truncated = false;
    const double total = std::chrono::duration<double>(Clock::now() - t0).count();
    out.summary.encode_seconds = std::min(total, encode_seconds + out.summary.encode_seconds);
    out.summary.generate_seconds = total - out.summary.encode_seconds;
    return out;
}

}  // namespace precis::longdoc
