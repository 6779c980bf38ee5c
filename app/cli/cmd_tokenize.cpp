// precis tokenize --model DIR [--json] [--decode] TEXT
// precis tokenize --model DIR --windows FILE --max-tokens N: the windows a long document is
// summarized in (app/long/long_summarizer.h), one JSON object each with its ids.
#include <iostream>

#include <nlohmann/json.hpp>

#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "app/cli/long_output.h"
#include "app/cli/progress.h"
#include "app/file_names.h"
#include "app/ingest/ingest.h"
#include "app/long/long_summarizer.h"
#include "engine/core/error.h"
#include "engine/tokenizer/tokenizer.h"

namespace precis::cli {

namespace {

std::vector<int64_t> parse_ids(const std::string& text) {
    std::string s = text;
    for (char& c : s)
        if (c == '[' || c == ']' || c == ',') c = ' ';
    std::vector<int64_t> ids;
    size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
        if (i >= s.size()) break;
        size_t used = 0;
        try {
            ids.push_back(std::stoll(s.substr(i), &used));
        } catch (const std::exception&) {
            throw Error("--decode needs token ids (numbers), but got '" + s.substr(i, 20) + "'");
        }
        i += used;
    }
    return ids;
}

// Each window of the file as {"title", "start", "end", "pages", "tokens", "ids"}: what
// precis-bench --docs reads (its "ids"), to time a long document's windows on another
// machine (tools/gpu "book" phase).
int print_windows(const std::string& file, const Tokenizer& tok, int max_tokens) {
    check(max_tokens >= 16, "--max-tokens must be at least 16, not " + std::to_string(max_tokens));
    IngestOptions ingest;
    ingest.should_abort = [] { return cancel_requested(); };
    const IngestedDocument doc = ingest_file(path_from_native(file), ingest);
    const longdoc::LongDocument whole{doc.text, doc.page_offsets, doc.outline};
    const std::vector<longdoc::ModelWindow> windows = longdoc::cut_into_windows(whole, tok, max_tokens, ingest.should_abort);
    if (windows.empty()) throw Error(file + ": the document has no text to cut into windows");
    for (const longdoc::ModelWindow& w : windows) {
        nlohmann::json o = outline_json({longdoc::outline_entry(w.place, {})})[0];
        o.erase("summary");
        o["ids"] = longdoc::window_ids(tok, longdoc::window_text(whole, w));
        std::cout << o.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    }
    return 0;
}

}  // namespace

int cmd_tokenize(const Args& raw) {
    Arguments args("tokenize", raw, {"--json", "--decode"}, {"--model", "--windows", "--max-tokens"});
    auto dir = args.value("--model");
    if (!dir) throw Error("precis tokenize needs --model DIR (a folder with tokenizer files)");
    auto tok = load_tokenizer(*dir);
    if (auto file = args.value("--windows")) {
        const auto max_tokens = args.int_value("--max-tokens");
        if (!max_tokens) throw UsageError("precis tokenize --windows FILE needs --max-tokens N (what the model reads)");
        return print_windows(*file, *tok, *max_tokens);
    }
    std::string text;
    for (size_t i = 0; i < args.positional().size(); ++i) text += (i ? " " : "") + args.positional()[i];
    if (args.flag("--decode")) {
        std::vector<int64_t> ids = parse_ids(text);
        for (int64_t id : ids)
            if (id < 0 || id >= tok->vocab_size())
                throw Error("token id " + std::to_string(id) + " is outside the vocabulary of " + std::to_string(tok->vocab_size()));
        const std::string out = tok->decode(ids, false);
        if (args.flag("--json"))
            std::cout << nlohmann::json(out).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
        else
            std::cout << out << "\n";
        return 0;
    }
    std::vector<int64_t> ids = tok->encode(text, true);
    if (args.flag("--json")) {
        std::cout << nlohmann::json(ids).dump() << "\n";
    } else {
        for (size_t i = 0; i < ids.size(); ++i) std::cout << (i ? " " : "") << ids[i];
        std::cout << "\n";
    }
    return 0;
}

}  // namespace precis::cli
