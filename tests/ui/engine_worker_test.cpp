// The engine worker on its own thread, driven the way the main window drives it:
// summaries are stored with their source passages, Cancel stops a run and stores nothing,
// attention capture and source tracing return data, bad input fails with one sentence.
#include <QSignalSpy>

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
}  // namespace
}  // namespace precis::test

int main(int argc, char** argv) { return precis::test::run_ui_tests(argc, argv); }
