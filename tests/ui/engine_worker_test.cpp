// The engine worker on its own thread, driven the way the main window drives it:
// summaries are stored with their source passages, Cancel stops a run and stores nothing,
// attention capture and source tracing return data, bad input fails with one sentence.
#include <QSignalSpy>

#include <cstdlib>

#include "app/ingest/ingest.h"
#include "app/library/library.h"
#include "app/worker/engine_thread.h"
#include "app/worker/model_cache.h"
#include "tests/ui/ui_test_support.h"

namespace precis::test {
namespace {

class EngineWorkerTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (!fixture_model_available()) GTEST_SKIP() << "fixture test model not found";
        dir_ = scratch_dir("engine-worker");
        library_path_ = QString::fromStdString((dir_ / "library.sqlite").string());
        library_ = std::make_unique<Library>(library_path_);
        engine_ = std::make_unique<EngineThread>(library_path_, std::make_shared<ModelCache>());
    }

    qint64 open(const std::string& text, const std::string& name = "doc.txt") {
        const auto path = write_text_file(dir_ / name, text);
        QSignalSpy opened(engine_->worker(), &EngineWorker::document_opened);
        engine_->open_document(QString::fromStdString(path.string()));
        EXPECT_TRUE(wait_until([&] { return opened.count() == 1; }));
        return opened.isEmpty() ? 0 : opened.first().first().value<OpenedDocument>().document_id;
    }

    std::filesystem::path dir_;
    QString library_path_;
    std::unique_ptr<Library> library_;
    std::unique_ptr<EngineThread> engine_;
};

TEST_F(EngineWorkerTest, SummarizeStoresSummaryWithPassagesAndStreams) {
    const qint64 doc = open(river_paragraphs());
    ASSERT_GT(doc, 0);
    QSignalSpy finished(engine_->worker(), &EngineWorker::summary_finished);
    QSignalSpy progress(engine_->worker(), &EngineWorker::progress);
    QSignalSpy partial(engine_->worker(), &EngineWorker::partial_summary);
    QSignalSpy ready(engine_->worker(), &EngineWorker::model_ready);
    engine_->summarize(doc, fixture_model_settings());
    ASSERT_TRUE(wait_until([&] { return finished.count() == 1; }));
    const SummaryOutcome out = finished.first().first().value<SummaryOutcome>();
    EXPECT_EQ(out.document_id, doc);
    const auto stored = library_->summaries_for(doc);
    ASSERT_EQ(stored.size(), 1);
    EXPECT_EQ(stored.first().id, out.summary_id);
    EXPECT_EQ(stored.first().device, "cpu");
    EXPECT_FALSE(out.passages.isEmpty());
    for (const SourcePassage& p : out.passages) {
        EXPECT_LT(p.begin, p.end);
        EXPECT_GT(p.weight, 0);
    }
    ASSERT_TRUE(stored.first().passages.has_value());  // stored with the summary
    EXPECT_EQ(*stored.first().passages, out.passages);
    // The stages the status bar shows.
    QStringList stages;
    for (const auto& args : progress) stages << args.first().toString();
    EXPECT_TRUE(stages.contains("reading"));
    EXPECT_TRUE(stages.contains("encoding layer 1/2")) << stages.join(", ").toStdString();
    EXPECT_TRUE(std::any_of(stages.begin(), stages.end(), [](const QString& s) { return s.startsWith("generating token"); }));
    EXPECT_GT(partial.count(), 0);
    ASSERT_EQ(ready.count(), 1);
    const ModelInfo info = ready.first().first().value<ModelInfo>();
    EXPECT_TRUE(info.is_test_model);
    EXPECT_EQ(info.encoder_layers, 2);
    EXPECT_EQ(info.encoder_heads, 4);
}

