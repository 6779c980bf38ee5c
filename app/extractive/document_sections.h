#pragma once
// The parts of a long document an extractive summary should draw from: chapters and
// sections opened by headings, or, in a document without headings, runs of paragraphs of
// about the same length. A summary of a book then picks sentences across the book
// instead of only from its most repetitive chapter, and each similarity graph stays a few
// hundred sentences big.
#include <QStringView>

#include <vector>

#include "app/text/sentence_segmenter.h"

namespace precis::extractive {

struct Section {
    size_t begin = 0, end = 0;  // sentence indices [begin, end)
};

// A paragraph (a line of its own) that reads as a title: short, and without a sentence's
// closing punctuation ("Early life"), or in capitals ("THE END OF THE VOYAGE."), or opened
// by a chapter word or a number ("CHAPTER IV.", "3.2 Results", "XIII. THE GLADE, 244"); or a
// table of contents run into one line: no closing punctuation and mostly capitalized words;
// or an editor's note in brackets ("[Footnote 3: ...]"), or up to 40 words in capitals.
bool looks_like_heading(QStringView paragraph, int words);

// heading[i] for every sentence: the sentences of paragraphs that look like headings, and
// of editor's notes that open with '[' and close with ']' a few paragraphs later, and those
// in rows of tables and contents pages; and, before the body begins (the first paragraph of
// prose: not in title case, two sentences or more than 12 words), a title page's one-sentence
// lines of up to 16 words in title case even when they end with a full stop ('From "The New
// Decameron"--Volume III.', a list of the author's other books).
// `words[i]` is sentence i's word count.
std::vector<bool> heading_sentences(const text::SegmentedText& segmented, const std::vector<int>& words);

struct SectionOptions {
    size_t min_sentences = 12;   // a shorter section joins the one after it
    size_t max_sentences = 300;  // a longer one is cut at paragraph starts
};

// Sections covering every sentence, in order. `heading[i]` marks sentence i as a heading.
std::vector<Section> document_sections(const text::SegmentedText& segmented, const std::vector<bool>& heading,
                                       const SectionOptions& options = {});

}  // namespace precis::extractive
