// A document longer than the model reads is summarized whole (app/long/long_summarizer.h):
// section by section with its windows summarized together and the section summaries
// combined, level by level while they are too long; an LSG model reads up to four times its
// trained length in one pass; --long truncate keeps the old behaviour; a cancelled run
// continues from its finished sections without making any twice; and the summary's
// attention reaches the document's own sentences through every level.
#include <gtest/gtest.h>

#include <QStringList>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <numeric>

#include "app/batch/source_passages.h"
#include "app/long/long_summarizer.h"
#include "app/long/section_store.h"
#include "engine/backend/backend.h"
#include "engine/core/error.h"
#include "engine/model/model.h"
#include "engine/pipeline/input_text.h"
#include "tests/support/fixture_case.h"
#include "tests/support/fixtures.h"

namespace precis::longdoc {
namespace {

// Chapters of a few paragraphs of varied sentences (the test model reads 128 tokens).
QString chapters(int count, int paragraphs) {
    static const char* const kSentences[] = {
        "The river rose in the night and the mill stood silent.",
        "Martha counted the coins twice before she spoke to the miller.",
        "No one in the village had seen such a winter since the old king died.",
        "A letter came from the city asking for the rent of three years.",
        "The children watched the road for the doctor's cart until dusk.",
    };
    QStringList parts;
    int k = 0;
    for (int c = 1; c <= count; ++c) {
        parts << QStringLiteral("CHAPTER %1.").arg(c);
        for (int p = 0; p < paragraphs; ++p) {
            QStringList s{QStringLiteral("Day %1 of the story began.").arg(c * 100 + p)};  // no two windows alike
            for (int i = 0; i < 3; ++i) s << QString::fromLatin1(kSentences[k++ % 5]);
            parts << s.join(' ');
        }
    }
    return parts.join(QStringLiteral("\n\n")) + '\n';
}

class LongSummarizer : public ::testing::Test {
protected:
    void SetUp() override { summarizer_ = make(false); }

    // The test model (full attention, 128 positions), or converted to LSG in memory and
    // extended four times (512 positions) as --long auto loads it.
    std::unique_ptr<Summarizer> make(bool lsg) {
        LoadOptions lo;
        lo.tokenizer_dir = test::fixtures_dir() / "tokenizer/bart";
        if (lsg) {
            lo.convert_to_lsg = true;
            lo.lsg.block_size = 16;
            lo.lsg.sparse_block_size = 16;
            lo.lsg_extension_factor = kLsgExtension;
        }
        auto model = Model::load(test::FixtureCase::load("bart-tiny-realvocab").model_dir, lo);
        auto s = std::make_unique<Summarizer>(model, make_cpu_backend());
        options_ = s->default_options();
        options_.generation.max_new_tokens = 12;
        options_.generation.num_beams = 2;
        return s;
    }

    LongSummary run(const QString& text, LongOptions long_options = {}, const LongProgress& progress = {},
                    const RunCallbacks& callbacks = {}, const Summarizer* s = nullptr) {
        return summarize_long(s ? *s : *summarizer_, {text, pages_, outline_}, options_, long_options, progress, callbacks);
    }

    int tokens(const QString& text) const {
        return int(summarizer_->model().tokenizer()->encode(text.toStdString(), true).size());
    }

