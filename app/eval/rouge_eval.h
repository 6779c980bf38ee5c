#pragma once
// Scores a JSON Lines file of summaries with ROUGE (app/eval/rouge.h), for `precis eval`.
//
// Each non-blank line is an object {"id": ..., "reference": "...", "candidate": "..."}
// ("id" may be a string or a number and is optional). Sentences for ROUGE-Lsum are the
// '\n'-separated lines of each text, as in rouge-score: put one sentence per line.
#include <filesystem>
#include <istream>
#include <string>
#include <utility>
#include <vector>

#include "app/eval/rouge.h"

namespace precis::eval {

struct RougeEvalResult {
    RougeScores mean;                   // mean over examples
    std::size_t count = 0;              // examples scored
    std::vector<std::string> ids;       // per example, in file order
    std::vector<RougeScores> per_example;
    std::string table;                  // rouge_table() of `mean`
};

// Throws std::runtime_error with one sentence naming the file, the line and the problem
// (unreadable file, invalid JSON, a missing or non-string "reference"/"candidate").
RougeEvalResult rouge_eval_jsonl(const std::filesystem::path& path, const RougeOptions& options = {});
RougeEvalResult rouge_eval_stream(std::istream& in, const std::string& source_name,
                                  const RougeOptions& options = {});

// Precision / recall / F1 (x100, two decimals) of each metric for one system:
//   metric       P       R       F
//   rouge1   41.20   38.90   39.02
std::string rouge_table(const RougeScores& scores, std::size_t count);

// F1 (x100) of every metric for several systems, one row each:
//   system        n    R-1    R-2    R-L  R-Lsum
std::string rouge_compare_table(const std::vector<std::pair<std::string, RougeEvalResult>>& systems);

}  // namespace precis::eval
