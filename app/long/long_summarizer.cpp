#include "app/long/long_summarizer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
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

std::string window_text(const LongDocument& doc, const ModelWindow& w) {
    return doc.text.mid(w.place.start, w.place.end - w.place.start).toStdString();
}

std::vector<int64_t> window_ids(const Tokenizer& tok, const std::string& text) { return tok.encode(text, true); }

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
            const std::string text = doc.text.mid(w.start, w.end - w.start).toStdString();
            const int ids = int(window_ids(tok, text).size());
            x.byte_start = bytes;
            bytes += text.size();
            over = std::max(over, ids - readable);
            w.tokens = ids - 2;
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

namespace {

// What every pass of one section-by-section summary shares.
struct SectionRun {
    const LongDocument& doc;
    const Summarizer& summarizer;
    const Tokenizer& tok;
    const SummarizeOptions& options;
    const LongOptions& long_options;
    const LongProgress& progress;
    const RunCallbacks& callbacks;
    int readable;
    SourceTree& tree;
    LongSummary& out;
    double encode_seconds = 0;

    // Every window's summary (empty for one that failed, which a notice names), those kept
    // in the store taken from it, the others made together and kept as each finishes; their
    // ids made a few hundred windows at a time (LongOptions::windows_at_once).
    std::vector<std::string> summarize_windows(const std::vector<ModelWindow>& windows) {
        const int n = int(windows.size());
        const std::string identity = model_identity(summarizer.model()), settings = settings_of(options, readable);
        std::vector<std::string> summaries(static_cast<size_t>(n)), keys(static_cast<size_t>(n));
        std::vector<int> todo;
        int done = 0;
        for (int i = 0; i < n; ++i) {
            keys[size_t(i)] = section_key(identity, settings, window_text(doc, windows[size_t(i)]));
            if (long_options.store)
                if (std::optional<std::string> kept = long_options.store->find(keys[size_t(i)])) {
                    summaries[size_t(i)] = std::move(*kept);
                    ++out.kept_sections;
                    ++done;
                    continue;
                }
            todo.push_back(i);
        }
        if (progress.sections) progress.sections(done, n);
        std::string first_failure;
        const size_t at_once = size_t(std::max({1, long_options.windows_at_once, 4 * long_options.batch_size}));
        for (size_t from = 0; from < todo.size(); from += at_once) {
            const size_t to = std::min(todo.size(), from + at_once);
            std::vector<std::vector<int64_t>> ids;
            ids.reserve(to - from);
            for (size_t k = from; k < to; ++k) ids.push_back(window_ids(tok, window_text(doc, windows[size_t(todo[k])])));
            ManySummariesCallbacks on;
            on.done = [&](int k, SummaryResult r) {
                const int i = todo[from + size_t(k)];
                summaries[size_t(i)] = r.text;
                if (long_options.store) long_options.store->keep(keys[size_t(i)], r.text);
                encode_seconds += r.encode_seconds;
                tree.set_window_sources(i, std::move(r.source_weights), std::move(r.source_spans), windows[size_t(i)].byte_start);
                ++done;
                if (progress.sections) progress.sections(done, n);
            };
            on.failed = [&](int k, const std::string& why) {
                const int i = todo[from + size_t(k)];
                const std::string line = "section " + std::to_string(i + 1) + " of " + std::to_string(n) + " (" +
                                         windows[size_t(i)].place.title.toStdString() + ") could not be summarized: " + why;
                if (first_failure.empty()) first_failure = line;
                callbacks.notice(line);
                ++done;
                if (progress.sections) progress.sections(done, n);
            };
            summarizer.summarize_many(ids, options, long_options.batch_size, on, callbacks);
        }
        if (join(summaries, 0, n).empty()) throw Error(first_failure.empty() ? "no section could be summarized" : first_failure);
        return summaries;
    }