    std::unique_ptr<Summarizer> summarizer_;
    SummarizeOptions options_;
    QVector<int> pages_;
    QVector<OutlineEntry> outline_;
};

TEST_F(LongSummarizer, ADocumentThatFitsIsReadWholeInOnePass) {
    const QString text = chapters(1, 1);
    const LongSummary s = run(text);
    EXPECT_EQ(s.reading, LongReading::Whole);
    EXPECT_TRUE(s.sections.isEmpty());
    EXPECT_EQ(s.summary.ids, summarizer_->summarize(text.toStdString(), options_).ids);
}

TEST_F(LongSummarizer, ALongDocumentIsSummarizedSectionBySectionThenCombined) {
    const QString text = chapters(6, 3);
    ASSERT_GT(tokens(text), 4 * 128);
    const LongSummary s = run(text);
    EXPECT_EQ(s.reading, LongReading::Sections);
    ASSERT_GE(s.sections.size(), 6);
    EXPECT_EQ(s.summary.input_tokens, tokens(text));
    EXPECT_EQ(s.summary.tokens_read, s.summary.input_tokens);
    EXPECT_FALSE(s.summary.truncated);
    int covered = 0;
    for (qsizetype i = 0; i < s.sections.size(); ++i) {
        const OutlineSection& o = s.sections[i];
        EXPECT_FALSE(o.summary.isEmpty()) << i;
        EXPECT_LE(o.tokens + 2, 128) << "every window is read whole";
        if (i > 0) EXPECT_EQ(o.start, s.sections[i - 1].end);
        covered += o.end - o.start;
        // Each section's summary is what its window gets alone.
        const std::string window = text.mid(o.start, o.end - o.start).toStdString();
        EXPECT_EQ(o.summary.toStdString(), summarizer_->summarize(window, options_).text) << i;
    }
    EXPECT_EQ(covered, text.size());
    EXPECT_TRUE(s.sections[0].title.startsWith(QStringLiteral("CHAPTER 1.")));
    EXPECT_GE(s.levels, 1);
    EXPECT_FALSE(s.summary.text.empty());
}

TEST_F(LongSummarizer, WindowsHandedOverAFewAtATimeGiveTheSameSummaries) {
    // A 10-million-word document's windows are tokenized and handed to the engine a few
    // hundred at a time; here three at a time, so the windows span several hand-overs.
    const QString text = chapters(6, 3);
    const LongSummary all = run(text);
    LongOptions few;
    few.windows_at_once = 3;
    std::vector<int> progress;
    LongProgress p;
    p.sections = [&](int done, int total) {
        EXPECT_EQ(total, int(all.sections.size()));
        progress.push_back(done);
    };
    const LongSummary s = run(text, few, p);
    ASSERT_GT(int(all.sections.size()), 2 * few.windows_at_once);
    ASSERT_EQ(s.sections.size(), all.sections.size());
    for (qsizetype i = 0; i < s.sections.size(); ++i) EXPECT_EQ(s.sections[i].summary, all.sections[i].summary) << i;
    EXPECT_EQ(s.summary.ids, all.summary.ids);
    ASSERT_FALSE(progress.empty());
    EXPECT_TRUE(std::is_sorted(progress.begin(), progress.end()));
    EXPECT_EQ(progress.back(), int(all.sections.size()));
}

TEST_F(LongSummarizer, SectionSummariesTooLongToReadTogetherAreCombinedInMoreThanOneLevel) {
    options_.generation.max_new_tokens = 30;  // 30-token summaries: four fill a 128-token window
    const QString text = chapters(12, 3);
    const LongSummary s = run(text);
    ASSERT_GE(s.sections.size(), 8);
    EXPECT_GE(s.levels, 2) << "a merge level before the final pass";
}

TEST_F(LongSummarizer, TruncateReadsTheFirstTokensAndSaysSo) {
    const QString text = chapters(6, 3);
    LongOptions o;
    o.mode = LongMode::Truncate;
    const LongSummary s = run(text, o);
    EXPECT_EQ(s.reading, LongReading::Truncated);
    EXPECT_TRUE(s.summary.truncated);
    EXPECT_EQ(s.summary.tokens_read, 128);
    EXPECT_TRUE(s.sections.isEmpty());
}

TEST_F(LongSummarizer, AnLsgModelReadsUpToFourTimesItsTrainedLengthInOnePass) {
    const auto lsg = make(true);
    ASSERT_EQ(lsg->model().trained_input_tokens(), 128);
    ASSERT_EQ(lsg->model().max_input_tokens(), 512);
    const QString text = chapters(3, 2);
    const int n = tokens(text);
    ASSERT_GT(n, 128);
    ASSERT_LE(n, 512);
    LongOptions o;
    o.mode = LongMode::Extend;
    const LongSummary s = run(text, o, {}, {}, lsg.get());
    EXPECT_EQ(s.reading, LongReading::Extended);
    EXPECT_EQ(s.summary.tokens_read, n);
    EXPECT_TRUE(s.sections.isEmpty());
}

TEST_F(LongSummarizer, ExtendRefusesADocumentPastWhatTheExtendedModelReadsAndAutoGoesInSections) {
    const auto lsg = make(true);
    const QString text = chapters(14, 3);
    ASSERT_GT(tokens(text), 512);
    LongOptions o;
    o.mode = LongMode::Extend;
    try {
        run(text, o, {}, {}, lsg.get());
        FAIL() << "extend read a document longer than the extended model";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("sections"), std::string::npos) << e.what();
    }
    o.mode = LongMode::Auto;
    const LongSummary s = run(text, o, {}, {}, lsg.get());
    EXPECT_EQ(s.reading, LongReading::Sections);
    for (const OutlineSection& section : s.sections) {
        EXPECT_LE(section.tokens + 2, 512) << "each window itself up to 4x";
        EXPECT_GT(section.tokens, 128) << "windows use the extended length";
    }
}

TEST_F(LongSummarizer, ACancelledRunContinuesFromItsFinishedSectionsAndMakesNoneTwice) {
    const QString text = chapters(8, 3);
    const auto dir = test::scratch_dir("long-continue");
    const LongSummary whole = run(text);  // no store: the reference
    FileSectionStore store(dir / "sections");
    LongOptions o;
    o.store = &store;
    o.batch_size = 1;  // one window at a time, so the cancel lands between sections
    std::atomic<int> finished{0};
    LongProgress progress;
    progress.sections = [&](int done, int) { finished = done; };
    RunCallbacks cb;
    cb.should_abort = [&] { return finished >= 3; };
    EXPECT_THROW(run(text, o, progress, cb), Cancelled);
    const int kept = finished;
    ASSERT_GE(kept, 3);
    ASSERT_LT(kept, whole.sections.size());
    const auto files = std::distance(std::filesystem::directory_iterator(dir / "sections"), {});
    EXPECT_EQ(files, kept);

    int made_again = -1;
    progress.sections = [&](int done, int) {
        if (made_again < 0) made_again = done;  // the first report counts the kept ones
    };
    const LongSummary continued = run(text, o, progress);
    EXPECT_EQ(made_again, kept);
    EXPECT_EQ(continued.kept_sections, kept);
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir / "sections"), {}), whole.sections.size());
    EXPECT_EQ(continued.sections, whole.sections);
    EXPECT_EQ(continued.summary.text, whole.summary.text);
}

