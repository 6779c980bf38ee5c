// precis tokenize --model DIR [--json] [--decode] TEXT
#include <iostream>

#include <nlohmann/json.hpp>

#include "app/cli/arguments.h"
#include "app/cli/commands.h"
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

}  // namespace

int cmd_tokenize(const Args& raw) {
    Arguments args("tokenize", raw, {"--json", "--decode"}, {"--model"});
    auto dir = args.value("--model");
    if (!dir) throw Error("precis tokenize needs --model DIR (a folder with tokenizer files)");
    auto tok = load_tokenizer(*dir);
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
