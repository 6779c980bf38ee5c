// Where a long document is cut for a section-by-section summary (app/long/section_windows.h):
// the windows tile the text, follow its sections (outline, headings, pages), never cut a
// sentence and never hold more than the model reads; and how a summary's attention flows
// back through the levels (source_tree.h) and finished windows are kept (section_store.h).
#include <gtest/gtest.h>

#include <QRegularExpression>
#include <QStringList>

#include <filesystem>
#include <numeric>

#include "app/long/section_store.h"
#include "app/long/section_windows.h"
#include "app/long/source_tree.h"
#include "app/text/sentence_segmenter.h"
#include "tests/support/fixtures.h"

namespace precis::longdoc {
namespace {

// Words as tokens: additive over pieces that start at whitespace, as BPE counts are.
int words_in(const QString& t) { return int(t.split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts).size()); }

// A paragraph of `sentences` sentences of 12 words each, told apart by `tag`.
QString paragraph(const QString& tag, int sentences) {
    QStringList s;
    for (int i = 0; i < sentences; ++i)
        s << QStringLiteral("The %1 walker saw sentence number %2 near the old mill today.").arg(tag).arg(i);
    return s.join(' ');
}

// Chapters of `paragraphs` paragraphs of 5 sentences (60 words) each, opened by "CHAPTER N."
// (2 words).
QString book(int chapters, int paragraphs) {
    QStringList parts;
    for (int c = 1; c <= chapters; ++c) {
        parts << QStringLiteral("CHAPTER %1.").arg(c);
        for (int p = 0; p < paragraphs; ++p) parts << paragraph(QStringLiteral("c%1p%2").arg(c).arg(p), 5);
    }
    return parts.join(QStringLiteral("\n\n")) + '\n';
}

std::vector<SectionWindow> plan(const QString& text, int max_tokens, const QVector<int>& pages = {},
                                const QVector<OutlineEntry>& outline = {}) {
    return plan_section_windows({text, pages, outline}, max_tokens, words_in);
}

// Every window boundary falls between two sentences, and the windows tile the text.
void expect_tiling_between_sentences(const QString& text, const std::vector<SectionWindow>& windows, int max_tokens) {
    ASSERT_FALSE(windows.empty());
    EXPECT_EQ(windows.front().start, 0);
    EXPECT_EQ(windows.back().end, text.size());
    const text::SegmentedText seg = text::segment_sentences(text);
    int total = 0;
    for (size_t i = 0; i < windows.size(); ++i) {
        if (i > 0) EXPECT_EQ(windows[i].start, windows[i - 1].end);
        EXPECT_LE(windows[i].tokens, max_tokens) << i;
        EXPECT_EQ(windows[i].tokens, words_in(text.mid(windows[i].start, windows[i].end - windows[i].start))) << i;
        total += windows[i].tokens;
        for (const auto& s : seg.sentences) EXPECT_FALSE(s.begin < windows[i].start && windows[i].start < s.end) << i;
    }
    EXPECT_EQ(total, words_in(text));  // every token in exactly one window
}

TEST(SectionWindows, ChaptersThatFillAWindowEachGetTheirOwnNamedByTheirHeading) {
    const QString text = book(4, 8);  // 482 words a chapter
    const auto windows = plan(text, 500);
    expect_tiling_between_sentences(text, windows, 500);
    ASSERT_EQ(windows.size(), 4u);
    for (int c = 0; c < 4; ++c) {
        EXPECT_EQ(windows[size_t(c)].title, QStringLiteral("CHAPTER %1.").arg(c + 1));
        EXPECT_TRUE(text.mid(windows[size_t(c)].start).trimmed().startsWith(QStringLiteral("CHAPTER %1.").arg(c + 1)));
        EXPECT_EQ(windows[size_t(c)].first_page, -1);
    }
}

TEST(SectionWindows, SmallConsecutiveChaptersShareAWindowThatSaysWhichTheyAre) {
    const QString text = book(9, 3);  // 182 words a chapter: three to a 560-token window
    const auto windows = plan(text, 560);
    expect_tiling_between_sentences(text, windows, 560);
    ASSERT_EQ(windows.size(), 3u);
    EXPECT_EQ(windows[0].title, QStringLiteral("CHAPTER 1. - CHAPTER 3."));
    EXPECT_EQ(windows[2].title, QStringLiteral("CHAPTER 7. - CHAPTER 9."));
}

TEST(SectionWindows, AChapterLongerThanAWindowIsCutIntoNearEqualPartsAtParagraphStarts) {
    const QString text = book(1, 14);  // 842 words in one chapter, 250-token windows: 4 parts
    const auto windows = plan(text, 250);
    expect_tiling_between_sentences(text, windows, 250);
    ASSERT_EQ(windows.size(), 4u);
    for (size_t i = 0; i < windows.size(); ++i) {
        EXPECT_EQ(windows[i].title, QStringLiteral("CHAPTER 1. (part %1 of 4)").arg(i + 1));
        EXPECT_GE(windows[i].tokens, 150) << "parts are near-equal, not a full window and a scrap";
        if (i > 0) EXPECT_TRUE(text.mid(windows[i].start, 2) == QStringLiteral("\n\n")) << "cut where a paragraph starts";
    }
}

TEST(SectionWindows, ATitlePageBeforeALongChapterGoesIntoItsFirstPartNotAWindowOfItsOwn) {
    // A title and one line of front matter (9 words), then a chapter of 842 words.
    const QString text = QStringLiteral("WINTRY PEACOCK\n\nFrom the stories of the year, the third.\n\n") + book(1, 14);
    const auto windows = plan(text, 250);
    expect_tiling_between_sentences(text, windows, 250);
    ASSERT_EQ(windows.size(), 4u);
    EXPECT_EQ(windows[0].title, QStringLiteral("WINTRY PEACOCK - CHAPTER 1. (part 1 of 4)"));
    EXPECT_EQ(windows[1].title, QStringLiteral("CHAPTER 1. (part 2 of 4)"));
}

TEST(SectionWindows, AParagraphLongerThanAWindowIsCutAtSentences) {
    const QString text = paragraph(QStringLiteral("long"), 30);  // one paragraph of 300 words
    const auto windows = plan(text, 64);
    expect_tiling_between_sentences(text, windows, 64);
    EXPECT_GE(windows.size(), 5u);
    EXPECT_EQ(windows[0].title, QStringLiteral("Part 1 of %1").arg(windows.size()));
}

TEST(SectionWindows, ASentenceLongerThanAWindowIsCutBetweenWordsAndStillTilesTheText) {
    QStringList words;
    for (int i = 0; i < 500; ++i) words << QStringLiteral("item%1").arg(i);
    const QString text = words.join(' ');  // no full stop anywhere
    const auto windows = plan(text, 100);
    ASSERT_GE(windows.size(), 5u);
    int total = 0;
    for (size_t i = 0; i < windows.size(); ++i) {
        EXPECT_LE(windows[i].tokens, 100);
        if (i > 0) EXPECT_EQ(windows[i].start, windows[i - 1].end);
        if (i > 0) EXPECT_TRUE(text[windows[i].start].isSpace()) << "cut between words";
        total += windows[i].tokens;
    }
    EXPECT_EQ(total, 500);
}

// Six PDF pages of one 72-word paragraph each.
struct Pdf {
    QString text;
    QVector<int> pages;
};
Pdf six_pages() {
    Pdf p;
    for (int i = 0; i < 6; ++i) {
        p.pages << int(p.text.size());
        p.text += paragraph(QStringLiteral("page%1").arg(i), 6) + QStringLiteral("\n\n");
    }
    return p;
}

TEST(SectionWindows, APdfOutlineNamesTheWindowsAndTheirPages) {
    const Pdf pdf = six_pages();
    const QVector<OutlineEntry> outline = {{QStringLiteral("Introduction"), 0, 0, pdf.pages[0]},
                                           {QStringLiteral("Methods"), 0, 2, pdf.pages[2]},
                                           {QStringLiteral("Data"), 1, 3, pdf.pages[3]},
                                           {QStringLiteral("Deep detail"), 2, 4, pdf.pages[4]},
                                           {QStringLiteral("Results"), 0, 5, pdf.pages[5]}};
    const auto windows = plan(pdf.text, 150, pdf.pages, outline);
    expect_tiling_between_sentences(pdf.text, windows, 150);
    ASSERT_EQ(windows.size(), 4u);
    const std::vector<std::tuple<QString, int, int>> expected = {
        {"Introduction", 0, 1}, {"Methods", 2, 2}, {"Data", 3, 4}, {"Results", 5, 5}};
    // A third-level entry ("Deep detail") does not open a section of its own.
    for (size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(windows[i].title, std::get<0>(expected[i]));
        EXPECT_EQ(windows[i].first_page, std::get<1>(expected[i]));
        EXPECT_EQ(windows[i].last_page, std::get<2>(expected[i]));
    }
}

TEST(SectionWindows, APdfWithoutOutlineOrHeadingsIsCutAtPagesNamedByThem) {
    const Pdf pdf = six_pages();
    const auto windows = plan(pdf.text, 150, pdf.pages);
    expect_tiling_between_sentences(pdf.text, windows, 150);
    ASSERT_EQ(windows.size(), 3u);
    EXPECT_EQ(windows[0].title, QStringLiteral("Pages 1-2"));
    EXPECT_EQ(windows[2].title, QStringLiteral("Pages 5-6"));
}

TEST(SectionWindows, HeadingsOpenSectionsAndFootnotesVerseAndNumbersInProseDoNot) {
    // A book's shape: numbered section headings, footnotes in brackets, a verse line in
    // capitals running on with a comma, a line opening with a quantity and one with "I".
    const QString para = paragraph(QStringLiteral("x"), 8);  // 96 words
    const QString text = QStringList{QStringLiteral("\u00A7 1. PARENTAGE AND BOYHOOD."), para,
                                     QStringLiteral("[Footnote 1: See pp. 198-206.]"), para,
                                     QStringLiteral("JOSIAH FRANKLIN,"), para,
                                     QStringLiteral("6 lbs. raisins."), para,
                                     QStringLiteral("I used also some."), para,
                                     QStringLiteral("\u00A7 2. SEEKS HIS FORTUNE."), para, para}
                             .join(QStringLiteral("\n\n"));
    const auto windows = plan(text, 500);
    expect_tiling_between_sentences(text, windows, 500);
    ASSERT_EQ(windows.size(), 2u);
    EXPECT_EQ(windows[0].title, QStringLiteral("\u00A7 1. PARENTAGE AND BOYHOOD."));
    EXPECT_EQ(windows[1].title, QStringLiteral("\u00A7 2. SEEKS HIS FORTUNE."));
}

TEST(SectionWindows, ATextWithoutSentencesHasNoWindows) {
    EXPECT_TRUE(plan(QStringLiteral("  \n\n ... \n"), 100).empty());
}

TEST(SectionWindows, ConsecutiveSummariesAreGroupedUpToTheLimit) {
    using G = std::vector<std::pair<int, int>>;
    EXPECT_EQ(group_consecutive({40, 40, 40, 40, 40}, 100), (G{{0, 2}, {2, 4}, {4, 5}}));
    EXPECT_EQ(group_consecutive({150, 10, 10}, 100), (G{{0, 1}, {1, 3}}));  // a long one alone
    EXPECT_TRUE(group_consecutive({}, 100).empty());
}

TEST(SourceTree, TheFinalSummarysAttentionFlowsThroughTheLevelsToTheWindowsItCameFrom) {
    // Four windows of two tokens each; one combining level groups {0,1} and {2,3}.
    SourceTree tree(4);
    for (int w = 0; w < 4; ++w) tree.set_window_sources(w, {0.5f, 0.5f}, {{0, 3}, {3, 6}}, size_t(100 * w));
    const std::vector<std::string> windows_summaries = {"aaaa", "bbbb", "cccc", "dddd"};
    tree.begin_level({{0, 2}, {2, 4}});
    // Group 0 read "aaaa\n\nbbbb" and looked only at "bbbb"; group 1 evenly at both.
    tree.set_group_sources(0, {0.f, 1.f}, {{0, 4}, {6, 10}}, windows_summaries, "\n\n");
    tree.set_group_sources(1, {0.5f, 0.5f}, {{0, 4}, {6, 10}}, windows_summaries, "\n\n");
    // The final pass read "g0\n\ng1" and looked three times as much at g0's summary.
    tree.finish({0.75f, 0.25f}, {{0, 2}, {4, 6}}, {"g0", "g1"}, "\n\n");
    const auto& w = tree.document_weights();
    const auto& spans = tree.document_spans();
    ASSERT_EQ(w.size(), 8u);
    EXPECT_FLOAT_EQ(w[0] + w[1], 0.f);      // window 0 got nothing
    EXPECT_FLOAT_EQ(w[2] + w[3], 0.75f);    // window 1 all of group 0's share
    EXPECT_FLOAT_EQ(w[4] + w[5], 0.125f);
    EXPECT_FLOAT_EQ(w[6] + w[7], 0.125f);
    EXPECT_EQ(spans[2], (std::pair<size_t, size_t>(100, 103)));  // in the document's bytes
    EXPECT_FLOAT_EQ(std::accumulate(w.begin(), w.end(), 0.f), 1.f);
}

TEST(SourceTree, AnItemLeftOutOfAnInputGetsNoShare) {
    // Item 1 was empty (its window could not be summarized): the input was "aa\n\ncc".
    const auto share = item_shares({1.f, 3.f}, {{0, 2}, {4, 6}}, {"aa", "", "cc"}, 0, 3, "\n\n");
    EXPECT_EQ(share, (std::vector<float>{0.25f, 0.f, 0.75f}));
}

TEST(SectionStore, AKeptSummaryIsFoundByItsKeyAndNothingElse) {
    const auto dir = test::scratch_dir("section-store");
    const std::string key = section_key("model", "beams 4", "the window's text");
    {
        FileSectionStore store(dir);
        EXPECT_FALSE(store.find(key));
        store.keep(key, "A summary.");
    }
    FileSectionStore again(dir);
    EXPECT_EQ(again.find(key).value_or(""), "A summary.");
    EXPECT_FALSE(again.find(section_key("model", "beams 2", "the window's text")));
    EXPECT_NE(section_key("ab", "c", "d"), section_key("a", "bc", "d")) << "parts are kept apart";
}

}  // namespace
}  // namespace precis::longdoc