// A book longer than the test model's 128 tokens: summarized section by section, with
// "section 1 of N" and "combining" progress, and stored with its outline.
TEST_F(EngineWorkerTest, ALongDocumentIsSummarizedInSectionsAndStoredWithItsOutline) {
    setenv("XDG_CACHE_HOME", (dir_ / "cache").c_str(), 1);  // the section store
    std::string book;
    for (int c = 1; c <= 5; ++c) book += "CHAPTER " + std::to_string(c) + ".\n\n" + river_paragraphs() + "\n\n";
    const qint64 doc = open(book, "book.txt");
    ASSERT_GT(doc, 0);
    QSignalSpy finished(engine_->worker(), &EngineWorker::summary_finished);
    QSignalSpy progress(engine_->worker(), &EngineWorker::progress);
    engine_->summarize(doc, fixture_model_settings());
    ASSERT_TRUE(wait_until([&] { return finished.count() == 1; }));
    const SummaryOutcome out = finished.first().first().value<SummaryOutcome>();
    ASSERT_GE(out.sections, 5);
    EXPECT_FALSE(out.truncated);
    EXPECT_EQ(out.tokens_read, out.input_tokens);
    const auto stored = library_->summaries_for(doc);
    ASSERT_EQ(stored.size(), 1);
    ASSERT_EQ(stored.first().sections.size(), out.sections);
    EXPECT_TRUE(stored.first().sections.first().title.startsWith("CHAPTER 1."));
    EXPECT_EQ(stored.first().parameters.value("long").toString(), "sections");
    QStringList stages;
    for (const auto& args : progress) stages << args.first().toString();
    EXPECT_TRUE(stages.contains(QStringLiteral("section 1 of %1").arg(out.sections))) << stages.join(", ").toStdString();
    EXPECT_TRUE(stages.contains("combining the section summaries")) << stages.join(", ").toStdString();
}

TEST_F(EngineWorkerTest, CancelMidRunStoresNothing) {
    const qint64 doc = open(river_paragraphs());
    ASSERT_GT(doc, 0);
    QSignalSpy cancelled(engine_->worker(), &EngineWorker::cancelled);
    QSignalSpy finished(engine_->worker(), &EngineWorker::summary_finished);
    QSignalSpy done(engine_->worker(), &EngineWorker::request_done);
    // Cancel from inside the run, as the user pressing Cancel while the encoder works.
    EngineThread* engine = engine_.get();
    QObject::connect(
        engine_->worker(), &EngineWorker::progress, engine_->worker(),
        [engine](const QString& stage) {
            if (stage.startsWith("encoding layer")) engine->cancel();
        },
        Qt::DirectConnection);
    engine_->summarize(doc, fixture_model_settings());
    ASSERT_TRUE(wait_until([&] { return done.count() == 1; }));
    EXPECT_EQ(cancelled.count(), 1);
    EXPECT_EQ(finished.count(), 0);
    EXPECT_TRUE(library_->summaries_for(doc).isEmpty());
}

TEST_F(EngineWorkerTest, CancelDuringGenerationStoresNothing) {
    const qint64 doc = open(river_paragraphs());
    QSignalSpy cancelled(engine_->worker(), &EngineWorker::cancelled);
    QSignalSpy done(engine_->worker(), &EngineWorker::request_done);
    EngineThread* engine = engine_.get();
    QObject::connect(
        engine_->worker(), &EngineWorker::partial_summary, engine_->worker(), [engine] { engine->cancel(); },
        Qt::DirectConnection);
    engine_->summarize(doc, fixture_model_settings());
    ASSERT_TRUE(wait_until([&] { return done.count() == 1; }));
    EXPECT_EQ(cancelled.count(), 1);
    EXPECT_TRUE(library_->summaries_for(doc).isEmpty());
    // The worker takes new requests after a cancel.
    QSignalSpy finished(engine_->worker(), &EngineWorker::summary_finished);
    QObject::disconnect(engine_->worker(), &EngineWorker::partial_summary, engine_->worker(), nullptr);
    engine_->summarize(doc, fixture_model_settings());
    ASSERT_TRUE(wait_until([&] { return finished.count() == 1; }));
    EXPECT_EQ(library_->summaries_for(doc).size(), 1);
}

