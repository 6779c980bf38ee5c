#pragma once
// Sentences of a document, found with ICU's sentence break iterator (Unicode UAX #29
// filtered by ICU's English abbreviation suppressions plus titles and the like, so
// "Dr. Smith", "the U.S. Congress" and "3.5 per cent" stay whole; CJK sentences end at
// their own full stops).
//
// Documents arrive as text with line breaks that mean different things: a PDF or a
// Gutenberg book wraps lines inside a paragraph, a news feed puts one paragraph per line,
// and lists and headings end lines early. Before ICU sees the text, each single line
// break is classified:
//  * a soft wrap (the line runs to the paragraph's usual width, or it ends without a
//    sentence's punctuation and the next line starts in lowercase; the next line does not
//    start a list item, and neither is a table row with a gap of three spaces) becomes a
//    space;
//  * a word hyphenated across lines ("exam-\nple") becomes one word: both characters turn
//    into U+00AD SOFT HYPHEN, which word and sentence breaking ignore;
//  * anything else stays a hard break, where a sentence always ends.
// The prepared text has exactly the length of the original, so every offset found in it
// is an offset into the document (QString / UTF-16 indices, as the text views use).
//
// After ICU, personal initials are joined again ("By D. H. Lawrence"), and structure that
// lost its line breaks is cut off as a paragraph of its own: a heading in capitals run into
// the text ("TOWN GEOLOGY PREFACE This little book...", as a PDF page's layout may give it)
// and a news dateline ("Kabul, Afghanistan (CNN) -- "). `paragraph` counts those pieces too.
#include <QString>

#include <vector>

namespace precis::text {

struct TextSentence {
    int begin = 0, end = 0;   // [begin, end) in the document, surrounding whitespace trimmed
    int paragraph = 0;        // 0-based paragraph (text between hard line breaks, or a piece cut off as above)
    bool table_row = false;   // starts in a row of a table or of a contents page (a line with a 3-space gap)
};

struct SegmentedText {
    QString prepared;  // same length as the document (see above)
    std::vector<TextSentence> sentences;  // in document order, none empty
    int paragraphs = 0;
};

// Line breaks classified as above; the result has text.size() characters.
QString prepare_line_breaks(const QString& text);

// Sentences holding at least one letter or digit, in order.
SegmentedText segment_sentences(const QString& text);

// What a reader sees of a sentence: line wraps as spaces, hyphenated words joined,
// runs of whitespace collapsed to one space.
QString sentence_text(const SegmentedText& segmented, const TextSentence& sentence);

}  // namespace precis::text
