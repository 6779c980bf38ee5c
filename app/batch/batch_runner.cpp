#include "app/batch/batch_runner.h"

#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QJsonDocument>

#include <nlohmann/json.hpp>

#include "app/batch/records.h"
#include "app/ingest/ingest.h"
#include "app/library/library.h"
#include "engine/model/model.h"

namespace precis {

QStringList list_documents(const QString& root, bool recursive) {
    QStringList files;
    QDirIterator it(root, QDir::Files | QDir::Readable | QDir::NoDotAndDotDot,
                    recursive ? QDirIterator::Subdirectories : QDirIterator::NoIteratorFlags);
    while (it.hasNext()) {
        const QString f = it.next();
        if (is_supported_document(f)) files << QFileInfo(f).absoluteFilePath();
    }
    files.sort();
    return files;
}

BatchReport run_batch(Library& library, const Summarizer* summarizer, const BatchOptions& opts,
                      const BatchCallbacks& cb) {
    if (!opts.extractive && !summarizer) throw Error("a neural batch run needs a model");
    const QFileInfo root_info(opts.root);
    if (!root_info.isDir()) throw Error("batch folder " + opts.root.toStdString() + " does not exist or is not a folder");
    const QString root = root_info.absoluteFilePath();
    const QStringList files = list_documents(root, opts.recursive);

    // The job is identified by its folder and settings: the same command resumes it.
    nlohmann::json settings;
    if (opts.extractive) {
        const extractive::ExtractiveOptions& e = opts.extractive_options;
        settings = {{"method", "extractive"},
                    {"budget", extractive::describe_budget(e.budget).toStdString()},
                    {"position_weight", e.position_weight},
                    {"position_decay", e.position_decay},
                    {"redundancy", e.redundancy}};
    } else {
        settings = describe_options(opts.summarize);
        settings["model"] = summarizer->model().path().string();
    }
    settings["recursive"] = opts.recursive;
    settings["classify"] = opts.classifier != nullptr;
    BatchJobStart start = library.start_or_resume_job(root, files, QString::fromStdString(settings.dump()), opts.retry_failed);

    BatchReport report;
    report.job_id = start.job_id;
    report.resumed = start.resumed;
    report.total = int(files.size());
    report.done_before = start.done;
    int finished = start.done + start.failed;
    // The passages each summary drew on are stored with it, so the GUI shows them at once.
    SummarizeOptions summarize = opts.summarize;
    summarize.source_attention = true;
    for (const QString& path : start.pending) {
        if (cb.run.should_abort && cb.run.should_abort()) {
            report.cancelled = true;
            break;
        }
        if (cb.on_file_started) cb.on_file_started(finished, report.total, path);
        try {
            IngestedDocument doc = ingest_file(path);
            SummaryRecord record;
            if (opts.extractive) {
                extractive::ExtractiveOptions e = opts.extractive_options;
                e.should_abort = cb.run.should_abort;
                record = make_extractive_summary_record(0, doc.page_offsets, extractive::summarize_extractive(doc.text, e), e);
            } else {
                SummaryResult r = summarizer->summarize(doc.text.toStdString(), summarize, cb.run);
                record = make_summary_record(0, doc.text, doc.page_offsets, summarizer->model(), r, opts.summarize,
                                             opts.device);
            }
            const qint64 doc_id = library.add_or_get_document(doc);
            record.document_id = doc_id;
            if (opts.classifier) {
                ClassificationResult c = opts.classifier->classify(doc.text.toStdString(), opts.classify, cb.run);
                library.add_classifications(make_classification_records(doc_id, opts.classifier->model(), c));
            }
            // Summary and "item done" in one transaction.
            library.add_summary_for_batch_item(report.job_id, path, record);
            ++report.done_now;
            if (cb.on_file_finished) cb.on_file_finished(path, true, {});
        } catch (const Cancelled&) {
            report.cancelled = true;  // the item stays pending: the next run does it
            break;
        } catch (const std::exception& e) {
            QString reason = QString::fromUtf8(e.what());
            if (dynamic_cast<const IngestError*>(&e) == nullptr) reason = path + ": " + reason;
            library.mark_item_failed(report.job_id, path, reason);
            report.failures.push_back({path, reason});
            if (cb.on_file_finished) cb.on_file_finished(path, false, reason);
        }
        ++finished;
    }
    return report;
}

}  // namespace precis