TEST_F(EngineWorkerTest, CaptureAttentionFoldsRealWeights) {
    const qint64 doc = open(river_paragraphs());
    QSignalSpy captured(engine_->worker(), &EngineWorker::attention_captured);
    AttentionRequest r;
    r.document_id = doc;
    r.layer = 1;
    r.head = 3;
    r.settings = fixture_model_settings();
    engine_->capture_attention(r);
    ASSERT_TRUE(wait_until([&] { return captured.count() == 1; }));
    const AttentionCaptureResult c = captured.first().first().value<AttentionCaptureResult>();
    EXPECT_EQ(c.layer, 1);
    EXPECT_EQ(c.head, 3);
    EXPECT_EQ(c.attention, "full");
    EXPECT_GT(c.rows, 10);
    EXPECT_EQ(c.grid, c.rows);  // short input: one cell per row
    ASSERT_EQ(c.cells.size(), size_t(c.grid) * size_t(c.grid));
    EXPECT_GT(c.max_weight, 0.f);
    EXPECT_LE(c.max_weight, 1.f);
}

TEST_F(EngineWorkerTest, CaptureRejectsMissingHead) {
    const qint64 doc = open(river_paragraphs());
    QSignalSpy failed(engine_->worker(), &EngineWorker::failed);
    AttentionRequest r;
    r.document_id = doc;
    r.head = 9;
    r.settings = fixture_model_settings();
    engine_->capture_attention(r);
    ASSERT_TRUE(wait_until([&] { return failed.count() == 1; }));
    EXPECT_TRUE(failed.first().at(1).toString().contains("heads 0 to 3")) << failed.first().at(1).toString().toStdString();
}

TEST_F(EngineWorkerTest, TraceSourcesOfStoredSummaryMatchesTheRunAndStoresThem) {
    const qint64 doc = open(river_paragraphs());
    QSignalSpy finished(engine_->worker(), &EngineWorker::summary_finished);
    engine_->summarize(doc, fixture_model_settings());
    ASSERT_TRUE(wait_until([&] { return finished.count() == 1; }));
    const SummaryOutcome out = finished.first().first().value<SummaryOutcome>();
    // As for a summary stored before passages were kept: none known.
    ASSERT_TRUE(library_->set_summary_passages(out.summary_id, {}));
    QSignalSpy traced(engine_->worker(), &EngineWorker::sources_traced);
    engine_->trace_sources(out.summary_id, EngineSettings{});
    ASSERT_TRUE(wait_until([&] { return traced.count() == 1; }));
    const SourceTrace t = traced.first().first().value<SourceTrace>();
    ASSERT_EQ(t.passages.size(), out.passages.size());
    for (int i = 0; i < t.passages.size(); ++i) {
        EXPECT_EQ(t.passages[i].begin, out.passages[i].begin);
        EXPECT_NEAR(t.passages[i].weight, out.passages[i].weight, 1e-4);
    }
    EXPECT_EQ(library_->summary(out.summary_id)->passages, std::optional(t.passages));
}

TEST_F(EngineWorkerTest, BadFilesFailWithOneSentence) {
    QSignalSpy failed(engine_->worker(), &EngineWorker::failed);
    engine_->open_document(QString::fromStdString((dir_ / "missing.txt").string()));
    const auto empty = write_text_file(dir_ / "empty.txt", "");
    engine_->open_document(QString::fromStdString(empty.string()));
    ASSERT_TRUE(wait_until([&] { return failed.count() == 2; }));
    for (const auto& args : failed) {
        const QString m = args.at(1).toString();
        EXPECT_TRUE(m.contains(".txt")) << m.toStdString();  // names the file
        EXPECT_FALSE(m.contains('\n'));
    }
    EXPECT_TRUE(library_->documents().isEmpty());
}

