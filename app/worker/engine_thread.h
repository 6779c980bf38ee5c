#pragma once
// Owns an EngineWorker and the QThread it lives on, and is how the UI thread talks to it:
// each method queues one request on the worker's thread and returns at once. Requests
// run one after another in the order they were made. Connect to worker()'s signals for
// the results (they arrive on the thread that connected, queued).
#include <QObject>
#include <QThread>

#include <memory>

#include "app/worker/engine_worker.h"

namespace precis {

class ModelCache;

class EngineThread : public QObject {
    Q_OBJECT
public:
    EngineThread(const QString& library_path, std::shared_ptr<ModelCache> models, QObject* parent = nullptr);
    ~EngineThread() override;  // cancels what is running and waits for the thread

    EngineWorker* worker() const { return worker_; }
    bool busy() const { return pending_ > 0; }

    quint64 prepare_model(const EngineSettings& settings);
    quint64 open_document(const QString& path, const QString& password = {});
    quint64 summarize(qint64 document_id, const EngineSettings& settings);
    // The documents summarized together, as one request (EngineWorker::summarize_many).
    quint64 summarize_many(const QVector<qint64>& document_ids, const EngineSettings& settings);
    quint64 classify(qint64 document_id, const EngineSettings& settings);
    quint64 trace_sources(qint64 summary_id, const EngineSettings& settings);
    quint64 capture_attention(const AttentionRequest& request);
    quint64 run_batch(const BatchRequest& request);
    quint64 import_model(const QString& source_dir, const EngineSettings& settings);

    // Cancels everything requested so far (the running request and the queued ones).
    void cancel();

signals:
    void busy_changed(bool busy);

private:
    template <typename F>
    quint64 post(F&& request);
    void on_request_done(quint64 ticket);

    QThread thread_;
    EngineWorker* worker_;  // lives on thread_, deleted when it finishes
    quint64 last_ticket_ = 0;
    int pending_ = 0;
};

}  // namespace precis
