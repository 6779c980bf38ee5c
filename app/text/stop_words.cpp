#include "app/text/stop_words.h"

#include <string>
#include <unordered_set>

namespace precis::text {

namespace {

// The SMART-derived list most IR toolkits start from, trimmed to words that are function
// words in any context, plus contractions split by word breaking ("don" of "don't") and
// "said"/"says", which news copy attaches to every quotation.
constexpr const char* kStopWords[] = {
    "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any", "are", "aren",
    "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can",
    "could", "couldn", "did", "didn", "do", "does", "doesn", "doing", "don", "down", "during", "each", "either",
    "else", "ever", "every", "few", "for", "from", "further", "had", "hadn", "has", "hasn", "have", "haven",
    "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "however", "i", "if", "in",
    "into", "is", "isn", "it", "its", "itself", "just", "least", "less", "ll", "may", "me", "might", "more",
    "most", "much", "must", "mustn", "my", "myself", "neither", "no", "nor", "not", "now", "of", "off", "on",
    "once", "one", "only", "or", "other", "others", "ought", "our", "ours", "ourselves", "out", "over", "own",
    "per", "quite", "rather", "re", "s", "said", "same", "say", "says", "shall", "shan", "she", "should",
    "shouldn", "since", "so", "some", "such", "t", "than", "that", "the", "their", "theirs", "them",
    "themselves", "then", "there", "these", "they", "this", "those", "though", "through", "thus", "to", "too",
    "under", "until", "up", "upon", "us", "ve", "very", "was", "wasn", "we", "were", "weren", "what", "when",
    "where", "whether", "which", "while", "who", "whom", "whose", "why", "will", "with", "within", "without",
    "won", "would", "wouldn", "yet", "you", "your", "yours", "yourself", "yourselves", "d", "m", "o", "y",
};

}  // namespace

bool is_stop_word(std::string_view word) {
    static const std::unordered_set<std::string_view> words(std::begin(kStopWords), std::end(kStopWords));
    return words.count(word) != 0;
}

}  // namespace precis::text
