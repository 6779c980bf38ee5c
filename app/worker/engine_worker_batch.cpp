// The engine worker's batched summaries: the window's waiting documents summarized together
// (Summarizer::summarize_many, engine/generate/document_batch.h) instead of one after
// another. Each document is stored and reported as it finishes, by the same code as a
// single summarize(), so a summary made in a batch is indistinguishable from one made
// alone; a document that cannot be summarized fails alone (document_failed).
#include "app/library/library.h"
#include "app/worker/engine_worker.h"
#include "engine/core/error.h"
#include "engine/model/model.h"
#include "engine/pipeline/input_text.h"

namespace precis {

namespace {

// Counts documents, not tokens: each document's own encoder layers and tokens mean little
// among many, and a person waits for documents. Short, because the window's progress line
// puts it after "Summarizing 7 documents together: ".
QString documents_done(int done, int total) { return QStringLiteral("%1 of %2 done").arg(done).arg(total); }

}  // namespace

void EngineWorker::summarize_many(quint64 ticket, const QVector<qint64>& document_ids, const EngineSettings& settings) {
    guarded(ticket, [&] {
        emit progress(QStringLiteral("reading"), 0, 0);
        const int total = int(document_ids.size());
        int finished = 0;
        // One document's end, whichever way it went, moves the progress line on.
        auto count = [&] {
            ++finished;
            emit progress(documents_done(finished, total), finished, total);
        };
        // Before the first document is done the bar is busy, not empty: an empty one looks stalled.
        auto started = [&] { emit progress(documents_done(finished, total), finished, finished > 0 ? total : 0); };
        auto fail = [&](qint64 document_id, const QString& why) {
            emit document_failed(ticket, document_id, why);
            count();
        };
        std::vector<DocumentRecord> docs;
        for (const qint64 id : document_ids) {
            std::optional<DocumentRecord> doc = library().document(id);
            if (doc)
                docs.push_back(std::move(*doc));
            else
                fail(id, QStringLiteral("The document is no longer in the library."));
        }
        if (docs.empty()) return;
        // A document summarized on its own: it fails alone, a cancel ends the run.
        auto alone = [&](const DocumentRecord& doc, const std::function<void()>& summarize) {
            if (is_cancelled(ticket)) throw Cancelled();
            try {
                summarize();
            } catch (const Cancelled&) {
                throw;
            } catch (const std::exception& e) {
                fail(doc.id, QString::fromUtf8(e.what()));
                return;
            }
            count();
        };

        if (uses_extractive(settings)) {
            // No model runs: one document after another is as fast as it gets.
            announce_extractive(settings);
            started();
            for (const DocumentRecord& doc : docs) alone(doc, [&] { summarize_extractively(ticket, doc, settings); });
            return;
        }

        Run run = prepare(settings);
        run.options.source_attention = true;  // as summarize(): the passages are stored with each summary
        Summarizer summarizer(run.model, backend_);
        const Tokenizer& tokenizer = require_tokenizer(*run.model);
        // The documents as ids, as Summarizer::summarize reads a text; one that cannot be read
        // as such fails alone, with summarize()'s words.
        std::vector<std::vector<int64_t>> ids;
        std::vector<size_t> of;  // ids[k] is docs[of[k]]
        std::vector<size_t> long_docs;  // longer than the model reads: their sections run together after
        const int readable = readable_input_tokens(*run.model, run.options.attention, run.options.max_input_tokens);
        for (size_t i = 0; i < docs.size(); ++i) {
            try {
                const std::string text = docs[i].text.toStdString();
                if (is_blank(text)) throw Error("the document has no text to summarize");
                std::vector<int64_t> doc_ids = tokenizer.encode(text, true);
                if (longdoc::beyond_one_pass(long_mode_of(settings), int(doc_ids.size()), readable)) {
                    long_docs.push_back(i);
                    continue;
                }
                ids.push_back(std::move(doc_ids));
                of.push_back(i);
            } catch (const std::exception& e) {
                fail(docs[i].id, QString::fromUtf8(e.what()));
            }
        }
        if (ids.empty() && long_docs.empty()) return;
        started();
        // No on_tokens: one document's partial text is not shown while others are made.
        const RunCallbacks cb = callbacks_for(ticket, nullptr, 0);
        ManySummariesCallbacks on;
        on.done = [&](int k, SummaryResult r) {
            // A cancel that came as this summary finished still means "do not keep it", as in
            // summarize(); the Cancelled thrown here ends the whole run.
            cb.check_abort();
            const DocumentRecord& doc = docs[of[size_t(k)]];
            try {
                store_summary(doc, run, longdoc::one_pass_summary(std::move(r), run.model->trained_input_tokens()));
            } catch (const std::exception& e) {
                fail(doc.id, QString::fromUtf8(e.what()));  // e.g. removed from the library meanwhile
                return;
            }
            count();
        };
        on.failed = [&](int k, const std::string& why) { fail(docs[of[size_t(k)]].id, QString::fromStdString(why)); };
        if (!ids.empty()) summarizer.summarize_many(ids, run.options, 0, on, cb);
        // Longer than the model reads: each in sections, its own windows together.
        for (size_t i : long_docs)
            alone(docs[i], [&] {
                const longdoc::LongSummary r = summarize_long_document(docs[i], run, summarizer, settings, cb);
                cb.check_abort();
                store_summary(docs[i], run, r);
            });
    });
}

}  // namespace precis
