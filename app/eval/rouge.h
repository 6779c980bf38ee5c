#pragma once
// ROUGE-1, ROUGE-2, ROUGE-L and ROUGE-Lsum with the conventions of Google's
// `rouge-score` package (the one HF `evaluate` wraps), so numbers are comparable with
// published summarization results:
//
//  * Tokenization (rouge_score.tokenize): lowercase, every run of characters outside
//    [a-z0-9] becomes a space, split on whitespace, Porter-stem tokens longer than 3
//    characters (when stemming is on), drop empty tokens. Non-ASCII letters therefore
//    act as separators ("café" -> "caf"), exactly as in rouge-score.
//  * Stemmer (app/text/porter_stemmer.h): rouge-score builds `nltk.stem.porter.PorterStemmer()` with no argument,
//    i.e. mode NLTK_EXTENSIONS (not ORIGINAL_ALGORITHM): Porter's 1980 algorithm plus
//    NLTK's irregular forms (skies -> sky, dying -> die, news -> news, ...), the
//    "ies"/"ied" length-4 rules, the *o rule for two-letter stems, Step 1c's
//    consonant-before-y condition, and the Step 2 rules alli/bli/fulli/logi. We port
//    that mode so stems (and scores) match rouge-score bit for bit.
//  * ROUGE-N: clipped n-gram overlap; P = overlap / candidate n-grams, R = overlap /
//    reference n-grams (denominators floored at 1), F = 2PR / (P + R) (0 if P + R = 0).
//  * ROUGE-L: longest common subsequence over whole texts; P = LCS / |candidate|,
//    R = LCS / |reference|; all zero if either side has no tokens.
//  * ROUGE-Lsum: summary-level LCS. Texts are split into sentences at '\n' (empty lines
//    dropped); for each reference sentence the union of its LCS alignments with every
//    candidate sentence is counted, each token at most as often as it occurs on both
//    sides (rouge-score's `_summary_level_lcs`, same backtracking tie-break).
//  * Aggregation here is the plain mean over examples (rouge-score's
//    BootstrapAggregator reports the median of bootstrap means, which is within
//    sampling noise of it).
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace precis::eval {

struct RougeScore {
    double precision = 0.0;
    double recall = 0.0;
    double fmeasure = 0.0;
};

struct RougeScores {
    RougeScore rouge1;
    RougeScore rouge2;
    RougeScore rougeL;
    RougeScore rougeLsum;
};

struct RougeOptions {
    bool use_stemmer = true;  // rouge-score's use_stemmer=True, the usual setting for summaries
};

// rouge-score's tokenizer. Stems only tokens longer than 3 characters.
std::vector<std::string> rouge_tokenize(std::string_view text, bool use_stemmer = true);

// Sentences for ROUGE-Lsum: split at '\n', empty pieces dropped, each tokenized.
std::vector<std::vector<std::string>> rouge_sentences(std::string_view text, bool use_stemmer = true);

RougeScore rouge_n(const std::vector<std::string>& reference, const std::vector<std::string>& candidate, int n);
RougeScore rouge_l(const std::vector<std::string>& reference, const std::vector<std::string>& candidate);
RougeScore rouge_lsum(const std::vector<std::vector<std::string>>& reference_sentences,
                      const std::vector<std::vector<std::string>>& candidate_sentences);

// All four metrics for one (reference, candidate) pair of raw texts.
RougeScores rouge_score(std::string_view reference, std::string_view candidate, const RougeOptions& options = {});

// Running mean of per-example scores.
class RougeAggregator {
public:
    void add(const RougeScores& s);
    std::size_t count() const { return count_; }
    RougeScores mean() const;

private:
    RougeScores sum_;
    std::size_t count_ = 0;
};

}  // namespace precis::eval
