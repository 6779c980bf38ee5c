#pragma once
// Summarizes every supported file under a folder into the library, resumably: the job
// and its items live in the library, each summary is stored in the same transaction
// that marks its item done, so a killed run loses nothing and a rerun redoes nothing.
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>

#include "app/batch/shard.h"
#include "app/extractive/extractive_summarizer.h"
#include "engine/pipeline/classifier_pipeline.h"
#include "engine/pipeline/summarizer.h"

#include "app/long/long_summarizer.h"

namespace precis {

class Library;

struct BatchOptions {
    QString root;
    bool recursive = false;
    bool retry_failed = false;
    // Only this share of the folder's files (shard.h); the job is then that shard's, and
    // its library must hold no other shard of the same folder (one writer per file).
    std::optional<ShardSpec> shard;
    bool extractive = false;  // the document's own sentences (no model); else the summarizer's model
    extractive::ExtractiveOptions extractive_options;
    // How the summarizer summarizes. (Each record names the device its summary ran on: the
    // summarizer's backend at that moment, the CPU after a GPU failure.)
    SummarizeOptions summarize;
    // Documents the model summarizes together (engine/generate/document_batch.h); 0: auto,
    // as many as the memory free and the model's size call for.
    int batch_size = 0;
    // Documents longer than the model reads (app/long/long_summarizer.h): their windows run
    // together after the chunk's other documents; finished windows go to `long_options.store`.
    longdoc::LongOptions long_options;
    // Optional: also classify each document with this classifier.
    std::shared_ptr<const Classifier> classifier;
    ClassifyOptions classify;
};

struct BatchFailure {
    QString path, reason;
};

// Every file of the job lands in exactly one count: done before, done now, failed before
// (and not retried), failed now, or not reached (the run was cancelled first). A resumed
// run reports the whole job, not just what it did itself.
struct BatchReport {
    qint64 job_id = 0;
    bool resumed = false;
    int total = 0;          // files in the job
    int done_before = 0;    // finished by an earlier run of the same job
    int done_now = 0;       // summarized by this run
    // Done by this run without summarizing: the library already held a summary of the same
    // content with the same settings (another job over the same files, e.g. one that also
    // classifies), so only what was missing (labels) was added.
    int kept = 0;
    QVector<BatchFailure> failures;       // this run's failures
    QVector<BatchFailure> failed_before;  // failed in an earlier run and not retried in this one
    int retried = 0;                      // earlier failures this run tried again (retry_failed)
    bool cancelled = false;

    int done() const { return done_before + done_now + kept; }
    int failed() const { return int(failures.size() + failed_before.size()); }
    int not_reached() const { return total - done() - failed(); }
};

struct BatchCallbacks {
    // Overall progress: files finished (done + failed) out of total, and the file now running.
    std::function<void(int finished, int total, const QString& current)> on_file_started;
    std::function<void(const QString& path, bool ok, const QString& error)> on_file_finished;
    RunCallbacks run;  // per-file engine progress and cancel
};

// The supported files under `root`, sorted (recursively when asked).
QStringList list_documents(const QString& root, bool recursive);

// `summarizer` may be null when options.extractive is set.
BatchReport run_batch(Library& library, const Summarizer* summarizer, const BatchOptions& options,
                      const BatchCallbacks& callbacks);

}  // namespace precis
