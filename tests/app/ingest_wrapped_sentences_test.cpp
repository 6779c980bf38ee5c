// Sentences that a PDF wraps across lines stay whole from the page to the extractive summary
// (issue 42): lines of varied widths, one much shorter than the others, one ending in a
// comma (a PDF written by hand, tests/support/simple_pdf.h); and body text on a page whose
// lines are mostly smaller code, as in the shared-mime-info specification, where the line
// spacing measured on the small lines made every break between two body lines look like a
// paragraph gap (a PDF drawn with QPdfWriter, two font sizes).
#include <gtest/gtest.h>

#include <QGuiApplication>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QTemporaryDir>

#include "app/extractive/extractive_summarizer.h"
#include "app/ingest/ingest.h"
#include "app/text/sentence_segmenter.h"
#include "tests/support/simple_pdf.h"

using namespace precis;

namespace {

// Ends as a sentence does: . ! ? or a closing quote or bracket after one.
bool ends_a_sentence(const QString& s) {
    static const QString closers = QStringLiteral(")]\"'\u201D\u2019");
    qsizetype i = s.size() - 1;
    while (i >= 0 && closers.contains(s[i])) --i;
    return i >= 0 && QStringLiteral(".!?").contains(s[i]);
}

QStringList sentences_of(const QString& text) {
    const text::SegmentedText s = text::segment_sentences(text);
    QStringList out;
    for (const text::TextSentence& t : s.sentences) out << text::sentence_text(s, t);
    return out;
}

// The wrapped sentences of the hand-written PDF, whole.
const QStringList kWrapped = {
    "The harbour authority published its annual report on the state of the northern quays in the spring.",
    "Repairs to the old sea wall, which had been delayed for several years by disputes over funding, began "
    "in March and are expected to finish before the autumn storms.",
    "The list of vessels is sorted by tonnage, the list of owners is sorted by name, and the list of berths "
    "is sorted by the depth of water at low tide.",
    "Fishing crews reported that the new lights at the entrance made night landings far safer than before.",
    "A second survey of the seabed found that silt had raised the channel floor by almost a metre since the "
    "last dredging.",
    "The council agreed to pay for dredging the channel again next year.",
};

std::vector<std::string> wrapped_page() {
    return {
        "The harbour authority published its annual report on the state of the northern",
        "quays in the spring. Repairs to the old sea wall, which had been delayed for",
        "several years by disputes over funding,",  // ends in a comma, much shorter
        "began in March and are expected to finish before the autumn storms. The list",
        "of vessels is sorted by tonnage, the list of",  // much shorter, goes on
        "owners is sorted by name, and the list of berths is sorted by the depth of water at",
        "low tide. Fishing crews reported that the new lights at the entrance made night",
        "landings far safer than before. A second survey of the seabed found that",
        "silt had raised the channel floor by almost a metre since the last dredging.",
        "The council agreed to pay for dredging the channel again next year.",
    };
}

}  // namespace

TEST(IngestWrappedSentences, SegmenterGivesPdfSentencesWrappedAtVariedWidthsWhole) {
    QTemporaryDir dir;
    const QString file = dir.filePath("harbour.pdf");
    test::write_simple_pdf(file.toStdString(), wrapped_page());
    IngestOptions in_process;
    in_process.pdf_in_process = true;
    const IngestedDocument doc = ingest_file(file, in_process);
    EXPECT_EQ(sentences_of(doc.text), kWrapped) << doc.text.toStdString();
}

TEST(IngestWrappedSentences, SegmenterJoinsTheSameLinesAsPlainText) {
    QString text;
    for (const std::string& line : wrapped_page()) text += QString::fromStdString(line) + u'\n';
    EXPECT_EQ(sentences_of(text), kWrapped);
}

TEST(IngestWrappedSentences, ExtractiveSummaryOfAWrappedPdfHoldsWholeSentences) {
    QTemporaryDir dir;
    const QString file = dir.filePath("harbour.pdf");
    std::vector<std::string> lines = wrapped_page();
    lines.push_back("");
    for (const std::string& line : wrapped_page()) lines.push_back(line);  // a second paragraph, for a choice
    test::write_simple_pdf(file.toStdString(), lines);
    IngestOptions in_process;
    in_process.pdf_in_process = true;
    const IngestedDocument doc = ingest_file(file, in_process);
    extractive::ExtractiveOptions options;
    options.budget = {extractive::BudgetUnit::Sentences, 4};
    const extractive::ExtractiveSummary summary = extractive::summarize_extractive(doc.text, options);
    ASSERT_FALSE(summary.sentences.empty());
    for (const extractive::ExtractedSentence& s : summary.sentences) {
        EXPECT_TRUE(ends_a_sentence(s.text)) << s.text.toStdString();
        EXPECT_TRUE(kWrapped.contains(s.text)) << s.text.toStdString();
    }
}

TEST(IngestWrappedSentences, BodyLinesAmongSmallerCodeLinesStayOneParagraph) {
    // As on page 11 of the shared-mime-info specification: lines of body text on a page that
    // holds far more lines of small code, spaced wider than their size (7 pt type, 13.5 pt
    // apart; the body: 10 pt type, 15 pt apart).
    QTemporaryDir dir;
    const QString file = dir.filePath("spec.pdf");
    {
        QPdfWriter writer(file);
        writer.setPageSize(QPageSize(QPageSize::A4));
        writer.setPageMargins(QMarginsF(0, 0, 0, 0));
        writer.setResolution(72);
        QPainter painter(&writer);
        QFont body(QStringLiteral("DejaVu Sans"));
        body.setPointSizeF(10);
        QFont code(QStringLiteral("DejaVu Sans Mono"));
        code.setPointSizeF(7);
        auto draw = [&](const QFont& font, double y, const QString& line) {
            painter.setFont(font);
            painter.drawText(QPointF(60, y), line);
        };
        draw(body, 100,
             QStringLiteral("The cache files contain the same information as the globs, magic, subclasses, aliases"));
        draw(body, 115, QStringLiteral("and namespaces files, in a binary format that can be mapped into memory."));
        double y = 145;
        for (int i = 0; i < 24; ++i, y += 13.5) draw(code, y, QStringLiteral("CARD32 OFFSET_%1").arg(i));
        y += 20;
        draw(body, y,
             QStringLiteral("Lists in the file are sorted, to enable binary searching. The list of aliases is"));
        draw(body, y + 15, QStringLiteral("sorted by alias, the list of"));
        draw(body, y + 30, QStringLiteral("literal globs is sorted by the literal."));
    }
    IngestOptions in_process;
    in_process.pdf_in_process = true;
    const IngestedDocument doc = ingest_file(file, in_process);
    const QStringList sentences = sentences_of(doc.text);
    EXPECT_TRUE(sentences.contains("The cache files contain the same information as the globs, magic, subclasses, "
                                   "aliases and namespaces files, in a binary format that can be mapped into memory."))
        << doc.text.toStdString();
    EXPECT_TRUE(sentences.contains("The list of aliases is sorted by alias, the list of literal globs is sorted by the "
                                   "literal."))
        << doc.text.toStdString();
}

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    ::testing::InitGoogleTest(&argc, argv);
    QGuiApplication app(argc, argv);  // QPdfWriter and QPainter need fonts
    return RUN_ALL_TESTS();
}
