// precis_rouge: a small driver around app/eval/rouge*.cpp (no Qt, no engine) for the
// baseline scripts and for cross-checking the stemmer against NLTK.
//
//   precis_rouge score [--no-stem] NAME=FILE.jsonl...   table of F1 per system (+ P/R per file)
//   precis_rouge stem   < words                          one Porter stem per input line
//   precis_rouge tokenize < text                         rouge tokens of each input line
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "app/eval/rouge.h"
#include "app/eval/rouge_eval.h"
#include "app/text/porter_stemmer.h"

using namespace precis::eval;

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: precis_rouge score|stem|tokenize ...\n";
        return 2;
    }
    const std::string cmd = argv[1];
    std::string line;
    if (cmd == "stem") {
        while (std::getline(std::cin, line)) std::cout << precis::text::porter_stem(line) << '\n';
        return 0;
    }
    if (cmd == "tokenize") {
        while (std::getline(std::cin, line)) {
            const auto toks = rouge_tokenize(line);
            for (std::size_t i = 0; i < toks.size(); ++i) std::cout << (i ? " " : "") << toks[i];
            std::cout << '\n';
        }
        return 0;
    }
    if (cmd == "score") {
        RougeOptions opt;
        std::vector<std::pair<std::string, RougeEvalResult>> systems;
        try {
            for (int i = 2; i < argc; ++i) {
                if (std::strcmp(argv[i], "--no-stem") == 0) {
                    opt.use_stemmer = false;
                    continue;
                }
                std::string arg = argv[i], name = arg, path = arg;
                if (auto eq = arg.find('='); eq != std::string::npos) {
                    name = arg.substr(0, eq);
                    path = arg.substr(eq + 1);
                }
                systems.emplace_back(name, rouge_eval_jsonl(path, opt));
                std::cout << "== " << name << " (" << path << ")\n" << systems.back().second.table << '\n';
            }
        } catch (const std::exception& e) {
            std::cerr << "precis_rouge: " << e.what() << '\n';
            return 1;
        }
        std::cout << rouge_compare_table(systems);
        return 0;
    }
    std::cerr << "precis_rouge: unknown command " << cmd << '\n';
    return 2;
}