TEST_F(EngineWorkerTest, MissingModelFolderIsOneClearError) {
    const qint64 doc = open(river_paragraphs());
    QSignalSpy failed(engine_->worker(), &EngineWorker::failed);
    EngineSettings s = fixture_model_settings();
    s.model_dir = QString::fromStdString((dir_ / "no-such-model").string());
    engine_->summarize(doc, s);
    ASSERT_TRUE(wait_until([&] { return failed.count() == 1; }));
    EXPECT_TRUE(failed.first().at(1).toString().contains("does not exist"));
}


TEST_F(EngineWorkerTest, ComputeTypeSettingLoadsTheModelWithThoseWeights) {
    const qint64 doc = open(river_paragraphs());
    ASSERT_GT(doc, 0);
    QSignalSpy finished(engine_->worker(), &EngineWorker::summary_finished);
    QSignalSpy ready(engine_->worker(), &EngineWorker::model_ready);
    EngineSettings s = fixture_model_settings();
    s.compute_type = "fp32";
    engine_->summarize(doc, s);
    ASSERT_TRUE(wait_until([&] { return finished.count() == 1; }));
    ASSERT_EQ(ready.count(), 1);
    EXPECT_EQ(ready.last().first().value<ModelInfo>().compute_type, "fp32");
    // Another compute type is another model in memory, announced again.
    s.compute_type = "int8";
    engine_->summarize(doc, s);
    ASSERT_TRUE(wait_until([&] { return finished.count() == 2; }));
    ASSERT_EQ(ready.count(), 2);
    EXPECT_EQ(ready.last().first().value<ModelInfo>().compute_type, "int8");
    EXPECT_EQ(library_->summaries_for(doc).size(), 2);
}

// --- summarize_many: the run queue's waiting summaries made together.

// A summary's record without what differs from run to run (its id, when, how long it took).
void expect_same_summary(const SummaryRecord& batched, const SummaryRecord& single) {
    EXPECT_EQ(batched.summary, single.summary);
    EXPECT_EQ(batched.summary_ids, single.summary_ids);
    EXPECT_EQ(batched.method, single.method);
    EXPECT_EQ(batched.model_name, single.model_name);
    EXPECT_EQ(batched.model_path, single.model_path);
    EXPECT_EQ(batched.device, single.device);
    EXPECT_EQ(batched.input_tokens, single.input_tokens);
    EXPECT_EQ(batched.truncated, single.truncated);
    EXPECT_EQ(batched.passages.has_value(), single.passages.has_value());
    if (batched.passages && single.passages) {
        ASSERT_EQ(batched.passages->size(), single.passages->size());
        for (int i = 0; i < batched.passages->size(); ++i) {
            EXPECT_EQ((*batched.passages)[i].begin, (*single.passages)[i].begin);
            EXPECT_EQ((*batched.passages)[i].end, (*single.passages)[i].end);
            EXPECT_NEAR((*batched.passages)[i].weight, (*single.passages)[i].weight, 1e-4);
        }
    }
    QJsonObject a = batched.parameters, b = single.parameters;
    // The beam's score is a sum of log-probabilities: batched products may round differently.
    EXPECT_NEAR(a.take("score").toDouble(), b.take("score").toDouble(), 1e-3);
    EXPECT_EQ(a, b);
}

