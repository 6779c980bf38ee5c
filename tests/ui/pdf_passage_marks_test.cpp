// Marking a source passage on a PDF page: the passage's words found in order among the
// page's word boxes, one rectangle per printed line, across hyphenation, skipped headers
// and page breaks.
#include <gtest/gtest.h>

#include <QGuiApplication>
#include <QPainter>
#include <QPdfWriter>
#include <QTemporaryDir>

#include <poppler-qt6.h>

#include "ui/pdf_passage_marks.h"

using precis::ui::mark_passage;
using precis::ui::PageWord;
using precis::ui::passage_words;

namespace {

// Words laid out left to right, `per_line` to a line, 10 points high, 12 points apart.
QVector<PageWord> page_of(const QStringList& words, int per_line) {
    QVector<PageWord> page;
    for (int i = 0; i < words.size(); ++i)
        page.push_back({words[i], QRectF(50 + 40 * (i % per_line), 100 + 12 * (i / per_line), 36, 10)});
    return page;
}

}  // namespace

TEST(PassageWords, LowercasesAndDropsPunctuationOnlyWords) {
    EXPECT_EQ(passage_words(QStringLiteral("The river's  bend — slowly, (it) moves.")),
              (QStringList{"the", "rivers", "bend", "slowly", "it", "moves"}));
}

TEST(PassageWords, LigatureGlyphsReadAsTheirLetters) {
    EXPECT_EQ(passage_words(QStringLiteral("\uFB02ood \uFB01nds e\uFB03cient")),
              (QStringList{"flood", "finds", "efficient"}));
}

TEST(MarkPassage, OneRectanglePerPrintedLine) {
    const QStringList text = QStringLiteral("a b c the river moves its bed a little every year and no one sees it")
                                 .split(' ');
    const auto marks = mark_passage(page_of(text, 5), passage_words("the river moves its bed a little every year"), 0);
    EXPECT_EQ(marks.matched, 9);
    ASSERT_EQ(marks.lines.size(), 3);  // words 3-4, 5-9, 10-11
    EXPECT_DOUBLE_EQ(marks.lines[0].left(), 50 + 40 * 3);
    EXPECT_DOUBLE_EQ(marks.lines[0].right(), 50 + 40 * 4 + 36);
    EXPECT_DOUBLE_EQ(marks.lines[1].width(), 4 * 40 + 36);
    EXPECT_DOUBLE_EQ(marks.lines[2].top(), 100 + 24);
    EXPECT_DOUBLE_EQ(marks.lines[2].right(), 50 + 40 * 1 + 36);
}

TEST(MarkPassage, StartsWhereTheOpeningWordsAgreeNotAtTheFirstCommonWord) {
    const QStringList text = QStringLiteral("the sea is old but the river moves its bed").split(' ');
    const auto marks = mark_passage(page_of(text, 20), passage_words("The river moves its bed."), 0);
    EXPECT_EQ(marks.matched, 5);
    ASSERT_EQ(marks.lines.size(), 1);
    EXPECT_DOUBLE_EQ(marks.lines[0].left(), 50 + 40 * 5);
}

// Issue 31, item 10: a title line repeating a sentence's opening words took the highlight.
TEST(MarkPassage, ATitleRepeatingTheOpeningWordsDoesNotTakeTheHighlight) {
    // Line 1 is the title; the sentence starts the second line.
    const QStringList text = QStringLiteral("rivers shape their valleys x x x x "
                                            "rivers shape their valleys slowly grain by grain")
                                 .split(' ');
    const auto marks = mark_passage(page_of(text, 8), passage_words("Rivers shape their valleys slowly, grain by grain."), 0);
    EXPECT_EQ(marks.matched, 8);
    ASSERT_EQ(marks.lines.size(), 1);
    EXPECT_DOUBLE_EQ(marks.lines[0].top(), 100 + 12);  // the second line, not the title
}

TEST(MarkPassage, ASentenceIdenticalToTheTitleIsFoundByTheWordsBeforeIt) {
    const QStringList text = QStringLiteral("the quiet work of rivers "
                                            "we end where we began the quiet work of rivers")
                                 .split(' ');
    const QStringList words = passage_words("The quiet work of rivers.");
    const auto at_title = mark_passage(page_of(text, 5), words, 0);  // no context: the first place
    ASSERT_EQ(at_title.lines.size(), 1);
    EXPECT_DOUBLE_EQ(at_title.lines[0].top(), 100);
    const auto own = mark_passage(page_of(text, 5), words, 0, passage_words("where we began"));
    EXPECT_EQ(own.matched, 5);
    ASSERT_FALSE(own.lines.isEmpty());
    EXPECT_GT(own.lines[0].top(), 100);  // on the sentence's own lines
}

