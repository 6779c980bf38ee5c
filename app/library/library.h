#pragma once
// The Precis library: one SQLite file holding documents, their summaries (history kept,
// with the model, parameters, timings and device that produced each), classifications,
// imported models and resumable batch jobs, with full-text search over document and
// summary text.
//
// Opening a Library opens (or creates) the file in WAL mode with foreign keys on and a
// 10 s busy timeout, and migrates an older schema. Every write runs in one BEGIN IMMEDIATE
// transaction, so a GUI and a batch run can write to the same file at once without
// losing anything, and a process killed mid-write leaves nothing half-written.
//
// A Library object is one connection: use it from one thread at a time (give each thread
// its own, or keep it on a database thread). Errors throw LibraryError (library_error.h).
#include <QByteArray>
#include <QDateTime>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <QVector>
#include <memory>
#include <optional>

#include "app/ingest/ingest.h"
#include "app/library/library_error.h"
#include "app/library/source_passage.h"
#include "app/long/outline_section.h"

namespace precis {


struct DocumentInfo {
    qint64 id = 0;
    QString path;             // where it was first added from
    QByteArray content_hash;  // sha256 hex of the file bytes; one document per content
    QString title;
    int pages = 0;
    QString encoding;
    QDateTime added_at;  // UTC
};

struct DocumentRecord : DocumentInfo {
    QString text;
    QVector<int> page_offsets;
    QStringList notes;
    QVector<OutlineEntry> outline;  // the PDF's bookmarks (app/ingest/ingest.h); empty for text
};

struct SummaryRecord {
    qint64 id = 0;  // set by the library
    qint64 document_id = 0;
    QString model_name;
    QString model_path;
    QJsonObject parameters;  // every generation and attention parameter used
    QString summary;
    QVector<qint32> summary_ids;
    qint64 input_tokens = 0;
    bool truncated = false;
    double seconds_encode = 0;
    double seconds_generate = 0;
    QString device;       // "cpu", "cuda:0 (NVIDIA ...)", ...
    QDateTime created_at;  // set by the library, UTC
    // The passages it drew on; nullopt when never found (summaries stored before schema
    // v3, or by a run that did not compute them). An empty list means "found none".
    std::optional<QVector<SourcePassage>> passages;
    // "neural" (model_name made it) or "extractive" (the document's own sentences, chosen
    // by app/extractive; model_name is then "extractive" and summary_ids is empty).
    QString method = QStringLiteral("neural");
    // A long document summarized section by section: each section (window) with its own
    // summary, in document order, stored and read back with the summary. Empty for a
    // summary made in one pass (or stored before schema v5).
    DocumentOutline sections;
};

// How a person is told what made a summary: "extractive: 6 sentences from the document",
// or "neural: bart-large-cnn".
QString summary_method_description(const SummaryRecord& summary);


struct ClassificationRecord {
    qint64 id = 0;  // set by the library
    qint64 document_id = 0;
    QString model_name;
    QJsonObject parameters;
    QString label;
    double score = 0;
    QDateTime created_at;  // set by the library, UTC
};

struct ModelRecord {
    qint64 id = 0;  // set by the library
    QString name;
    QString path;  // unique: registering the same path again updates the entry
    QString architecture;
    QString attention;
    QDateTime imported_at;  // set by the library, UTC
};

struct DocumentListItem {
    DocumentInfo document;
    std::optional<SummaryRecord> latest_summary;
    int summary_count = 0;
    QStringList labels;  // distinct labels from its classifications, sorted
};

struct SearchOptions {
    int limit = 50;
    QString mark_begin = QStringLiteral("[");  // put around matched words in snippets
    QString mark_end = QStringLiteral("]");
};

// One hit per document; the document text and/or one of its summaries (its text or one of
// its section summaries) matched.
struct SearchHit {
    qint64 document_id = 0;
    QString title;
    QString path;
    QString document_snippet;  // empty when only a summary matched
    qint64 summary_id = 0;     // best matching summary, 0 when none matched
    QString summary_snippet;
    QString section_title;     // set when the snippet is from this section's summary
    double rank = 0;           // bm25, lower is better
};

enum class ExportFormat { Markdown, Json };

enum class BatchItemStatus { Pending, Done, Failed };

struct BatchItem {
    QString path;
    BatchItemStatus status = BatchItemStatus::Pending;
    QString error;          // why it failed
    qint64 summary_id = 0;  // the summary it produced (0 if not done, or that summary was deleted)
    QDateTime updated_at;
};

struct BatchJobInfo {
    qint64 id = 0;
    QString root;
    QString settings;
    QDateTime created_at, updated_at;
    int pending = 0, done = 0, failed = 0;
};

struct BatchJobStart {
    qint64 job_id = 0;
    bool resumed = false;  // the job existed (same root and settings) before this call
    QStringList pending;   // files still to do, in the order they were first listed
    int done = 0, failed = 0;
    QVector<BatchItem> failed_items;  // the `failed` ones with their reasons (still failed: not retried)
    int retried = 0;                  // earlier failures put back to pending by retry_failed
};

// A file a batch job could not summarize, for the library's "failed" view.
struct FailedBatchFile {
    qint64 job_id = 0;
    QString root;  // the job's folder: `precis batch ROOT --retry-failed` tries again
    QString path, error;
    QDateTime failed_at;
};

class Library {
public:
    static constexpr int kSchemaVersion = 5;

