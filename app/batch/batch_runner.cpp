#include "app/long/extractive_outline.h"
#include "app/batch/batch_runner.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "app/batch/existing_results.h"
#include "app/batch/records.h"
#include "app/file_names.h"
#include "app/ingest/ingest.h"
#include "app/library/library.h"
#include "engine/model/model.h"
#include "engine/pipeline/input_text.h"

namespace precis {

QStringList list_documents(const QString& root, bool recursive) {
    namespace fs = std::filesystem;
    // std::filesystem, not QDirIterator: names come as bytes, so one that is not UTF-8 is
    // listed exactly (app/file_names.h) instead of being mangled into a file that does not
    // exist. Unreadable files and entries that are not regular files are listed too, so
    // the run reports each as FAILED with its reason rather than dropping it unseen.
    QStringList files;
    std::error_code ec;
    const fs::path base = fs::absolute(native_path(root), ec).lexically_normal();
    const auto options = fs::directory_options::skip_permission_denied;
    auto consider = [&](const fs::directory_entry& e) {
        std::error_code ignored;
        if (e.is_directory(ignored)) return;
        const QString path = path_from_fs(e.path());
        if (is_supported_document(path)) files << absolute_clean_path(path);
    };
    auto hidden = [](const fs::path& p) { return p.filename().native().rfind('.', 0) == 0; };
    if (recursive) {
        fs::recursive_directory_iterator it(base, options, ec), end;
        for (; !ec && it != end; it.increment(ec)) {
            if (hidden(it->path())) {
                if (it->is_directory(ec)) it.disable_recursion_pending();
                ec.clear();
                continue;
            }
            consider(*it);
        }
    } else {
        fs::directory_iterator it(base, options, ec), end;
        for (; !ec && it != end; it.increment(ec))
            if (!hidden(it->path())) consider(*it);
    }
    files.sort();
    return files;
}

namespace {

// Documents read ahead of the model (at least): enough for a full batch with room to sort.
constexpr int kDocumentsPerChunk = 64;

// SQLite on a shared file system must never have two writers, so each shard has its own
// file: a library that already holds another shard of this folder was given twice.
void refuse_other_shards(const Library& library, const QString& root, const ShardSpec& shard) {
    for (const BatchJobInfo& job : library.batch_jobs()) {
        if (job.root != root) continue;
        const QString other = QJsonDocument::fromJson(job.settings.toUtf8()).object().value("shard").toString();
        if (!other.isEmpty() && other != shard.text())
            throw Error("library " + display_utf8(library.path()) + " already holds shard " + other.toStdString() +
                        " of " + display_utf8(root) + "; give shard " + shard.text().toStdString() +
                        " its own --library file");
    }
}

}  // namespace

BatchReport run_batch(Library& library, const Summarizer* summarizer, const BatchOptions& opts,
                      const BatchCallbacks& cb) {
    if (!opts.extractive && !summarizer) throw Error("a neural batch run needs a model");
    std::error_code ec;
    if (!std::filesystem::is_directory(native_path(opts.root), ec))
        throw Error("batch folder " + display_utf8(opts.root) + " does not exist or is not a folder");
    const QString root = absolute_clean_path(opts.root);
    const QStringList files = opts.shard ? files_in_shard(list_documents(root, opts.recursive), root, *opts.shard)
                                         : list_documents(root, opts.recursive);

    // How a summary is made: part of the job's identity, and what makes a summary already in
    // the library count as this job's (existing_results.h).
    nlohmann::json how;
    if (opts.extractive) {
        const extractive::ExtractiveOptions& e = opts.extractive_options;
        how = {{"method", "extractive"},
               {"budget", extractive::describe_budget(e.budget).toStdString()},
               {"position_weight", e.position_weight},
               {"position_decay", e.position_decay},
               {"redundancy", e.redundancy}};
    } else {
        how = describe_options(opts.summarize);
    }
    SummarySettings wanted;
    wanted.extractive = opts.extractive;
    wanted.options = QJsonDocument::fromJson(QByteArray::fromStdString(how.dump())).object();
    if (!opts.extractive) wanted.model_path = path_from_fs(summarizer->model().path());

    // The job is identified by its folder and settings: the same command resumes it.
    nlohmann::json settings = how;
    if (!opts.extractive) settings["model"] = summarizer->model().path().string();
    settings["recursive"] = opts.recursive;
    settings["classify"] = opts.classifier != nullptr;
    if (opts.shard) {
        settings["shard"] = opts.shard->text().toStdString();
        refuse_other_shards(library, root, *opts.shard);
    }
    BatchJobStart start = library.start_or_resume_job(root, files, QString::fromStdString(settings.dump()), opts.retry_failed);

    BatchReport report;
    report.job_id = start.job_id;
    report.resumed = start.resumed;
    // The job's files, not just today's listing: an item whose file has gone still counts.
    report.total = start.done + start.failed + int(start.pending.size());
    report.done_before = start.done;
    report.retried = start.retried;
    for (const BatchItem& item : start.failed_items) report.failed_before.push_back({item.path, item.error});
    int finished = start.done + start.failed;
    // The passages each summary drew on are stored with it, so the GUI shows them at once.
    SummarizeOptions summarize = opts.summarize;
    summarize.source_attention = true;
    QStringList candidate_labels;
    for (const std::string& l : opts.classify.candidate_labels) candidate_labels << QString::fromStdString(l);
    const QString classifier_name =
        opts.classifier ? QString::fromStdString(opts.classifier->model().name()) : QString();
    // One document's end, whichever way it went: counted, reported, and (on failure) stored
    // as failed with its reason.
    auto succeeded = [&](const QString& path) {
        ++finished;
        if (cb.on_file_finished) cb.on_file_finished(path, true, {});
    };
    auto failed = [&](const QString& path, const std::exception& e) {
        QString reason = QString::fromUtf8(e.what());
        if (dynamic_cast<const IngestError*>(&e) == nullptr) reason = path_for_display(path) + ": " + reason;
        library.mark_item_failed(report.job_id, path, reason);
        report.failures.push_back({path, reason});
        ++finished;
        if (cb.on_file_finished) cb.on_file_finished(path, false, reason);
    };
    // The document in the library, with the classifier's labels when asked and missing.
    auto add_document = [&](const IngestedDocument& doc, bool label) {
        const qint64 doc_id = library.add_or_get_document(doc);
        if (label) {
            ClassificationResult c = opts.classifier->classify(doc.text.toStdString(), opts.classify, cb.run);
            library.add_classifications(make_classification_records(doc_id, opts.classifier->model(), c));
        }
        return doc_id;
    };
    // Labels first, then the summary and "item done" in one transaction.
    auto store = [&](const QString& path, const IngestedDocument& doc, SummaryRecord record, bool label) {
        record.document_id = add_document(doc, label);
        library.add_summary_for_batch_item(report.job_id, path, record);
        ++report.done_now;
    };

    // A document read and waiting for its summary.
    struct Waiting {
        QString path;
        IngestedDocument doc;
        bool label = false;
    };
    // Documents are read a chunk at a time and the model summarizes a chunk's documents
    // together (engine/generate/document_batch.h); a chunk bounds the texts held at once.
    const int chunk = std::max(kDocumentsPerChunk, 2 * opts.batch_size);
    try {
        for (qsizetype next = 0; next < start.pending.size();) {
            std::vector<Waiting> waiting;
            for (; next < start.pending.size() && int(waiting.size()) < chunk; ++next) {
                const QString& path = start.pending[next];
                cb.run.check_abort();
                if (cb.on_file_started) cb.on_file_started(finished, report.total, path);
                try {
                    IngestOptions ingest_options;
                    ingest_options.should_abort = cb.run.should_abort;
                    IngestedDocument doc = ingest_file(path, ingest_options);
                    // Only the missing work: a summary of this content with these settings, or
                    // this classifier's labels, already in the library are not made again.
                    const std::optional<qint64> known = library.find_document_by_hash(doc.content_hash);
                    const std::optional<qint64> existing =
                        known ? summary_with_settings(library, *known, wanted) : std::nullopt;
                    const bool label = opts.classifier && !(known && has_labels_from(library, *known, classifier_name,
                                                                                    candidate_labels));
                    if (existing) {
                        add_document(doc, label);
                        library.mark_item_done(report.job_id, path, *existing);
                        ++report.kept;
                        succeeded(path);
                    } else if (opts.extractive) {
                        extractive::ExtractiveOptions e = opts.extractive_options;
                        e.should_abort = cb.run.should_abort;
                        SummaryRecord record = make_extractive_summary_record(
                            0, doc.page_offsets, extractive::summarize_extractive(doc.text, e), e);
                        record.sections = longdoc::extractive_outline(doc.text, doc.page_offsets, doc.outline, e);
                        store(path, doc, std::move(record), label);
                        succeeded(path);
                    } else {
                        waiting.push_back({path, std::move(doc), label});
                    }
                } catch (const Cancelled&) {
                    throw;
                } catch (const std::exception& e) {
                    failed(path, e);
                }
            }
            if (waiting.empty()) continue;
            // The chunk's documents as ids; one that cannot be read as such fails alone.
            std::vector<std::vector<int64_t>> ids;
            std::vector<int> of;  // ids[k] is waiting[of[k]]
            std::vector<size_t> long_docs;  // longer than the model reads: in sections, after the others
            const int readable = readable_input_tokens(summarizer->model(), summarize.attention, summarize.max_input_tokens);
            for (size_t i = 0; i < waiting.size(); ++i) {
                try {
                    const std::string text = waiting[i].doc.text.toStdString();
                    if (is_blank(text)) throw Error("the document has no text to summarize");
                    std::vector<int64_t> doc_ids = require_tokenizer(summarizer->model()).encode(text, true);
                    if (longdoc::beyond_one_pass(opts.long_options.mode, int(doc_ids.size()), readable)) {
                        long_docs.push_back(i);
                        continue;
                    }
                    ids.push_back(std::move(doc_ids));
                    of.push_back(int(i));
                } catch (const std::exception& e) {
                    failed(waiting[i].path, e);
                }
            }
            const int trained = summarizer->model().trained_input_tokens();
            auto keep_summary = [&](const Waiting& w, const longdoc::LongSummary& r) {
                try {
                    // The backend as it is now: the CPU after a GPU failure earlier in the batch.
                    store(w.path, w.doc,
                          make_long_summary_record(0, w.doc.text, w.doc.page_offsets, summarizer->model(), r,
                                                   opts.summarize, QString::fromStdString(summarizer->backend().name())),
                          w.label);
                    succeeded(w.path);
                } catch (const Cancelled&) {
                    throw;
                } catch (const std::exception& e) {
                    failed(w.path, e);
                }
            };
            ManySummariesCallbacks on;
            on.done = [&](int k, SummaryResult r) {
                keep_summary(waiting[size_t(of[size_t(k)])], longdoc::one_pass_summary(std::move(r), trained));
            };
            on.failed = [&](int k, const std::string& why) {
                const Waiting& w = waiting[size_t(of[size_t(k)])];
                failed(w.path, Error(why));
            };
            if (!ids.empty()) summarizer->summarize_many(ids, summarize, opts.batch_size, on, cb.run);
            for (size_t i : long_docs) {
                const Waiting& w = waiting[i];
                longdoc::LongSummary r;
                try {
                    longdoc::LongOptions long_options = opts.long_options;
                    long_options.batch_size = opts.batch_size;
                    r = longdoc::summarize_long(*summarizer, {w.doc.text, w.doc.page_offsets, w.doc.outline}, summarize,
                                                long_options, {}, cb.run);
                } catch (const Cancelled&) {
                    throw;
                } catch (const std::exception& e) {
                    failed(w.path, e);
                    continue;
                }
                keep_summary(w, r);
            }
        }
    } catch (const Cancelled&) {
        report.cancelled = true;  // what did not finish stays pending: the next run does it
    }
    return report;
}

}  // namespace precis
