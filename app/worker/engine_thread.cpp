#include "app/worker/engine_thread.h"

#include "app/worker/model_cache.h"

namespace precis {

EngineThread::EngineThread(const QString& library_path, std::shared_ptr<ModelCache> models, QObject* parent)
    : QObject(parent), worker_(new EngineWorker(library_path, std::move(models))) {
    thread_.setObjectName(QStringLiteral("precis-engine"));
    worker_->moveToThread(&thread_);
    connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);
    connect(worker_, &EngineWorker::request_done, this, &EngineThread::on_request_done);
    thread_.start();
}

EngineThread::~EngineThread() {
    cancel();
    thread_.quit();
    thread_.wait();
}

template <typename F>
quint64 EngineThread::post(F&& request) {
    const quint64 ticket = ++last_ticket_;
    if (pending_++ == 0) emit busy_changed(true);
    QMetaObject::invokeMethod(worker_, [w = worker_, ticket, r = std::forward<F>(request)] { r(w, ticket); },
                              Qt::QueuedConnection);
    return ticket;
}

void EngineThread::on_request_done(quint64) {
    if (pending_ > 0 && --pending_ == 0) emit busy_changed(false);
}

quint64 EngineThread::prepare_model(const EngineSettings& s) {
    return post([s](EngineWorker* w, quint64 t) { w->prepare_model(t, s); });
}

quint64 EngineThread::open_document(const QString& path, const QString& password) {
    return post([path, password](EngineWorker* w, quint64 t) { w->open_document(t, path, password); });
}

quint64 EngineThread::summarize(qint64 document_id, const EngineSettings& s) {
    return post([document_id, s](EngineWorker* w, quint64 t) { w->summarize(t, document_id, s); });
}

quint64 EngineThread::summarize_many(const QVector<qint64>& document_ids, const EngineSettings& s) {
    return post([document_ids, s](EngineWorker* w, quint64 t) { w->summarize_many(t, document_ids, s); });
}

quint64 EngineThread::classify(qint64 document_id, const EngineSettings& s) {
    return post([document_id, s](EngineWorker* w, quint64 t) { w->classify(t, document_id, s); });
}

quint64 EngineThread::trace_sources(qint64 summary_id, const EngineSettings& s) {
    return post([summary_id, s](EngineWorker* w, quint64 t) { w->trace_sources(t, summary_id, s); });
}

quint64 EngineThread::capture_attention(const AttentionRequest& r) {
    return post([r](EngineWorker* w, quint64 t) { w->capture_attention(t, r); });
}

quint64 EngineThread::run_batch(const BatchRequest& r) {
    return post([r](EngineWorker* w, quint64 t) { w->run_batch(t, r); });
}

quint64 EngineThread::import_model(const QString& source_dir, const EngineSettings& s) {
    return post([source_dir, s](EngineWorker* w, quint64 t) { w->import_model(t, source_dir, s); });
}

void EngineThread::cancel() { worker_->request_cancel(last_ticket_); }

}  // namespace precis
