#include "app/library/library_merge.h"

#include <QUrl>

#include <filesystem>

#include "app/file_names.h"
#include "app/library/library.h"
#include "app/library/library_schema.h"
#include "app/library/sqlite_db.h"

namespace precis {

using sqlite::Db;
using sqlite::Stmt;

MergeCounts& MergeCounts::operator+=(const MergeCounts& o) {
    documents_added += o.documents_added;
    documents_known += o.documents_known;
    summaries_added += o.summaries_added;
    summaries_known += o.summaries_known;
    classifications_added += o.classifications_added;
    models_added += o.models_added;
    jobs_added += o.jobs_added;
    items_added_or_updated += o.items_added_or_updated;
    return *this;
}

namespace {

int count_of(Db& db, const char* sql) {
    Stmt st(db, sql);
    return st.step() ? int(st.int64(0)) : 0;
}

int run_counted(Db& db, const char* sql) {
    db.exec(sql);
    return db.changes();
}

// The input as a read-only URI for ATTACH, so merging can never write to a shard (nor
// replay its journal, nor checkpoint its WAL).
QByteArray read_only_uri(const QString& path) {
    return "file:" + QUrl::toPercentEncoding(QString::fromUtf8(path_to_native(absolute_clean_path(path))), "/") +
           "?mode=ro";
}

// Keys: what makes two rows the same record (library_merge.h). The input's own repeats of
// one key (a summary made twice with the same settings) give its newest row.
const char* const kMergeSql[] = {
    // models: one per folder path
    "INSERT INTO main.models (name, path, architecture, attention, imported_at) "
    "SELECT name, path, architecture, attention, imported_at FROM src.models WHERE true "
    "ON CONFLICT(path) DO NOTHING",
    // documents: one per content hash
    "INSERT INTO main.documents (path, content_hash, title, pages, text, encoding, added_at, page_offsets, notes, outline) "
    "SELECT path, content_hash, title, pages, text, encoding, added_at, page_offsets, notes, outline FROM src.documents "
    "WHERE true ON CONFLICT(content_hash) DO NOTHING",
};

const char* const kMapDocuments =
    "INSERT INTO temp.merge_documents (src_id, out_id) "
    "SELECT s.id, m.id FROM src.documents s JOIN main.documents m ON m.content_hash = s.content_hash";

const char* const kInsertSummaries =
    "INSERT INTO main.summaries (document_id, model_name, model_path, parameters, summary, summary_ids, input_tokens, "
    "  truncated, seconds_encode, seconds_generate, device, created_at, source_passages, method) "
    "SELECT d.out_id, s.model_name, s.model_path, s.parameters, s.summary, s.summary_ids, s.input_tokens, "
    "  s.truncated, s.seconds_encode, s.seconds_generate, s.device, s.created_at, s.source_passages, s.method "
    "FROM (SELECT *, row_number() OVER (PARTITION BY document_id, method, model_name, model_path, parameters "
    "                                   ORDER BY created_at DESC, id DESC) AS rank "
    "      FROM src.summaries) s "
    "JOIN temp.merge_documents d ON d.src_id = s.document_id "
    "WHERE s.rank = 1 AND NOT EXISTS (SELECT 1 FROM main.summaries t WHERE t.document_id = d.out_id "
    "  AND t.method = s.method AND t.model_name = s.model_name AND t.model_path = s.model_path "
    "  AND t.parameters = s.parameters) "
    "ORDER BY s.created_at, s.id";

// Each input summary to the OUT summary that stands for it (its own copy or the one kept).
const char* const kMapSummaries =
    "INSERT INTO temp.merge_summaries (src_id, out_id) "
    "SELECT s.id, (SELECT t.id FROM main.summaries t WHERE t.document_id = d.out_id AND t.method = s.method "
    "  AND t.model_name = s.model_name AND t.model_path = s.model_path AND t.parameters = s.parameters "
    "  ORDER BY t.created_at DESC, t.id DESC LIMIT 1) "
    "FROM src.summaries s JOIN temp.merge_documents d ON d.src_id = s.document_id";

// The summaries this merge copied (ids above the OUT's largest before it) to the input
// summary each is a copy of: the newest of its key, as kInsertSummaries chose.
const char* const kMapCopiedSummaries =
    "INSERT INTO temp.merge_copied (out_id, src_id) "
    "SELECT t.id, (SELECT s.id FROM src.summaries s JOIN temp.merge_documents d ON d.src_id = s.document_id "
    "  WHERE d.out_id = t.document_id AND s.method = t.method AND s.model_name = t.model_name "
    "  AND s.model_path = t.model_path AND s.parameters = t.parameters ORDER BY s.created_at DESC, s.id DESC LIMIT 1) "
    "FROM main.summaries t WHERE t.id > ?";

// A copied summary takes its outline along; a summary OUT kept has its own.
const char* const kInsertSections =
    "INSERT INTO main.summary_sections (summary_id, position, title, start, \"end\", first_page, last_page, summary, "
    "  tokens) "
    "SELECT c.out_id, x.position, x.title, x.start, x.\"end\", x.first_page, x.last_page, x.summary, x.tokens "
    "FROM temp.merge_copied c JOIN src.summary_sections x ON x.summary_id = c.src_id ORDER BY c.out_id, x.position";

const char* const kInsertClassifications =
    "INSERT INTO main.classifications (document_id, model_name, parameters, label, score, created_at) "
    "SELECT d.out_id, c.model_name, c.parameters, c.label, c.score, c.created_at "
    "FROM (SELECT *, row_number() OVER (PARTITION BY document_id, model_name, parameters, label "
    "                                   ORDER BY created_at DESC, id DESC) AS rank "
    "      FROM src.classifications) c "
    "JOIN temp.merge_documents d ON d.src_id = c.document_id "
    "WHERE c.rank = 1 AND NOT EXISTS (SELECT 1 FROM main.classifications t WHERE t.document_id = d.out_id "
    "  AND t.model_name = c.model_name AND t.parameters = c.parameters AND t.label = c.label)";

const char* const kInsertJobs =
    "INSERT INTO main.batch_jobs (root, settings, created_at, updated_at) "
    "SELECT root, settings, created_at, updated_at FROM src.batch_jobs WHERE true "
    "ON CONFLICT(root, settings) DO UPDATE SET updated_at = excluded.updated_at "
    "WHERE excluded.updated_at > batch_jobs.updated_at";

const char* const kMapJobs =
    "INSERT INTO temp.merge_jobs (src_id, out_id) "
    "SELECT s.id, m.id FROM src.batch_jobs s JOIN main.batch_jobs m ON m.root = s.root AND m.settings = s.settings";

// An item already done in OUT stays as it is; otherwise a newer state (a task that was
// resubmitted and finished) replaces an older one.
const char* const kUpsertItems =
    "INSERT INTO main.batch_items (job_id, path, status, error, summary_id, updated_at) "
    "SELECT j.out_id, i.path, i.status, i.error, m.out_id, i.updated_at FROM src.batch_items i "
    "JOIN temp.merge_jobs j ON j.src_id = i.job_id LEFT JOIN temp.merge_summaries m ON m.src_id = i.summary_id "
    "WHERE true ON CONFLICT(job_id, path) DO UPDATE SET status = excluded.status, error = excluded.error, "
    "  summary_id = excluded.summary_id, updated_at = excluded.updated_at "
    "WHERE batch_items.status != 'done' AND excluded.updated_at > batch_items.updated_at";

MergeCounts merge_one(Db& db, const QString& input) {
    {
        Stmt attach(db, "ATTACH DATABASE ? AS src");
        attach.bind(1, read_only_uri(input));
        attach.run();
    }
    MergeCounts c;
    try {
        sqlite::WriteTransaction tx(db);
        db.exec("CREATE TEMP TABLE IF NOT EXISTS merge_documents (src_id INTEGER PRIMARY KEY, out_id INTEGER);"
                "CREATE TEMP TABLE IF NOT EXISTS merge_summaries (src_id INTEGER PRIMARY KEY, out_id INTEGER);"
                "CREATE TEMP TABLE IF NOT EXISTS merge_jobs (src_id INTEGER PRIMARY KEY, out_id INTEGER);"
                "CREATE TEMP TABLE IF NOT EXISTS merge_copied (out_id INTEGER PRIMARY KEY, src_id INTEGER);"
                "DELETE FROM temp.merge_documents; DELETE FROM temp.merge_summaries; DELETE FROM temp.merge_jobs;"
                "DELETE FROM temp.merge_copied;");
        c.models_added = run_counted(db, kMergeSql[0]);
        c.documents_added = run_counted(db, kMergeSql[1]);
        c.documents_known = count_of(db, "SELECT count(*) FROM src.documents") - c.documents_added;
        db.exec(kMapDocuments);
        qint64 last_summary_before = 0;
        {
            Stmt last(db, "SELECT coalesce(max(id), 0) FROM main.summaries");
            if (last.step()) last_summary_before = last.int64(0);
        }
        c.summaries_added = run_counted(db, kInsertSummaries);
        {
            Stmt copied(db, kMapCopiedSummaries);
            copied.bind(1, last_summary_before);
            copied.run();
        }
        db.exec(kInsertSections);
        c.summaries_known = count_of(db, "SELECT count(*) FROM src.summaries") - c.summaries_added;
        db.exec(kMapSummaries);
        c.classifications_added = run_counted(db, kInsertClassifications);
        const int jobs_before = count_of(db, "SELECT count(*) FROM main.batch_jobs");
        db.exec(kInsertJobs);
        c.jobs_added = count_of(db, "SELECT count(*) FROM main.batch_jobs") - jobs_before;
        db.exec(kMapJobs);
        c.items_added_or_updated = run_counted(db, kUpsertItems);
        tx.commit();
    } catch (...) {
        db.exec("DETACH DATABASE src");
        throw;
    }
    db.exec("DETACH DATABASE src");
    return c;
}

}  // namespace

void check_mergeable(const QString& input) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(native_path(input), ec))
        throw LibraryError(LibraryErrorKind::CannotOpen, input,
                           QStringLiteral("Cannot merge library \"%1\": there is no such file.").arg(path_for_display(input)));
    Db db(input, Db::Mode::ReadOnly);
    check_library_file(db);  // newer schema, another program's file; SQLITE_NOTADB for garbage
    const int version = db.pragma_int("user_version");
    if (version == 0)
        db.fail(LibraryErrorKind::Incompatible, QStringLiteral("is empty: it holds nothing to merge."));
    if (version < kLibrarySchemaVersion)
        db.fail(LibraryErrorKind::Incompatible,
                QStringLiteral("has the older schema %1; open it once with this version of Precis "
                               "(precis library list --library FILE) to upgrade it, then merge it.")
                    .arg(version));
    // Reads every page: a truncated copy or a half-written file shows up here, not halfway
    // through a merge. (SQLite reports the worst cases as SQLITE_CORRUPT, which Db names.)
    Stmt check(db, "PRAGMA quick_check(1)");
    if (check.step() && check.text(0) != QLatin1String("ok"))
        db.fail(LibraryErrorKind::Corrupt,
                QStringLiteral("is damaged (%1); it cannot be merged.").arg(check.text(0).left(200)));
}

MergeCounts merge_libraries(const QString& out, const QStringList& inputs) {
    const QString out_path = absolute_clean_path(out);
    for (const QString& in : inputs) {
        std::error_code ec;
        if (std::filesystem::equivalent(native_path(in), native_path(out_path), ec))
            throw LibraryError(LibraryErrorKind::Other, out_path,
                               QStringLiteral("Cannot merge library \"%1\" into itself.").arg(path_for_display(in)));
        check_mergeable(in);
    }
    { Library create_or_migrate(out_path); }  // OUT as any library: WAL, newest schema
    Db db(out_path, Db::Mode::ReadWriteAttachUris);
    db.exec("PRAGMA foreign_keys = ON");
    db.exec("PRAGMA synchronous = FULL");
    MergeCounts total;
    for (const QString& in : inputs) total += merge_one(db, in);
    return total;
}

}  // namespace precis