TEST(MarkPassage, FindsWordsIngestionJoinedAcrossAHyphenatedLineBreak) {
    const QStringList text = QStringLiteral("water carries sedi- ment down to the delta").split(' ');
    const auto marks = mark_passage(page_of(text, 3), passage_words("water carries sediment down to the delta"), 0);
    EXPECT_EQ(marks.matched, 7);
    EXPECT_EQ(marks.lines.size(), 3);
}

TEST(MarkPassage, SkipsAStrayPageWordInsideThePassage) {
    const QStringList text = QStringLiteral("floods rebuild the 3 plain every spring").split(' ');
    const auto marks = mark_passage(page_of(text, 20), passage_words("floods rebuild the plain every spring"), 0);
    EXPECT_EQ(marks.matched, 6);
}

TEST(MarkPassage, StopsWhereThePageAndPassageDisagree) {
    const QStringList text = QStringLiteral("floods rebuild the plain and then something else entirely").split(' ');
    const auto marks = mark_passage(page_of(text, 20), passage_words("floods rebuild the plain every spring"), 0);
    EXPECT_EQ(marks.matched, 4);
}

TEST(MarkPassage, AbsentPassageMarksNothing) {
    const auto marks = mark_passage(page_of(QStringLiteral("nothing to see here at all").split(' '), 20),
                                    passage_words("the river moves its bed"), 0);
    EXPECT_EQ(marks.matched, 0);
    EXPECT_TRUE(marks.lines.isEmpty());
}

TEST(MarkPassage, RunsOffTheFootOfThePageAndContinuesAfterTheNextHeader) {
    const QStringList words = passage_words("the current slows at the bend and drops its load of sand");
    const auto first = mark_passage(page_of(QStringLiteral("intro words here the current slows").split(' '), 20), words, 0);
    EXPECT_EQ(first.matched, 3);
    const auto second = mark_passage(
        page_of(QStringLiteral("Rivers 12 at the bend and drops its load of sand . New paragraph").split(' '), 20), words,
        first.matched);
    EXPECT_EQ(first.matched + second.matched, words.size());
    ASSERT_EQ(second.lines.size(), 1);
    EXPECT_DOUBLE_EQ(second.lines[0].left(), 50 + 40 * 2);  // after "Rivers 12"
}

TEST(MarkPassage, ContinuationMustStartNearTheTopOfThePage) {
    QStringList text;
    for (int i = 0; i < 60; ++i) text << QStringLiteral("filler");
    text << QStringLiteral("load of sand");
    const auto marks = mark_passage(page_of(text, 10), passage_words("drops its load of sand"), 2);
    EXPECT_EQ(marks.matched, 0);
}

TEST(MarkPassage, MarksEveryLineOfAWrappedParagraphInARealPdf) {
    int argc = 1;
    char name[] = "pdf_passage_marks_test";
    char* argv[] = {name, nullptr};
    QGuiApplication app(argc, argv);
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString file = dir.filePath("wrapped.pdf");
    const QString paragraph = QStringLiteral(
        "Opening remarks come first. A river does its quiet work over centuries, carrying sand from the "
        "hills to the sea and building the plains on which whole cities later stand, without anyone "
        "noticing the change from one year to the next. Closing remarks come last.");
    {
        QPdfWriter writer(file);
        writer.setPageSize(QPageSize(QPageSize::A4));
        writer.setResolution(72);
        QPainter painter(&writer);
        painter.setFont(QFont(QStringLiteral("DejaVu Serif"), 12));
        painter.drawText(QRectF(72, 72, 300, 400), Qt::TextWordWrap, paragraph);
    }
    std::unique_ptr<Poppler::Document> doc = Poppler::Document::load(file);
    ASSERT_TRUE(doc);
    std::unique_ptr<Poppler::Page> page = doc->page(0);
    QVector<PageWord> words;
    for (const auto& box : page->textList()) words.push_back({box->text(), box->boundingBox()});
    ASSERT_GT(words.size(), 40);

    const QStringList passage = passage_words(QStringLiteral(
        "A river does its quiet work over centuries, carrying sand from the hills to the sea and building the "
        "plains on which whole cities later stand, without anyone noticing the change from one year to the next."));
    const auto marks = mark_passage(words, passage, 0);
    EXPECT_EQ(marks.matched, passage.size());
    // 300 points of 12-point serif hold roughly 8-10 words: the sentence spans several lines.
    ASSERT_GE(marks.lines.size(), 3);
    for (int i = 1; i < marks.lines.size(); ++i) EXPECT_GT(marks.lines[i].top(), marks.lines[i - 1].top());
    for (const QRectF& line : marks.lines) {
        EXPECT_GE(line.left(), 71.0);
        EXPECT_LE(line.right(), 72.0 + 300.0 + 1.0);
    }
}
