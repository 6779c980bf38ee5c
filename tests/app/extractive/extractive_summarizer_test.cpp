// The extractive summarizer (app/extractive/extractive_summarizer.h): it picks central
// sentences, keeps the document's order, respects every kind of length budget, avoids
// saying the same thing twice, spreads a long book over its chapters, is deterministic,
// and handles the degenerate documents.
#include <gtest/gtest.h>

#include <QSet>
#include <QString>
#include <QStringList>

#include "app/extractive/extractive_summarizer.h"
#include "app/text/content_terms.h"
#include "engine/core/error.h"

using namespace precis::extractive;

namespace {

// A story about a flood, with one sentence that has nothing to do with it.
QString flood_story() {
    return QStringLiteral(
        "Heavy rain caused the river to flood the old town on Sunday night.\n"
        "The flood water rose above the river banks and reached the town square within hours.\n"
        "Residents of the old town were moved to the school as the flood spread through the streets.\n"
        "My cousin once bought a blue bicycle at a market in another country entirely.\n"
        "Engineers said the river defences failed because the rain fell faster than the flood channels could carry it.\n"
        "By Monday the flood had damaged two hundred houses in the old town and closed the river bridge.\n"
        "The mayor promised to rebuild the river defences before the next rainy season.\n");
}

QString chosen_text(const ExtractiveSummary& s) { return s.text; }

TEST(ExtractiveSummarizer, PicksCentralSentencesNotTheOffTopicOne) {
    ExtractiveOptions o;
    o.budget = {BudgetUnit::Sentences, 3};
    const ExtractiveSummary s = summarize_extractive(flood_story(), o);
    ASSERT_EQ(s.sentences.size(), 3u);
    EXPECT_FALSE(s.text.contains("bicycle")) << s.text.toStdString();
    EXPECT_EQ(s.document_sentences, 7);
}

TEST(ExtractiveSummarizer, KeepsDocumentOrderAndExactOffsets) {
    const QString text = flood_story();
    ExtractiveOptions o;
    o.budget = {BudgetUnit::Sentences, 4};
    const ExtractiveSummary s = summarize_extractive(text, o);
    ASSERT_EQ(s.sentences.size(), 4u);
    QStringList lines;
    for (size_t i = 0; i < s.sentences.size(); ++i) {
        const ExtractedSentence& e = s.sentences[i];
        if (i > 0) EXPECT_LT(s.sentences[i - 1].index, e.index);
        EXPECT_EQ(text.mid(e.begin, e.end - e.begin), e.text);  // one line each: no wraps to join
        lines << e.text;
    }
    EXPECT_EQ(s.text, lines.join('\n'));
}

TEST(ExtractiveSummarizer, RespectsWordAndRatioBudgets) {
    const QString text = flood_story();
    for (int words : {20, 35, 60}) {
        ExtractiveOptions o;
        o.budget = {BudgetUnit::Words, double(words)};
        const ExtractiveSummary s = summarize_extractive(text, o);
        EXPECT_LE(s.summary_words, words) << words;
        EXPECT_GE(s.sentences.size(), 1u);
    }
    ExtractiveOptions o;
    o.budget = {BudgetUnit::Ratio, 0.3};
    const ExtractiveSummary s = summarize_extractive(text, o);
    EXPECT_LE(s.summary_words, int(0.3 * s.document_words + 0.5));
    EXPECT_EQ(s.budget_words, int(0.3 * s.document_words + 0.5));
}

TEST(ExtractiveSummarizer, AWordBudgetSmallerThanEverySentenceStillGivesTheBestOne) {
    ExtractiveOptions o;
    o.budget = {BudgetUnit::Words, 3};
    const ExtractiveSummary s = summarize_extractive(flood_story(), o);
    EXPECT_EQ(s.sentences.size(), 1u);
}

TEST(ExtractiveSummarizer, DoesNotRepeatItself) {
    // The central sentence appears twice, word for word.
    const QString repeated = QStringLiteral("The river flood damaged the old town and its river bridge.");
    const QString text = repeated + "\n" + flood_story() + repeated + "\n";
    ExtractiveOptions o;
    o.budget = {BudgetUnit::Sentences, 3};
    const ExtractiveSummary s = summarize_extractive(text, o);
    EXPECT_LE(s.text.count(repeated), 1) << s.text.toStdString();
}

TEST(ExtractiveSummarizer, IsDeterministic) {
    ExtractiveOptions o;
    o.budget = {BudgetUnit::Sentences, 3};
    const ExtractiveSummary a = summarize_extractive(flood_story(), o);
    for (int i = 0; i < 3; ++i) {
        const ExtractiveSummary b = summarize_extractive(flood_story(), o);
        EXPECT_EQ(a.text, b.text);
        ASSERT_EQ(a.sentences.size(), b.sentences.size());
        for (size_t k = 0; k < a.sentences.size(); ++k) EXPECT_EQ(a.sentences[k].score, b.sentences[k].score);
    }
}

// A book of twelve chapters, each about its own subject, long enough to be spread.
QString twelve_chapter_book() {
    const QStringList subjects = {"harbour", "orchard", "railway", "library", "glacier", "foundry",
                                  "vineyard", "observatory", "monastery", "lighthouse", "quarry", "market"};
    QString book;
    for (int c = 0; c < subjects.size(); ++c) {
        const QString& s = subjects[c];
        book += QStringLiteral("CHAPTER %1\n\n").arg(c + 1);
        for (int i = 0; i < 20; ++i)
            book += QStringLiteral("The %1 keeper walked past the %1 gate for the %2 time that season. ").arg(s).arg(i + 1) +
                    QStringLiteral("Every visitor to the %1 asked the keeper about the old %1 stories.\n\n").arg(s);
    }
    return book;
}

TEST(ExtractiveSummarizer, ALongBookIsSummarizedAcrossItsChapters) {
    ExtractiveOptions o;
    o.budget = {BudgetUnit::Sentences, 12};
    const ExtractiveSummary s = summarize_extractive(twelve_chapter_book(), o);
    EXPECT_GE(s.sections, 12);
    ASSERT_EQ(s.sentences.size(), 12u);
    QSet<int> sections;
    for (const ExtractedSentence& e : s.sentences) {
        sections.insert(e.section);
        EXPECT_FALSE(e.text.startsWith("CHAPTER")) << "headings are never chosen";
    }
    EXPECT_GE(sections.size(), 10) << s.text.toStdString();
}

TEST(ExtractiveSummarizer, TitlesAndTableOfContentsLinesAreNeverChosen) {
    const QString text = QStringLiteral(
        "CONTENTS\n\n XIII. THE ATTACK ON THE GLADE,       244\n\n XIV. FRESH TROUBLES AT THE RIVER GLADE,  263\n\n"
        "CHAPTER XIII.\n\nTHE ATTACK ON THE GLADE.\n\n"
        "The settlers at the glade heard the attack coming long before dawn on the third day.\n\n"
        "The attack on the glade was beaten off by the settlers after an hour of fighting.\n\n"
        "Early life\n\nThe settlers had built the glade stockade with the help of their neighbours.\n");
    ExtractiveOptions o;
    o.budget = {BudgetUnit::Sentences, 3};
    const ExtractiveSummary s = summarize_extractive(text, o);
    ASSERT_EQ(s.sentences.size(), 3u);
    for (const ExtractedSentence& e : s.sentences) EXPECT_TRUE(e.text.startsWith("The settlers") || e.text.startsWith("The attack on the glade was")) << e.text.toStdString();
}

TEST(ExtractiveSummarizer, AHeadingGluedOntoTheFirstParagraphIsNotPartOfTheSummary) {
    // A PDF whose title and "PREFACE" sit close above the text: one line in the ingested text.
    const QString text = QStringLiteral(
        "TOWN GEOLOGY PREFACE This little book about the rocks and soils of the town has shaped itself out of "
        "lectures on geology. The rocks of the town were laid down by rivers and seas long ago. Every townsman "
        "can learn the geology of the rocks and soils of his own town. The soils of the town come from its rocks.\n");
    ExtractiveOptions o;
    o.budget = {BudgetUnit::Sentences, 2};
    const ExtractiveSummary s = summarize_extractive(text, o);
    ASSERT_EQ(s.sentences.size(), 2u);
    EXPECT_FALSE(s.text.contains("GEOLOGY")) << s.text.toStdString();
    EXPECT_FALSE(s.text.contains("PREFACE")) << s.text.toStdString();
}

TEST(ExtractiveSummarizer, TitlePagesAndTablesOfContentsAreStructureNotSentences) {
    const QString poems = QStringLiteral(
        "The baby tortoise heaves its feet from the shell on the first day of its life.\n\n"
        "The tortoise moves on alone across the garden, slow and solitary in the sun.\n\n"
        "The tortoise family has no connections, each tortoise alone in its own shell.\n");
    // As a plain-text book has it, and as a PDF run into one line.
    const QString laid_out = QStringLiteral(
        "TORTOISES\n\nBy D. H. Lawrence\n\n\nNEW  YORK\n\nTHOMAS SELTZER\n\n1921\n\n\nCONTENTS\n\n"
        "     Baby Tortoise\n\n     Tortoise-Shell\n\n     Tortoise Family Connections\n\n\nBABY TORTOISE\n\n");
    const QString run_together = QStringLiteral(
        "TORTOISES By D. H. Lawrence NEW YORK THOMAS SELTZER 1921 CONTENTS Baby Tortoise Tortoise-Shell Tortoise "
        "Family Connections Lui et Elle Tortoise Gallantry Tortoise Shout BABY TORTOISE ");
    for (const QString& front : {laid_out, run_together}) {
        ExtractiveOptions o;
        o.budget = {BudgetUnit::Sentences, 3};
        const ExtractiveSummary s = summarize_extractive(front + poems, o);
        ASSERT_EQ(s.sentences.size(), 3u);
        for (const ExtractedSentence& e : s.sentences)
            EXPECT_TRUE(e.text.startsWith("The ")) << e.text.toStdString();
    }
}

TEST(ExtractiveSummarizer, FootnotesImprintsAndContentsRowsAreStructure) {
    const QString text = QStringLiteral(
        "THE WHITE COMPANY\n\n"
        "R. H. MOORE, 162, FLEET-STREET; AND BANCKS AND CO., EXCHANGE-STREET, MANCHESTER, PRINTERS TO THE TRADE.\n\n"
        "   I.       How the Black Sheep came forth from the Fold of the abbey\n"
        "   II.      How Alleyne Edricson came out into the World of the abbey\n\n"
        "[Footnote 3: The abbey paid old duties upon all rum, spirits, molasses and sugar of the abbey.]\n\n"
        "[Footnote 18: The lines the abbey had forgotten are these:\n\n"
        "The abbey fold, the abbey bell, the black sheep of the abbey came forth from the abbey fold.]\n\n"
        "Frost Dynevor     b. 1824       d. 1832      d. 1832     d. 1832    b. 1826.\n\n"
        "The abbey bell rang as the black sheep of the abbey came forth from the fold at dawn.\n\n"
        "Alleyne left the abbey and came out into the world beyond the abbey walls.\n\n"
        "The monks of the abbey watched the young men leave the abbey fold.\n");
    ExtractiveOptions o;
    o.budget = {BudgetUnit::Sentences, 3};
    const ExtractiveSummary s = summarize_extractive(text, o);
    ASSERT_EQ(s.sentences.size(), 3u);
    for (const ExtractedSentence& e : s.sentences)
        EXPECT_TRUE(e.text.startsWith("The abbey bell") || e.text.startsWith("Alleyne left") || e.text.startsWith("The monks"))
            << e.text.toStdString();
}

TEST(ExtractiveSummarizer, TitlePageLinesWithAFullStopAreFrontMatterNotSentences) {
    // A title page's lines in title case that end with a full stop, as a Gutenberg book
    // has them: a volume line and a list of the author's other books, one of more than 12 words.
    const QString text = QStringLiteral(
        "THE WINTER FERRY\n\n"
        "From \"The River Stories\"--Volume II.\n\n"
        "By A. N. Writer\n\n"
        "Wading the Ford: A Tale of the River Crossing at the Old Stone Mill of the Valley.\n\n"
        "The ferryman waited at the river crossing while the winter snow fell on the valley.\n\n"
        "The river rose in the night and the ferry could no longer cross to the valley farms.\n\n"
        "In the morning the farmers of the valley came down to the river to wait for the ferry.\n\n"
        "The ferryman took them across the river one by one when the water fell at noon.\n");
    for (double sentences : {1, 2, 3}) {
        ExtractiveOptions o;
        o.budget = {BudgetUnit::Sentences, sentences};
        const ExtractiveSummary s = summarize_extractive(text, o);
        ASSERT_EQ(s.sentences.size(), size_t(sentences));
        for (const ExtractedSentence& e : s.sentences)
            EXPECT_TRUE(e.text.startsWith("The ") || e.text.startsWith("In the morning")) << e.text.toStdString();
    }
    // After the body has begun, a sentence in title case is an ordinary sentence.
    ExtractiveOptions o;
    o.budget = {BudgetUnit::Sentences, 5};
    const QString later = text + QStringLiteral("\nFrom Every Farm Came Farmers Carrying Winter Bread.\n");
    const ExtractiveSummary s = summarize_extractive(later, o);
    EXPECT_TRUE(s.text.contains("Winter Bread")) << s.text.toStdString();
}

TEST(ExtractiveSummarizer, DialogueFragmentsAreNotChosen) {
    // A short line of talk opens the story (the position weight alone would choose it), a
    // reply without quotation marks ("No. Perhaps...") and an interjection follow.
    const QString text = QStringLiteral(
        "\"Come down to the river one day--yes, do!\"\n\n"
        "The ferryman waited at the river crossing while the winter snow fell on the valley.\n\n"
        "Could the ferry cross the river?\n\n"
        "No. Perhaps in an hour the river ferry would cross.\n\n"
        "Oh but--said the farmer--the river ferry--\n\n"
        "The river rose in the night and the ferry could no longer cross to the valley farms.\n\n"
        "In the morning the farmers of the valley came down to the river to wait for the ferry.\n\n"
        "The ferryman took the farmers across the river one by one when the water fell at noon.\n");
    for (double sentences : {1, 2, 3, 4}) {
        ExtractiveOptions o;
        o.budget = {BudgetUnit::Sentences, sentences};
        const ExtractiveSummary s = summarize_extractive(text, o);
        ASSERT_EQ(s.sentences.size(), size_t(sentences));
        for (const ExtractedSentence& e : s.sentences)
            EXPECT_TRUE(e.text.startsWith("The ") || e.text.startsWith("In the morning")) << e.text.toStdString();
    }
    // A word budget with room left after the narration does not fill it with talk.
    ExtractiveOptions o;
    o.budget = {BudgetUnit::Words, 70};
    const ExtractiveSummary s = summarize_extractive(text, o);
    for (const char* talk : {"Come down", "Perhaps", "Oh but", "Could the"})
        EXPECT_FALSE(s.text.contains(QLatin1String(talk))) << s.text.toStdString();
}

TEST(ExtractiveSummarizer, AShortSentenceThatAnswersTheOneBeforeComesWithIt) {
    // "A car park swallows nothing." takes up "swallow" from the sentence before: alone it
    // means little, so it is chosen only with that sentence.
    const QString text = QStringLiteral(
        "Rain that falls on a catchment soaks into the soil or runs across the surface to the river. "
        "A forest on deep soil can swallow a summer storm almost entirely. A car park swallows nothing.\n\n"
        "The river carries the water of its catchment down to the sea through its valley.\n");
    for (int words : {20, 25, 30, 40, 50}) {
        ExtractiveOptions o;
        o.budget = {BudgetUnit::Words, double(words)};
        const ExtractiveSummary s = summarize_extractive(text, o);
        if (s.text.contains("car park")) EXPECT_TRUE(s.text.contains("A forest")) << words << ": " << s.text.toStdString();
    }
}

TEST(ExtractiveSummarizer, WordsAreCountedAsAReaderCountsThem) {
    // As the document's header counts them (words between spaces): "flood-plain", "and/or" and
    // "engineer--the" are one word each, though the rules count ICU's words.
    const QString text = QStringLiteral(
        "The flood-plain of the river holds water and/or silt after every flood.\n"
        "A well-known engineer--the town's own--measured the river-bank each spring.\n");
    const ExtractiveSummary s = summarize_extractive(text, {});
    EXPECT_EQ(s.document_words, 21);
    EXPECT_EQ(precis::text::count_words(text), 21);
    int words = 0;
    for (const ExtractedSentence& e : s.sentences) words += e.words;
    EXPECT_EQ(s.summary_words, words);
    EXPECT_EQ(s.sentences.front().words, 12);
}

TEST(ExtractiveSummarizer, TheDocumentsWordsIncludeWhatIsNoSentence) {
    // A manual's headings, bullets, code and dotted contents lines are words of the document
    // (the header counts them) though no summary sentence: one count, 37 words, for both.
    const QString text = QStringLiteral(
        "Contents . . . . . . 3\n\n"
        "2.1 ASN.1 syntax\n\n"
        "The parser is case sensitive and reads every structure of the file in order.\n\n"
        "\u2022 asn1_parser2tree (file, definitions, error)\n\n"
        "The comments begin with two dashes and end at the end of the line.\n");
    const ExtractiveSummary s = summarize_extractive(text, {});
    EXPECT_EQ(precis::text::count_words(text), 37);
    EXPECT_EQ(s.document_words, 37);
}

TEST(ExtractiveSummarizer, ARunInHeadingIsNotASummarySentence) {
    // "Summary of the main points." opens the bundled sample's last paragraph: it names what
    // follows and says nothing. "Results were clear." starts the same way and is a sentence.
    const QString text = QStringLiteral(
        "Rivers shape their valleys slowly, grain by grain, season after season, over thousands of years.\n\n"
        "Summary of the main points. Rivers are shaped by the balance between the water that falls on a "
        "catchment and the paths open to it. Their channels branch, meander and spread fertile plains.\n\n"
        "Results were clear. Gauges on the river recorded every flood of the last century in detail.\n");
    ExtractiveOptions o;
    o.budget = {BudgetUnit::Sentences, 6};
    const ExtractiveSummary s = summarize_extractive(text, o);
    EXPECT_FALSE(s.text.contains("Summary of the main points")) << s.text.toStdString();
    EXPECT_TRUE(s.text.contains("Rivers are shaped by the balance")) << s.text.toStdString();
}

TEST(ExtractiveSummarizer, ANewsDatelineIsNotPartOfTheSummary) {
    ExtractiveOptions o;
    o.budget = {BudgetUnit::Sentences, 1};
    const ExtractiveSummary s = summarize_extractive("Kabul, Afghanistan (CNN) -- " + flood_story(), o);
    ASSERT_EQ(s.sentences.size(), 1u);
    EXPECT_FALSE(s.text.contains("CNN")) << s.text.toStdString();
}

TEST(ExtractiveSummarizer, ASentenceThatMeansNothingAloneIsNotChosen) {
    const QString text = QStringLiteral(
        "The old canal must be drained before the lock gates can be repaired this winter.\n"
        "It is very necessary to do so.\n"
        "Engineers will repair the canal lock gates once the canal water has been drained.\n"
        "My cousin once bought a blue bicycle at a market in another country.\n");
    ExtractiveOptions o;
    o.budget = {BudgetUnit::Sentences, 3};
    const ExtractiveSummary s = summarize_extractive(text, o);
    // Earlier in the document than the off-topic sentence, it would win on position alone.
    EXPECT_FALSE(s.text.contains("necessary")) << s.text.toStdString();
    EXPECT_TRUE(s.text.contains("bicycle")) << s.text.toStdString();
}

TEST(ExtractiveSummarizer, ASentenceThatPointsBackBringsTheOneItLeansOn) {
    // The only sentence worth choosing opens with "These": the short one it refers to comes too.
    const QString text = QStringLiteral(
        "Records were kept.\n"
        "These river flood records show that the river flood reached the village bridge in every flood year.\n"
        "Bees hum.\n");
    ExtractiveOptions o;
    o.budget = {BudgetUnit::Words, 40};
    EXPECT_EQ(summarize_extractive(text, o).text,
              "Records were kept.\nThese river flood records show that the river flood reached the village bridge in "
              "every flood year.");
    // Nor does a sentence that goes on from a quoted question.
    EXPECT_EQ(summarize_extractive(QStringLiteral("\"Where did the river flood?\" cried the old miller of the river mill "
                                                  "by the village bridge.\nBees hum.\n"),
                                   o)
                  .text,
              "\"Where did the river flood?\"\ncried the old miller of the river mill by the village bridge.");
    // Whatever the length, a chosen "These" sentence never comes without its antecedent.
    const QString story = QStringLiteral(
        "Our village has a small museum beside the church.\n"
        "These river flood records show the river flood reached the village bridge in every river flood year.\n"
        "River flood water reached the village bridge in the great river flood.\n"
        "The river flood of that year damaged the village bridge and the river banks.\n"
        "My aunt keeps bees in the orchard behind her cottage.\n");
    for (double sentences : {1, 2, 3, 4}) {
        o.budget = {BudgetUnit::Sentences, sentences};
        const ExtractiveSummary s = summarize_extractive(story, o);
        EXPECT_EQ(s.sentences.size(), size_t(sentences));
        if (s.text.contains("These")) EXPECT_TRUE(s.text.contains("museum")) << s.text.toStdString();
    }
}

TEST(ExtractiveSummarizer, TextWithoutSentencesIsAClearError) {
    for (const QString& text : {QString(), QStringLiteral("   \n\n  "), QStringLiteral("*** ... ---")}) {
        try {
            summarize_extractive(text);
            ADD_FAILURE() << "no error for '" << text.toStdString() << "'";
        } catch (const precis::Error& e) {
            EXPECT_NE(std::string(e.what()).find("no sentence"), std::string::npos) << e.what();
        }
    }
}

TEST(ExtractiveSummarizer, AOneSentenceDocumentIsItsOwnSummary) {
    const ExtractiveSummary s = summarize_extractive(QStringLiteral("Only this sentence is here."));
    ASSERT_EQ(s.sentences.size(), 1u);
    EXPECT_EQ(s.text, "Only this sentence is here.");
}

TEST(ExtractiveSummarizer, CjkTextIsSummarizedFromItsOwnSentences) {
    const QString text = QStringLiteral("今天河水上涨了。洪水淹没了老城的街道。居民们被转移到学校。洪水冲毁了老城的桥。我喜欢蓝色的自行车。");
    ExtractiveOptions o;
    o.budget = {BudgetUnit::Sentences, 2};
    const ExtractiveSummary s = summarize_extractive(text, o);
    ASSERT_EQ(s.sentences.size(), 2u);
    for (const ExtractedSentence& e : s.sentences) EXPECT_TRUE(e.text.endsWith(QStringLiteral("。")));
    EXPECT_FALSE(s.text.contains(QStringLiteral("自行车")));
}

TEST(ExtractiveSummarizer, AbortStopsTheRun) {
    ExtractiveOptions o;
    o.should_abort = [] { return true; };
    EXPECT_THROW(summarize_extractive(flood_story(), o), precis::Cancelled);
}

TEST(ExtractiveSummarizer, AutomaticBudgetGrowsWithTheDocumentWithinBounds) {
    EXPECT_EQ(budget_in_words({}, 50), 40);
    EXPECT_EQ(budget_in_words({}, 2500), 150);
    EXPECT_EQ(budget_in_words({}, 1000000), 400);
    EXPECT_EQ(budget_in_words({BudgetUnit::Sentences, 3}, 1000), 0);
}

}  // namespace
