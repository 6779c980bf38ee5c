// Sentence segmentation (app/text/sentence_segmenter.h) on the cases documents throw at
// it: abbreviations, decimals, quotes, lists, hyphenated and wrapped PDF lines, headings,
// text without spaces, and documents with no or one sentence.
#include <gtest/gtest.h>

#include <QString>
#include <QStringList>

#include "app/text/sentence_segmenter.h"

using namespace precis::text;

namespace {

QStringList sentences_of(const QString& text) {
    const SegmentedText s = segment_sentences(text);
    QStringList out;
    for (const TextSentence& t : s.sentences) out << sentence_text(s, t);
    return out;
}

TEST(SentenceSegmenter, AbbreviationsAndTitlesDoNotEndSentences) {
    EXPECT_EQ(sentences_of("Dr. Smith met Mr. Jones at 5 p.m. on Friday. They talked."),
              (QStringList{"Dr. Smith met Mr. Jones at 5 p.m. on Friday.", "They talked."}));
    EXPECT_EQ(sentences_of("Officials in the U.S. Congress disagreed. Others agreed, e.g. the Senate."),
              (QStringList{"Officials in the U.S. Congress disagreed.", "Others agreed, e.g. the Senate."}));
    // An initialism that ends a sentence: the next one opens with a function word.
    EXPECT_EQ(sentences_of("He moved to the U.S. The move was hard."),
              (QStringList{"He moved to the U.S.", "The move was hard."}));
}

TEST(SentenceSegmenter, NoIsANumberSignOnlyBeforeANumber) {
    // An answer "No." ends its sentence; "No. 5" and "Nos. 3 and 4" stay whole.
    EXPECT_EQ(sentences_of("Could I have milk?\n\nNo. Perhaps in an hour there would be milk. Perhaps not."),
              (QStringList{"Could I have milk?", "No.", "Perhaps in an hour there would be milk.", "Perhaps not."}));
    EXPECT_EQ(sentences_of("The engine No. 5 left the shed. Nos. 3 and 4 stayed behind."),
              (QStringList{"The engine No. 5 left the shed.", "Nos. 3 and 4 stayed behind."}));
    EXPECT_EQ(sentences_of("He said no. The vote failed."), (QStringList{"He said no.", "The vote failed."}));
}

TEST(SentenceSegmenter, PersonalInitialsDoNotEndSentences) {
    EXPECT_EQ(sentences_of("TORTOISES\n\nBy D. H. Lawrence\n\nThe poems were written in Tuscany."),
              (QStringList{"TORTOISES", "By D. H. Lawrence", "The poems were written in Tuscany."}));
    EXPECT_EQ(sentences_of("The book was edited by J. R. Smith and printed in Boston. It sold well."),
              (QStringList{"The book was edited by J. R. Smith and printed in Boston.", "It sold well."}));
    // A capital letter that ends a sentence: the next one opens with a function word.
    EXPECT_EQ(sentences_of("He fought in World War I. The war changed him."),
              (QStringList{"He fought in World War I.", "The war changed him."}));
}

TEST(SentenceSegmenter, HeadingsInCapitalsGluedOntoTextAreCutOff) {
    // As a PDF page with a title close above its first paragraph comes out of the layout.
    const QString text = "TOWN GEOLOGY PREFACE This little book has shaped itself out of lectures. It is short.";
    EXPECT_EQ(sentences_of(text),
              (QStringList{"TOWN GEOLOGY PREFACE", "This little book has shaped itself out of lectures.", "It is short."}));
    const SegmentedText s = segment_sentences(text);
    ASSERT_EQ(s.sentences.size(), 3u);
    EXPECT_EQ(s.sentences[0].paragraph, 0);  // the heading is a paragraph of its own
    EXPECT_EQ(s.sentences[1].paragraph, 1);
    EXPECT_EQ(s.sentences[2].paragraph, 1);
    EXPECT_EQ(s.paragraphs, 2);
    // A title page and a table of contents run into one line, then the first poem.
    EXPECT_EQ(sentences_of("By D. H. Lawrence NEW YORK THOMAS SELTZER 1921 CONTENTS Baby Tortoise Tortoise Shout "
                           "BABY TORTOISE You know what it is to be born alone."),
              (QStringList{"By D. H. Lawrence", "NEW YORK THOMAS SELTZER 1921 CONTENTS", "Baby Tortoise Tortoise Shout",
                           "BABY TORTOISE", "You know what it is to be born alone."}));
}

TEST(SentenceSegmenter, RowsOfATableOfContentsAreNotJoinedAsWrappedLines) {
    const QString text =
        "   I.       How the Black Sheep came forth from the Fold\n"
        "   II.      How Alleyne Edricson came out into the World\n"
        "   III.     How Hordle John cozened the Fuller of Lymington\n";
    const SegmentedText s = segment_sentences(text);
    ASSERT_FALSE(s.sentences.empty());
    EXPECT_EQ(s.paragraphs, 3);
    for (const TextSentence& t : s.sentences) {
        EXPECT_FALSE(sentence_text(s, t).contains("Fold II")) << sentence_text(s, t).toStdString();
        EXPECT_TRUE(t.table_row) << sentence_text(s, t).toStdString();
    }
    // Prose with two spaces between its sentences is not a table.
    const SegmentedText prose = segment_sentences("The abbey bell rang.  The monks came out.\n");
    ASSERT_EQ(prose.sentences.size(), 2u);
    for (const TextSentence& t : prose.sentences) EXPECT_FALSE(t.table_row);
}

TEST(SentenceSegmenter, CapitalsInsideOrdinarySentencesStay) {
    EXPECT_EQ(sentences_of("The NEW YORK TIMES reported it first. The NASA and FBI teams met."),
              (QStringList{"The NEW YORK TIMES reported it first.", "The NASA and FBI teams met."}));
}

TEST(SentenceSegmenter, NewsDatelinesAreCutOffTheFirstSentence) {
    const QString text = "LONDON, England (CNN) -- Banks were blamed for the crisis.\n\n(AP) \u2014 Markets fell. Fans (CNN) -- cheered.";
    EXPECT_EQ(sentences_of(text), (QStringList{"LONDON, England (CNN) --", "Banks were blamed for the crisis.", "(AP) \u2014",
                                               "Markets fell.", "Fans (CNN) -- cheered."}));
    const SegmentedText s = segment_sentences(text);
    ASSERT_EQ(s.sentences.size(), 5u);
    EXPECT_NE(s.sentences[0].paragraph, s.sentences[1].paragraph);  // a piece of its own, as a heading is
}

TEST(SentenceSegmenter, DecimalsAndNumbersStayInsideTheirSentence) {
    EXPECT_EQ(sentences_of("Prices rose 3.5 per cent to $1,204.50 in 2024. Wages did not."),
              (QStringList{"Prices rose 3.5 per cent to $1,204.50 in 2024.", "Wages did not."}));
}

TEST(SentenceSegmenter, QuotationsCloseWithTheirSentence) {
    EXPECT_EQ(sentences_of("\"We will rebuild,\" she said. \xE2\x80\x9CIt will take years.\xE2\x80\x9D Then she left."),
              (QStringList{"\"We will rebuild,\" she said.", "\xE2\x80\x9CIt will take years.\xE2\x80\x9D", "Then she left."}));
    EXPECT_EQ(sentences_of("He asked: \"Why now?\" Nobody answered."),
              (QStringList{"He asked: \"Why now?\"", "Nobody answered."}));
}

TEST(SentenceSegmenter, EachBulletOrNumberedItemIsItsOwnSentence) {
    const QString text = "The plan has three parts:\n- repair the bridge\n- widen the road\n1. first item\n2) second item\n";
    EXPECT_EQ(sentences_of(text), (QStringList{"The plan has three parts:", "- repair the bridge", "- widen the road",
                                               "1. first item", "2) second item"}));
    const SegmentedText s = segment_sentences(text);
    for (size_t i = 0; i < s.sentences.size(); ++i) EXPECT_EQ(s.sentences[i].paragraph, int(i));
}

TEST(SentenceSegmenter, WrappedAndHyphenatedPdfLinesAreJoined) {
    const QString text =
        "The committee examined the evidence care-\nfully and concluded that the river had\n"
        "changed its course twice. A second study\nconfirmed this result in every detail.\n";
    EXPECT_EQ(sentences_of(text),
              (QStringList{"The committee examined the evidence carefully and concluded that the river had changed its "
                           "course twice.",
                           "A second study confirmed this result in every detail."}));
    // Offsets stay offsets into the original text.
    const SegmentedText s = segment_sentences(text);
    ASSERT_EQ(s.sentences.size(), 2u);
    EXPECT_EQ(text.mid(s.sentences[1].begin, s.sentences[1].end - s.sentences[1].begin),
              "A second study\nconfirmed this result in every detail.");
    EXPECT_EQ(s.prepared.size(), text.size());
}

TEST(SentenceSegmenter, HyphensThatAreNotLineBreakHyphenationStay) {
    // A capital after the break: a compound name, not a hyphenated word.
    EXPECT_EQ(sentences_of("The long negotiations between the delegations in the Franco-\n"
                           "German border town of Kehl went on for a long time.\n"),
              (QStringList{"The long negotiations between the delegations in the Franco- German border town of Kehl "
                           "went on for a long time."}));
}

TEST(SentenceSegmenter, ShortLinesAndParagraphsAreHardBreaks) {
    // One paragraph per line, as in news feeds; a heading line without punctuation.
    const QString text =
        "Early life\nShe was born in a small harbour town where her father repaired fishing boats for a living\n"
        "The town had no school, so she learned to read from the almanacs her father kept.\n\nLater she moved.";
    const SegmentedText s = segment_sentences(text);
    QStringList got;
    for (const TextSentence& t : s.sentences) got << sentence_text(s, t);
    EXPECT_EQ(got, (QStringList{"Early life",
                                "She was born in a small harbour town where her father repaired fishing boats for a "
                                "living The town had no school, so she learned to read from the almanacs her father "
                                "kept.",
                                "Later she moved."}));
    ASSERT_EQ(s.sentences.size(), 3u);
    EXPECT_EQ(s.sentences[0].paragraph, 0);
    EXPECT_EQ(s.sentences[1].paragraph, 1);
    EXPECT_EQ(s.sentences[2].paragraph, 2);
}

TEST(SentenceSegmenter, ShortLinesThatGoOnInLowercaseAreWraps) {
    // Lines of a PDF or a text file a little or much shorter than the block's widest, that
    // end without punctuation before a line in lowercase (issue 42).
    const QString text =
        "Lists in the file are sorted, to enable binary searching. The list of aliases is sorted by alias,\n"
        "the list of\n"
        "literal globs is sorted by the literal. Repairs to the old sea wall, which had been delayed for\n"
        "several years by disputes over funding,\n"
        "began in March.\n"
        "A heading\n"
        "Lowercase after a full stop.\n"
        "stays a new line.\n";
    EXPECT_EQ(sentences_of(text),
              (QStringList{"Lists in the file are sorted, to enable binary searching.",
                           "The list of aliases is sorted by alias, the list of literal globs is sorted by the literal.",
                           "Repairs to the old sea wall, which had been delayed for several years by disputes over "
                           "funding, began in March.",
                           "A heading", "Lowercase after a full stop.",
                           "stays a new line."}));
}

TEST(SentenceSegmenter, CjkTextWithoutSpacesSplitsAtItsFullStops) {
    EXPECT_EQ(sentences_of("今天天气很好。我们去公园散步吧！你觉得怎么样？"),
              (QStringList{"今天天气很好。", "我们去公园散步吧！", "你觉得怎么样？"}));
    EXPECT_EQ(sentences_of("東京は日本の首都です。大阪は二番目に大きい都市です。"),
              (QStringList{"東京は日本の首都です。", "大阪は二番目に大きい都市です。"}));
}

TEST(SentenceSegmenter, EmptyBlankAndSymbolOnlyTextsHaveNoSentences) {
    EXPECT_TRUE(segment_sentences("").sentences.empty());
    EXPECT_TRUE(segment_sentences("  \n\n \t ").sentences.empty());
    EXPECT_TRUE(segment_sentences("*** --- ***\n\n...").sentences.empty());
}

TEST(SentenceSegmenter, OneSentenceWithoutFinalPunctuation) {
    EXPECT_EQ(sentences_of("  a single sentence without a full stop  "), QStringList{"a single sentence without a full stop"});
}

TEST(SentenceSegmenter, OffsetsAreUtf16IndicesOfTheDocument) {
    const QString text = QString::fromUtf8("Caf\xC3\xA9 \xF0\x9F\x98\x80 opened. It closed.");
    const SegmentedText s = segment_sentences(text);
    ASSERT_EQ(s.sentences.size(), 2u);
    EXPECT_EQ(text.mid(s.sentences[1].begin, s.sentences[1].end - s.sentences[1].begin), "It closed.");
}

}  // namespace