TEST_F(LongSummarizer, TheSummarysSourcePassagesAreTheDocumentsOwnSentencesThroughEveryLevel) {
    options_.source_attention = true;
    const QString text = chapters(6, 3);
    const LongSummary s = run(text);
    ASSERT_EQ(s.reading, LongReading::Sections);
    const auto& w = s.summary.source_weights;
    ASSERT_FALSE(w.empty());
    ASSERT_EQ(w.size(), s.summary.source_spans.size());
    EXPECT_NEAR(std::accumulate(w.begin(), w.end(), 0.0), 1.0, 1e-4);
    const size_t bytes = text.toUtf8().size();
    for (const auto& [b, e] : s.summary.source_spans) EXPECT_LE(e, bytes);
    const QVector<SourcePassage> passages = source_passages(text, {}, w, s.summary.source_spans);
    ASSERT_FALSE(passages.isEmpty());
    for (const SourcePassage& p : passages) {
        const QString sentence = text.mid(p.begin, p.end - p.begin);
        EXPECT_TRUE(sentence.endsWith('.')) << sentence.toStdString();  // whole sentences of the document
    }
}

TEST_F(LongSummarizer, APdfsOutlineGivesTheSectionsTheirPagesAndThePassagesTheirPages) {
    // Six pages; the outline opens parts on pages 1, 3 and 5.
    QString text;
    for (int p = 0; p < 6; ++p) {
        pages_ << int(text.size());
        text += chapters(1, 3).mid(12) + QStringLiteral("\n\n");  // a page of prose, without the heading
    }
    outline_ = {{QStringLiteral("Opening"), 0, 0, pages_[0]},
                {QStringLiteral("Middle"), 0, 2, pages_[2]},
                {QStringLiteral("End"), 0, 4, pages_[4]}};
    options_.source_attention = true;
    const LongSummary s = run(text);
    ASSERT_EQ(s.reading, LongReading::Sections);
    ASSERT_GE(s.sections.size(), 3);
    QStringList titles;
    for (const OutlineSection& o : s.sections) {
        titles << o.title;
        EXPECT_GE(o.first_page, 0);
        EXPECT_LE(o.first_page, o.last_page);
        if (o.title.startsWith(QStringLiteral("Middle"))) {
            EXPECT_GE(o.first_page, 2);
            EXPECT_LE(o.last_page, 3);
        }
    }
    EXPECT_TRUE(titles.first().startsWith(QStringLiteral("Opening"))) << titles.join('|').toStdString();
    EXPECT_TRUE(titles.last().startsWith(QStringLiteral("End"))) << titles.join('|').toStdString();
    // The final summary's passages, through the combining pass, land on the PDF's pages.
    const QVector<SourcePassage> passages = source_passages(text, pages_, s.summary.source_weights, s.summary.source_spans);
    ASSERT_FALSE(passages.isEmpty());
    for (const SourcePassage& p : passages) {
        EXPECT_EQ(p.page, page_of_offset(pages_, p.begin));
        EXPECT_GE(p.page, 0);
    }
}

TEST_F(LongSummarizer, AnEmptyDocumentIsAnError) {
    EXPECT_THROW(run(QStringLiteral("  \n ")), Error);
}

}  // namespace
}  // namespace precis::longdoc