    // While the joined summaries are longer than the model reads: consecutive ones grouped
    // and summarized again. Returns the last level; `joined_ids` is its joined input.
    std::vector<std::string> combine(std::vector<std::string> level, std::vector<int64_t>& joined_ids) {
        const int content = readable - 2;
        for (;;) {
            callbacks.check_abort();
            joined_ids = tok.encode(join(level, 0, int(level.size())), true);
            if (int(joined_ids.size()) <= readable) return level;
            std::vector<int> counts;
            for (const std::string& t : level) counts.push_back(t.empty() ? 0 : int(tok.encode(t, false).size()) + 2);
            const auto groups = group_consecutive(counts, content - planning_margin(content));
            check(groups.size() < level.size(),
                  "the section summaries are too long to combine: each is about as long as what the model reads");
            ++out.levels;
            if (progress.combining) progress.combining(out.levels);
            std::vector<std::vector<int64_t>> group_ids;
            for (const auto& [first, last] : groups) group_ids.push_back(tok.encode(join(level, first, last), true));
            std::vector<std::string> next(groups.size());
            tree.begin_level(groups);
            ManySummariesCallbacks on;
            on.done = [&](int k, SummaryResult r) {
                next[size_t(k)] = r.text;
                tree.set_group_sources(k, r.source_weights, r.source_spans, level, kSeparator);
            };
            on.failed = [&](int k, const std::string& why) {
                throw Error("combining the section summaries failed (group " + std::to_string(k + 1) + "): " + why);
            };
            summarizer.summarize_many(group_ids, options, long_options.batch_size, on, callbacks);
            level = std::move(next);
        }
    }
};

}  // namespace

LongSummary summarize_long(const Summarizer& s, const LongDocument& doc, const SummarizeOptions& options,
                           const LongOptions& long_options, const LongProgress& progress, const RunCallbacks& callbacks) {
    const Tokenizer& tok = require_tokenizer(s.model());
    const int readable = readable_input_tokens(s.model(), options.attention, options.max_input_tokens);
    LongSummary out;
    out.trained_tokens = s.model().trained_input_tokens();
    int tokens = 0;
    {  // the whole document's ids only while a pass may read them all (sections make their own)
        std::vector<int64_t> ids;
        {
            const std::string utf8 = doc.text.toStdString();
            if (is_blank(utf8)) throw Error("the document has no text to summarize");
            ids = tok.encode(utf8, true);
        }
        tokens = int(ids.size());
        if (tokens > readable && long_options.mode == LongMode::Extend)
            throw Error("the document has " + std::to_string(tokens) + " tokens and the model, extended, reads " +
                        std::to_string(readable) + ": summarize it in sections (--long sections or auto)");
        if (tokens <= readable || long_options.mode == LongMode::Truncate) {
            out.summary = s.summarize_ids(std::move(ids), options, callbacks);
            out.reading = one_pass_reading(out.summary, out.trained_tokens);
            return out;
        }
    }

    // Section by section: the windows, the combining passes, the final pass.
    const auto t0 = Clock::now();
    out.reading = LongReading::Sections;
    const std::vector<ModelWindow> windows = cut_into_windows(doc, tok, readable, callbacks.should_abort);
    SourceTree tree(int(windows.size()));
    SectionRun run{doc, s, tok, options, long_options, progress, callbacks, readable, tree, out};
    std::vector<std::string> summaries = run.summarize_windows(windows);
    for (size_t i = 0; i < windows.size(); ++i)
        out.sections.push_back(outline_entry(windows[i].place, QString::fromStdString(summaries[i])));
    std::vector<int64_t> joined_ids;
    const std::vector<std::string> top = run.combine(std::move(summaries), joined_ids);
    ++out.levels;
    if (progress.combining) progress.combining(out.levels);
    out.summary = s.summarize_ids(std::move(joined_ids), options, callbacks);
    if (options.source_attention) {
        tree.finish(out.summary.source_weights, out.summary.source_spans, top, kSeparator);
        out.summary.source_weights = tree.document_weights();
        out.summary.source_spans = tree.document_spans();
    }
    out.summary.input_tokens = tokens;
    out.summary.tokens_read = tokens;
    out.summary.truncated = false;
    const double total = std::chrono::duration<double>(Clock::now() - t0).count();
    out.summary.encode_seconds = std::min(total, run.encode_seconds + out.summary.encode_seconds);
    out.summary.generate_seconds = total - out.summary.encode_seconds;
    return out;
}

}  // namespace precis::longdoc