class EngineWorkerManyTest : public EngineWorkerTest {
protected:
    // Three documents (different texts: the library keeps one document per content).
    QVector<qint64> open_three() {
        return {open(river_paragraphs(), "alpha.txt"), open(river_paragraphs() + "Bravo: the river meets the sea.\n", "bravo.txt"),
                open(river_paragraphs() + "Charlie: the delta keeps growing.\n", "charlie.txt")};
    }
    // A document in the library with nothing to summarize (ingesting refuses an empty file,
    // but a library filled by an older version may hold one).
    qint64 add_blank_document() {
        IngestedDocument blank;
        blank.path = QString::fromStdString((dir_ / "blank.txt").string());
        blank.title = QStringLiteral("blank");
        blank.text = QStringLiteral("  \n\n  ");
        blank.content_hash = QByteArrayLiteral("blank-document");
        return library_->add_or_get_document(blank);
    }
    // Summarizes each document alone, as the window's single path does, and returns each
    // one's newest record.
    QHash<qint64, SummaryRecord> summarize_each_alone(const QVector<qint64>& docs, const EngineSettings& settings) {
        QSignalSpy finished(engine_->worker(), &EngineWorker::summary_finished);
        for (const qint64 doc : docs) engine_->summarize(doc, settings);
        EXPECT_TRUE(wait_until([&] { return finished.count() == docs.size() && !engine_->busy(); }));
        QHash<qint64, SummaryRecord> out;
        for (const qint64 doc : docs) out.insert(doc, library_->summaries_for(doc).first());
        return out;
    }
};

TEST_F(EngineWorkerManyTest, StoresEachSummaryAsSummarizeDoesAndFailsBadDocumentsAlone) {
    const QVector<qint64> docs = open_three();
    ASSERT_FALSE(docs.contains(0));
    const qint64 blank = add_blank_document();
    const qint64 gone = 999999;  // never in the library
    QSignalSpy finished(engine_->worker(), &EngineWorker::summary_finished);
    QSignalSpy document_failed(engine_->worker(), &EngineWorker::document_failed);
    QSignalSpy failed(engine_->worker(), &EngineWorker::failed);
    QSignalSpy partial(engine_->worker(), &EngineWorker::partial_summary);
    QSignalSpy progress(engine_->worker(), &EngineWorker::progress);
    QSignalSpy done(engine_->worker(), &EngineWorker::request_done);
    const quint64 ticket = engine_->summarize_many({docs[0], blank, docs[1], gone, docs[2]}, fixture_model_settings());
    ASSERT_TRUE(wait_until([&] { return done.count() == 1; }));
    EXPECT_EQ(failed.count(), 0);  // the request went on past the bad documents
    EXPECT_EQ(partial.count(), 0);  // a batched run does not stream

    QHash<qint64, QString> why;
    for (const auto& args : document_failed) {
        EXPECT_EQ(args.at(0).value<quint64>(), ticket);
        why.insert(args.at(1).value<qint64>(), args.at(2).toString());
    }
    ASSERT_EQ(why.size(), 2);
    EXPECT_EQ(why.value(gone), "The document is no longer in the library.");
    EXPECT_EQ(why.value(blank), "the document has no text to summarize");
    EXPECT_TRUE(library_->summaries_for(blank).isEmpty());

    ASSERT_EQ(finished.count(), 3);
    QHash<qint64, SummaryOutcome> outcomes;
    for (const auto& args : finished) {
        const SummaryOutcome out = args.first().value<SummaryOutcome>();
        outcomes.insert(out.document_id, out);
    }
    QHash<qint64, SummaryRecord> batched;
    for (const qint64 doc : docs) {
        ASSERT_TRUE(outcomes.contains(doc));
        const auto stored = library_->summaries_for(doc);
        ASSERT_EQ(stored.size(), 1);  // stored once
        EXPECT_EQ(stored.first().id, outcomes[doc].summary_id);
        ASSERT_TRUE(stored.first().passages.has_value());
        EXPECT_EQ(*stored.first().passages, outcomes[doc].passages);
        EXPECT_FALSE(outcomes[doc].passages.isEmpty());
        batched.insert(doc, stored.first());
    }
    // Documents counted as each finished, bad ones included.
    QStringList stages;
    for (const auto& args : progress) stages << args.first().toString();
    EXPECT_TRUE(stages.contains("5 of 5 done")) << stages.join(", ").toStdString();
    EXPECT_FALSE(std::any_of(stages.begin(), stages.end(), [](const QString& s) { return s.startsWith("generating token"); }));

    // The same documents summarized one at a time store the same summaries.
    const QHash<qint64, SummaryRecord> single = summarize_each_alone(docs, fixture_model_settings());
    for (const qint64 doc : docs) {
        SCOPED_TRACE(doc);
        expect_same_summary(batched[doc], single[doc]);
    }
    // ... and fail the blank one with the same words.
    QSignalSpy single_failed(engine_->worker(), &EngineWorker::failed);
    engine_->summarize(blank, fixture_model_settings());
    ASSERT_TRUE(wait_until([&] { return single_failed.count() == 1; }));
    EXPECT_EQ(single_failed.first().at(1).toString(), why.value(blank));
}

