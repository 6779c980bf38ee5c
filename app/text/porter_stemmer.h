#pragma once
// Porter stemmer in NLTK's default mode (NLTK_EXTENSIONS): Porter's 1980 algorithm plus
// NLTK's irregular forms (skies -> sky, dying -> die, news -> news, ...), the "ies"/"ied"
// length-4 rules, the *o rule for two-letter stems, Step 1c's consonant-before-y
// condition and the Step 2 rules alli/bli/fulli/logi. ROUGE (rouge-score stems with
// exactly this mode) and the extractive summarizer's term weights share it.
#include <string>
#include <string_view>

namespace precis::text {

// Expects an ASCII word; uppercase ASCII letters are lowered first.
std::string porter_stem(std::string_view word);

}  // namespace precis::text
