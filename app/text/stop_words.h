#pragma once
// English function words that carry no topic (articles, pronouns, auxiliaries,
// prepositions, conjunctions, reporting verbs), compared after case folding. The
// extractive summarizer leaves them out of its term vectors so that two sentences are
// similar because they share content words, not because both say "the" and "was".
#include <string_view>

namespace precis::text {

// `word` is case-folded UTF-8.
bool is_stop_word(std::string_view word);

}  // namespace precis::text