TEST_F(EngineWorkerManyTest, ExtractiveSettingsSummarizeEachDocumentAsSummarizeDoes) {
    const QVector<qint64> docs = open_three();
    EngineSettings s = fixture_model_settings();
    s.method = QStringLiteral("extractive");
    QSignalSpy finished(engine_->worker(), &EngineWorker::summary_finished);
    QSignalSpy document_failed(engine_->worker(), &EngineWorker::document_failed);
    QSignalSpy done(engine_->worker(), &EngineWorker::request_done);
    engine_->summarize_many(docs, s);
    ASSERT_TRUE(wait_until([&] { return done.count() == 1; }));
    EXPECT_EQ(document_failed.count(), 0);
    ASSERT_EQ(finished.count(), 3);
    for (const auto& args : finished) EXPECT_TRUE(args.first().value<SummaryOutcome>().extractive);
    QHash<qint64, SummaryRecord> batched;
    for (const qint64 doc : docs) {
        ASSERT_EQ(library_->summaries_for(doc).size(), 1);
        batched.insert(doc, library_->summaries_for(doc).first());
        EXPECT_EQ(batched[doc].method, "extractive");
    }
    const QHash<qint64, SummaryRecord> single = summarize_each_alone(docs, s);
    for (const qint64 doc : docs) {
        SCOPED_TRACE(doc);
        EXPECT_EQ(batched[doc].summary, single[doc].summary);
        EXPECT_EQ(batched[doc].passages, single[doc].passages);
        QJsonObject a = batched[doc].parameters, b = single[doc].parameters;
        EXPECT_EQ(a, b);
    }
}

TEST_F(EngineWorkerManyTest, CancelKeepsWhatFinishedAndStoresNothingMore) {
    const QVector<qint64> docs = open_three();
    QSignalSpy finished(engine_->worker(), &EngineWorker::summary_finished);
    QSignalSpy cancelled(engine_->worker(), &EngineWorker::cancelled);
    QSignalSpy done(engine_->worker(), &EngineWorker::request_done);
    // Cancel as the first summary is reported, on the worker's thread: the others, even one
    // finished in the same decoder step, are not stored.
    EngineThread* engine = engine_.get();
    QObject::connect(
        engine_->worker(), &EngineWorker::summary_finished, engine_->worker(), [engine] { engine->cancel(); },
        Qt::DirectConnection);
    engine_->summarize_many(docs, fixture_model_settings());
    ASSERT_TRUE(wait_until([&] { return done.count() == 1; }));
    EXPECT_EQ(cancelled.count(), 1);
    ASSERT_EQ(finished.count(), 1);
    const qint64 kept = finished.first().first().value<SummaryOutcome>().document_id;
    for (const qint64 doc : docs) EXPECT_EQ(library_->summaries_for(doc).size(), doc == kept ? 1 : 0) << doc;
}
}  // namespace
}  // namespace precis::test

int main(int argc, char** argv) { return precis::test::run_ui_tests(argc, argv); }
