// Folding per-token cross-attention into highlighted sentences: byte spans of UTF-8 text
// map to the right QString ranges, the heaviest sentences come back in text order, and
// PDF passages know their page.
#include "app/batch/source_passages.h"

#include <gtest/gtest.h>

namespace precis::test {
namespace {

// Token spans that split `text` at every space (the space belongs to the following token,
// as byte-level BPE does), in UTF-8 bytes.
std::vector<std::pair<size_t, size_t>> word_spans(const QString& text) {
    const QByteArray utf8 = text.toUtf8();
    std::vector<std::pair<size_t, size_t>> spans;
    size_t start = 0;
    for (qsizetype i = 1; i <= utf8.size(); ++i)
        if (i == utf8.size() || utf8[i] == ' ') {
            spans.emplace_back(start, size_t(i));
            start = size_t(i);
        }
    return spans;
}

TEST(SourcePassages, Utf8OffsetsMapToQStringIndices) {
    const QString text = QStringLiteral("né 😀 x");  // 2-byte, 4-byte (surrogate pair) characters
    const std::vector<int> map = utf8_to_utf16_index(text);
    ASSERT_EQ(map.size(), size_t(text.toUtf8().size()) + 1);
    EXPECT_EQ(map[0], 0);  // n
    EXPECT_EQ(map[1], 1);  // é (first byte)
    EXPECT_EQ(map[2], 1);  // é (second byte)
    EXPECT_EQ(map[3], 2);  // space
    EXPECT_EQ(map[4], 3);  // 😀 starts at UTF-16 index 3
    EXPECT_EQ(map[8], 5);  // space after the surrogate pair
    EXPECT_EQ(map.back(), int(text.size()));
}

TEST(SourcePassages, HeaviestSentencesInTextOrder) {
    const QString text = QStringLiteral("Rivers carry sand. Floods build plains. Dams trap silt. Deltas shrink now.");
    const auto spans = word_spans(text);
    std::vector<float> w(spans.size(), 0.01f);
    // Most weight on "Dams trap silt." then "Rivers carry sand."
    w[6] = w[7] = w[8] = 0.25f;
    w[0] = w[1] = 0.2f;
    const QVector<SourcePassage> p = source_passages(text, {}, w, spans, 2);
    ASSERT_EQ(p.size(), 2);
    EXPECT_EQ(text.mid(p[0].begin, p[0].end - p[0].begin), QStringLiteral("Rivers carry sand."));
    EXPECT_EQ(text.mid(p[1].begin, p[1].end - p[1].begin), QStringLiteral("Dams trap silt."));
    EXPECT_GT(p[1].weight, p[0].weight);
    EXPECT_EQ(p[0].page, -1);
}

TEST(SourcePassages, EvenAttentionHighlightsNothingBelowTheEvenShare) {
    const QString text = QStringLiteral("One two. Three four. Five six.");
    const auto spans = word_spans(text);
    const std::vector<float> w(spans.size(), 1.f / float(spans.size()));
    const QVector<SourcePassage> p = source_passages(text, {}, w, spans, 6);
    for (const SourcePassage& s : p) EXPECT_GE(s.weight, 1.0 / 3 - 1e-6);
}

TEST(SourcePassages, PdfPassagesKnowTheirPage) {
    const QString text = QStringLiteral("Page one text.\n\nPage two has the key point.\n\nPage three ends.");
    const QVector<int> pages = {0, int(text.indexOf("Page two")), int(text.indexOf("Page three"))};
    const auto spans = word_spans(text);
    std::vector<float> w(spans.size(), 0.f);
    for (size_t i = 0; i < spans.size(); ++i)
        if (text.toUtf8().mid(qsizetype(spans[i].first), qsizetype(spans[i].second - spans[i].first)).contains("key")) w[i] = 1.f;
    const QVector<SourcePassage> p = source_passages(text, pages, w, spans, 3);
    ASSERT_EQ(p.size(), 1);
    EXPECT_EQ(p[0].page, 1);
    EXPECT_EQ(page_of_offset(pages, 0), 0);
    EXPECT_EQ(page_of_offset(pages, int(text.size()) - 1), 2);
}

TEST(SourcePassages, NoWeightsNoPassages) {
    EXPECT_TRUE(source_passages(QStringLiteral("Some text."), {}, {}, {}).isEmpty());
}

}  // namespace
}  // namespace precis::test
