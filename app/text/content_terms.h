#pragma once
// The content words of each sentence, as the extractive summarizer compares them: ICU
// word boundaries (dictionary-based for Chinese, Japanese and Thai, so text without
// spaces still splits into words), Unicode case folding, English stop words left out,
// and English words reduced to their Porter stems ("rivers", "river's" -> "river").
#include <QString>

#include <string>
#include <vector>

#include "app/text/sentence_segmenter.h"

namespace precis::text {

struct SentenceTerms {
    std::vector<std::vector<int>> terms;  // per sentence: term ids, repeats kept, in order
    std::vector<int> words;               // per sentence: every ICU word, stop words included ("flood-plain": 2)
    std::vector<int> counted_words;       // per sentence: the words a reader counts, as count_words() ("flood-plain": 1)
    std::vector<std::string> vocabulary;  // term id -> folded, stemmed UTF-8 term
};

// Terms of every sentence of `segmented` (words are read from its prepared text).
SentenceTerms sentence_terms(const SegmentedText& segmented);

// Every word (letters, digits, kana or ideographs) of a plain text, for counting as a reader
// and a word processor do: words joined by punctuation without a space ("flood-plain",
// "and/or") count once, so the count agrees with one of the text's words between spaces.
int count_words(const QString& text);

}  // namespace precis::text
