#pragma once
// The engine worker: a QObject that lives on its own QThread (see EngineThread) and does
// everything slow — ingesting documents, loading models, summarizing, batch runs,
// attention capture, model import — so the UI thread never blocks. Requests arrive as
// queued calls carrying a ticket; results, progress and streamed text leave as signals.
//
// Cancel: request_cancel(ticket) may be called from any thread. It marks every request up
// to that ticket as cancelled; the engine's should_abort callback reads the mark between
// encoder layers and generated tokens, so a run stops within a fraction of a second and
// nothing is written to the library for it.
#include <QObject>
#include <QString>
#include <QVector>

#include <atomic>
#include <functional>
#include <memory>

#include "app/long/long_summarizer.h"
#include "app/worker/engine_settings.h"
#include "app/worker/worker_types.h"
#include "engine/pipeline/classifier_pipeline.h"

namespace precis {

class Backend;
class Classifier;
struct DocumentRecord;
class Library;
class ModelCache;
namespace longdoc {
class SectionStore;
}
class Model;

class EngineWorker : public QObject {
    Q_OBJECT
public:
    EngineWorker(QString library_path, std::shared_ptr<ModelCache> models, QObject* parent = nullptr);
    ~EngineWorker() override;

    // Thread-safe: cancels the request with this ticket and every earlier one.
    void request_cancel(quint64 up_to_ticket);

    // --- requests (call on the worker's thread, e.g. through EngineThread)
    void prepare_model(quint64 ticket, const EngineSettings& settings);
    void open_document(quint64 ticket, const QString& path, const QString& password);
    void summarize(quint64 ticket, qint64 document_id, const EngineSettings& settings);
    // Several documents summarized together (app/worker/engine_worker_batch.cpp): each is
    // stored and reported exactly as summarize() does, as it finishes (finishing order, not
    // the list's); one that cannot be summarized fails alone (document_failed). Nothing
    // streams. A cancel keeps what finished before it.
    void summarize_many(quint64 ticket, const QVector<qint64>& document_ids, const EngineSettings& settings);
    // With settings.classifier (app/worker/engine_worker_classify.cpp); the labels go to the library.
    void classify(quint64 ticket, qint64 document_id, const EngineSettings& settings);
    void trace_sources(quint64 ticket, qint64 summary_id, const EngineSettings& settings);
    void capture_attention(quint64 ticket, const AttentionRequest& request);
    void run_batch(quint64 ticket, const BatchRequest& request);
    void import_model(quint64 ticket, const QString& source_dir, const EngineSettings& settings);

signals:
    void model_ready(const precis::ModelInfo& info);
    // stage: "reading", "loading model", "encoding layer 3/12", "generating token 17/256", ...
    void progress(const QString& stage, int done, int total);
    void partial_summary(qint64 document_id, const QString& text);
    void document_opened(const precis::OpenedDocument& document);
    void password_needed(const QString& path, bool wrong_password);
    void summary_finished(const precis::SummaryOutcome& outcome);
    void classification_finished(const precis::ClassificationOutcome& outcome);
    void sources_traced(const precis::SourceTrace& trace);
    void attention_captured(const precis::AttentionCaptureResult& result);
    void batch_file_started(int finished, int total, const QString& path);
    void batch_file_finished(const QString& path, bool ok, const QString& error);
    void batch_finished(const precis::BatchOutcome& outcome);
    void model_imported(const QString& model_dir, const QString& message);
    void notice(const QString& message);   // something the user should know; the run went on
    void failed(quint64 ticket, const QString& message);  // one sentence: what went wrong
    // summarize_many: this one document failed (one sentence); the request goes on with the
    // others. failed() is the whole request failing (the model would not load, ...).
    void document_failed(quint64 ticket, qint64 document_id, const QString& message);
    void cancelled(quint64 ticket);
    void request_done(quint64 ticket);     // after every request, whatever its outcome

private:
    // A loaded model with its backend and options for one request.
    struct Run {
        ResolvedModel where;
        std::shared_ptr<const Model> model;
        SummarizeOptions options;
        DeviceChoice device;
    };
    Run prepare(const EngineSettings& settings);
    // The end of one document's summary, shared by summarize() and summarize_many() so both
    // store the same record: the summary with its source passages into the library, then
    // summary_finished.
    void store_summary(const DocumentRecord& doc, const Run& run, const longdoc::LongSummary& result);
    // A document of any length summarized (app/long/long_summarizer.h): one pass, or section
    // by section with "section 7 of 42" and "combining" progress; finished sections are kept
    // for a run that continues after a cancel.
    longdoc::LongSummary summarize_long_document(const DocumentRecord& doc, const Run& run, const Summarizer& summarizer,
                                                 const EngineSettings& settings, const RunCallbacks& callbacks);
    // An extractive summary of `doc` made, stored and reported (no model runs).
    void summarize_extractively(quint64 ticket, const DocumentRecord& doc, const EngineSettings& settings);
    // Reports the extractive "model" (once, like prepare() does for a real one).
    void announce_extractive(const EngineSettings& settings);
    std::shared_ptr<Backend> backend();  // the current device's backend (auto on first use)
    const DeviceChoice& use_device(const QString& requested, const QString& dtype = QStringLiteral("auto"));
    QString device_in_use() const;
    // The classifier settings.classifier names, loaded (kept apart from the summarizer's
    // model, so classifying and summarizing in turn reload neither), and its options.
    std::shared_ptr<const Classifier> load_classifier(const EngineSettings& settings, ClassifyOptions* options);
    RunCallbacks callbacks_for(quint64 ticket, const Model* model, qint64 document_id);
    bool is_cancelled(quint64 ticket) const;
    Library& library();
    // Runs `body`, turning exceptions into failed()/cancelled()/password_needed().
    void guarded(quint64 ticket, const std::function<void()>& body);

    QString library_path_;
    std::unique_ptr<Library> library_;  // opened on the worker thread, used only there
    std::shared_ptr<ModelCache> models_;
    std::shared_ptr<ModelCache> classifiers_;
    std::shared_ptr<Backend> backend_;
    QString device_request_, dtype_request_;
    DeviceChoice device_;
    std::weak_ptr<const Model> announced_model_;  // the model last reported by model_ready
    QString announced_attention_;
    bool announced_extractive_ = false;
    std::atomic<quint64> cancelled_up_to_{0};
    std::unique_ptr<longdoc::SectionStore> sections_;  // made on first use; null when turned off
    bool sections_opened_ = false;
};

}  // namespace precis