    // $PRECIS_LIBRARY if set, else the user data folder's library.sqlite (app/paths.h).
    static QString default_path();

    explicit Library(const QString& path);  // opens or creates, migrates; throws LibraryError
    ~Library();
    Library(const Library&) = delete;
    Library& operator=(const Library&) = delete;

    const QString& path() const;
    int schema_version() const;

    // --- documents
    // Adds the document unless one with the same content hash exists (then that one takes
    // the new path, where the content was last read from); returns its id.
    qint64 add_or_get_document(const IngestedDocument& doc, bool* added = nullptr);
    std::optional<DocumentRecord> document(qint64 id) const;
    std::optional<qint64> find_document_by_hash(const QByteArray& content_hash) const;
    QVector<DocumentListItem> documents() const;  // newest first, with the latest summary each
    bool delete_document(qint64 id);              // its summaries and classifications go with it

    // --- summaries (history kept)
    qint64 add_summary(const SummaryRecord& summary);  // NotFound if the document is gone
    std::optional<SummaryRecord> summary(qint64 id) const;
    QVector<SummaryRecord> summaries_for(qint64 document_id) const;  // newest first
    bool delete_summary(qint64 id);
    // Stores the passages found later for a summary (re-traced); false if it is gone.
    bool set_summary_passages(qint64 summary_id, const QVector<SourcePassage>& passages);
    QString export_summary(qint64 summary_id, ExportFormat format) const;  // NotFound if absent

    // --- classifications
    qint64 add_classification(const ClassificationRecord& c);
    QVector<qint64> add_classifications(const QVector<ClassificationRecord>& cs);  // all or nothing
    QVector<ClassificationRecord> classifications_for(qint64 document_id) const;  // newest first, then by score
    QStringList labels() const;  // every distinct label, sorted
    // Documents with a classification `label` scoring at least `min_score`, newest first.
    QVector<DocumentInfo> documents_with_label(const QString& label, double min_score = 0.0) const;

    // --- search (FTS5 over document title+text, summary text and section summaries)
    // Words are matched as given (all must occur); "quoted phrases" and a trailing * for
    // prefixes are understood; other FTS syntax is taken literally.
    QVector<SearchHit> search(const QString& query, const SearchOptions& opts = {}) const;

    // --- models
    qint64 register_model(const ModelRecord& m);
    QVector<ModelRecord> models() const;  // by name
    std::optional<ModelRecord> model(qint64 id) const;
    bool remove_model(qint64 id);

    // --- batch jobs
    // A job is identified by its root folder and a settings string (e.g. the model and
    // parameters as JSON): running the same batch again resumes it. New files are added
    // as pending; files already done are never redone. Failed ones stay failed unless
    // `retry_failed` (a retried item keeps its old reason until it is done or fails
    // again, so a retry that is cancelled loses no reason). Name files the same way on every run (absolute, clean paths):
    // items are matched by their path string.
    BatchJobStart start_or_resume_job(const QString& root, const QStringList& files, const QString& settings = {},
                                      bool retry_failed = false);
    // Stores the summary and marks the item done in one transaction. If the item is
    // already done (another runner finished it), stores nothing and returns the existing
    // summary id. NotFound if the job has no such item.
    qint64 add_summary_for_batch_item(qint64 job_id, const QString& path, const SummaryRecord& summary);
    // Marks an item done with an existing summary (e.g. the document was summarized before).
    void mark_item_done(qint64 job_id, const QString& path, qint64 summary_id);
    // Records the reason; an item already done stays done.
    void mark_item_failed(qint64 job_id, const QString& path, const QString& reason);
    std::optional<BatchJobInfo> batch_job(qint64 job_id) const;
    QVector<BatchJobInfo> batch_jobs() const;  // newest first
    QVector<BatchItem> batch_items(qint64 job_id) const;
    bool delete_batch_job(qint64 job_id);  // the job's bookkeeping only; summaries stay
    // The files whose newest outcome, over every job, is a failure: one row per file (the
    // newest failure), newest first. A file that failed and was summarized later is not listed.
    QVector<FailedBatchFile> failed_batch_files() const;

private:
    struct Impl;
    std::unique_ptr<Impl> d_;
};

const char* batch_item_status_name(BatchItemStatus s);  // "pending", "done", "failed"

}  // namespace precis
