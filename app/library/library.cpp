#include "app/library/library.h"

#include "app/paths.h"

#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMap>
#include <QRegularExpression>
#include <QStandardPaths>
#include <algorithm>

#include "app/ingest/ingest.h"
#include "app/library/library_schema.h"
#include "app/library/sqlite_db.h"

namespace precis {

static_assert(Library::kSchemaVersion == kLibrarySchemaVersion);

using sqlite::Db;
using sqlite::ReadTransaction;
using sqlite::Stmt;
using sqlite::WriteTransaction;

namespace {

QString to_json(const QJsonObject& o) { return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact)); }

template <typename Seq>
QString to_json_array(const Seq& values) {
    QJsonArray a;
    for (const auto& v : values) a.append(v);
    return QString::fromUtf8(QJsonDocument(a).toJson(QJsonDocument::Compact));
}

QJsonObject object_from_json(const QString& s) { return QJsonDocument::fromJson(s.toUtf8()).object(); }
QJsonArray array_from_json(const QString& s) { return QJsonDocument::fromJson(s.toUtf8()).array(); }

QVector<qint32> ints_from_json(const QString& s) {
    QVector<qint32> out;
    for (const QJsonValue& v : array_from_json(s)) out.push_back(qint32(v.toInteger()));
    return out;
}

QDateTime time_from_db(const QString& s) {
    return QDateTime::fromString(s, Qt::ISODateWithMs);  // stored with a 'Z': UTC
}

QString time_to_text(const QDateTime& t) { return t.toUTC().toString(Qt::ISODateWithMs); }

BatchItemStatus status_from_text(const QString& s) {
    if (s == QLatin1String("done")) return BatchItemStatus::Done;
    if (s == QLatin1String("failed")) return BatchItemStatus::Failed;
    return BatchItemStatus::Pending;
}

#define DOCUMENT_INFO_COLUMNS "d.id, d.path, d.content_hash, d.title, d.pages, d.encoding, d.added_at"
constexpr int kDocumentInfoColumnCount = 7;

DocumentInfo read_document_info(const Stmt& st, int c = 0) {
    DocumentInfo d;
    d.id = st.int64(c + 0);
    d.path = st.text(c + 1);
    d.content_hash = st.bytes(c + 2);
    d.title = st.text(c + 3);
    d.pages = int(st.int64(c + 4));
    d.encoding = st.text(c + 5);
    d.added_at = time_from_db(st.text(c + 6));
    return d;
}

#define SUMMARY_COLUMNS                                                                                        \
    "s.id, s.document_id, s.model_name, s.model_path, s.parameters, s.summary, s.summary_ids, s.input_tokens, " \
    "s.truncated, s.seconds_encode, s.seconds_generate, s.device, s.created_at"

SummaryRecord read_summary(const Stmt& st, int c = 0) {
    SummaryRecord s;
    s.id = st.int64(c + 0);
    s.document_id = st.int64(c + 1);
    s.model_name = st.text(c + 2);
    s.model_path = st.text(c + 3);
    s.parameters = object_from_json(st.text(c + 4));
    s.summary = st.text(c + 5);
    s.summary_ids = ints_from_json(st.text(c + 6));
    s.input_tokens = st.int64(c + 7);
    s.truncated = st.int64(c + 8) != 0;
    s.seconds_encode = st.real(c + 9);
    s.seconds_generate = st.real(c + 10);
    s.device = st.text(c + 11);
    s.created_at = time_from_db(st.text(c + 12));
    return s;
}

#define CLASSIFICATION_COLUMNS "c.id, c.document_id, c.model_name, c.parameters, c.label, c.score, c.created_at"

ClassificationRecord read_classification(const Stmt& st) {
    ClassificationRecord c;
    c.id = st.int64(0);
    c.document_id = st.int64(1);
    c.model_name = st.text(2);
    c.parameters = object_from_json(st.text(3));
    c.label = st.text(4);
    c.score = st.real(5);
    c.created_at = time_from_db(st.text(6));
    return c;
}

#define MODEL_COLUMNS "m.id, m.name, m.path, m.architecture, m.attention, m.imported_at"

ModelRecord read_model(const Stmt& st) {
    ModelRecord m;
    m.id = st.int64(0);
    m.name = st.text(1);
    m.path = st.text(2);
    m.architecture = st.text(3);
    m.attention = st.text(4);
    m.imported_at = time_from_db(st.text(5));
    return m;
}

#define BATCH_JOB_COLUMNS                                                                              \
    "j.id, j.root, j.settings, j.created_at, j.updated_at, "                                           \
    "(SELECT count(*) FROM batch_items i WHERE i.job_id = j.id AND i.status = 'pending'), "            \
    "(SELECT count(*) FROM batch_items i WHERE i.job_id = j.id AND i.status = 'done'), "               \
    "(SELECT count(*) FROM batch_items i WHERE i.job_id = j.id AND i.status = 'failed')"

BatchJobInfo read_batch_job(const Stmt& st) {
    BatchJobInfo j;
    j.id = st.int64(0);
    j.root = st.text(1);
    j.settings = st.text(2);
    j.created_at = time_from_db(st.text(3));
    j.updated_at = time_from_db(st.text(4));
    j.pending = int(st.int64(5));
    j.done = int(st.int64(6));
    j.failed = int(st.int64(7));
    return j;
}

// User text -> FTS5 MATCH expression: every word or "quoted phrase" becomes a quoted
// string (so FTS operators and punctuation are taken literally), a trailing * stays a
// prefix search; all terms must match.
QString fts_query(const QString& user) {
    static const QRegularExpression term(QStringLiteral("\"([^\"]*)\"|(\\S+)"));
    QStringList parts;
    for (auto it = term.globalMatch(user); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        QString t = m.capturedLength(1) > 0 ? m.captured(1) : m.captured(2);
        bool prefix = false;
        if (m.capturedLength(2) > 0 && t.size() > 1 && t.endsWith(QLatin1Char('*'))) {
            t.chop(1);
            prefix = true;
        }
        t.remove(QLatin1Char('"'));
        if (t.trimmed().isEmpty()) continue;
        parts << QStringLiteral("\"%1\"%2").arg(t, prefix ? QStringLiteral("*") : QString());
    }
    return parts.join(QLatin1Char(' '));
}

QString markdown_escape_inline(QString s) { return s.replace(QLatin1Char('`'), QLatin1Char('\'')); }

}  // namespace

const char* batch_item_status_name(BatchItemStatus s) {
    switch (s) {
        case BatchItemStatus::Pending: return "pending";
        case BatchItemStatus::Done: return "done";
        case BatchItemStatus::Failed: return "failed";
    }
    return "pending";
}

struct Library::Impl {
    explicit Impl(const QString& path) : db(path) {}
    Db db;

    bool document_exists(qint64 id) {
        Stmt st(db, "SELECT 1 FROM documents WHERE id = ?");
        st.bind(1, id);
        return st.step();
    }

    qint64 insert_summary(const SummaryRecord& s) {
        if (!document_exists(s.document_id))
            db.fail(LibraryErrorKind::NotFound,
                    QStringLiteral("has no document %1 to add a summary to.").arg(s.document_id));
        Stmt st(db,
                "INSERT INTO summaries (document_id, model_name, model_path, parameters, summary, summary_ids, "
                "input_tokens, truncated, seconds_encode, seconds_generate, device) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
        st.bind(1, s.document_id)
            .bind(2, s.model_name)
            .bind(3, s.model_path)
            .bind(4, to_json(s.parameters))
            .bind(5, s.summary)
            .bind(6, to_json_array(s.summary_ids))
            .bind(7, s.input_tokens)
            .bind(8, s.truncated)
            .bind(9, s.seconds_encode)
            .bind(10, s.seconds_generate)
            .bind(11, s.device);
        st.run();
        return db.last_insert_id();
    }

    qint64 insert_classification(const ClassificationRecord& c) {
        if (!document_exists(c.document_id))
            db.fail(LibraryErrorKind::NotFound,
                    QStringLiteral("has no document %1 to add a classification to.").arg(c.document_id));
        Stmt st(db, "INSERT INTO classifications (document_id, model_name, parameters, label, score) VALUES (?, ?, ?, ?, ?)");
        st.bind(1, c.document_id).bind(2, c.model_name).bind(3, to_json(c.parameters)).bind(4, c.label).bind(5, c.score);
        st.run();
        return db.last_insert_id();
    }

    // Status and summary id of a batch item; nullopt if the job has no such item.
    std::optional<std::pair<BatchItemStatus, qint64>> item_state(qint64 job_id, const QString& path) {
        Stmt st(db, "SELECT status, summary_id FROM batch_items WHERE job_id = ? AND path = ?");
        st.bind(1, job_id).bind(2, path);
        if (!st.step()) return std::nullopt;
        return std::make_pair(status_from_text(st.text(0)), st.is_null(1) ? qint64(0) : st.int64(1));
    }

    [[noreturn]] void no_item(qint64 job_id, const QString& path) {
        db.fail(LibraryErrorKind::NotFound,
                QStringLiteral("has no file \"%1\" in batch job %2.").arg(QDir::toNativeSeparators(path)).arg(job_id));
    }

    void touch_job(qint64 job_id) {
        Stmt st(db, "UPDATE batch_jobs SET updated_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE id = ?");
        st.bind(1, job_id);
        st.run();
    }
};

QString Library::default_path() {
    // One definition for the GUI and every command: app/paths.h.
    return QString::fromStdString(default_library_path().string());
}

Library::Library(const QString& path) : d_(std::make_unique<Impl>(path)) {
    Db& db = d_->db;
    db.exec("PRAGMA foreign_keys = ON");
    check_library_file(db);  // before the file is changed in any way
    {
        Stmt st(db, "PRAGMA journal_mode = WAL");
        st.step();
    }
    db.exec("PRAGMA synchronous = FULL");
    migrate_library(db);
}

Library::~Library() = default;

const QString& Library::path() const { return d_->db.path(); }

int Library::schema_version() const { return d_->db.pragma_int("user_version"); }

// ---------------------------------------------------------------- documents

qint64 Library::add_or_get_document(const IngestedDocument& doc, bool* added) {
    Db& db = d_->db;
    WriteTransaction tx(db);
    Stmt ins(db,
             "INSERT INTO documents (path, content_hash, title, pages, text, encoding, page_offsets, notes) "
             "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(content_hash) DO NOTHING");
    ins.bind(1, doc.path)
        .bind(2, doc.content_hash)
        .bind(3, doc.title)
        .bind(4, doc.pages)
        .bind(5, doc.text)
        .bind(6, doc.encoding)
        .bind(7, to_json_array(doc.page_offsets))
        .bind(8, to_json_array(doc.notes));
    ins.run();
    const bool inserted = db.changes() > 0;
    qint64 id = 0;
    if (inserted) {
        id = db.last_insert_id();
    } else {
        Stmt st(db, "SELECT id FROM documents WHERE content_hash = ?");
        st.bind(1, doc.content_hash);
        if (!st.step()) db.fail(LibraryErrorKind::Other, QStringLiteral("lost a document while adding it."));
        id = st.int64(0);
    }
    tx.commit();
    if (added) *added = inserted;
    return id;
}

std::optional<DocumentRecord> Library::document(qint64 id) const {
    Stmt st(d_->db, "SELECT " DOCUMENT_INFO_COLUMNS ", d.text, d.page_offsets, d.notes FROM documents d WHERE d.id = ?");
    st.bind(1, id);
    if (!st.step()) return std::nullopt;
    DocumentRecord r;
    static_cast<DocumentInfo&>(r) = read_document_info(st);
    r.text = st.text(kDocumentInfoColumnCount);
    for (const QJsonValue& v : array_from_json(st.text(kDocumentInfoColumnCount + 1))) r.page_offsets.push_back(v.toInt());
    for (const QJsonValue& v : array_from_json(st.text(kDocumentInfoColumnCount + 2))) r.notes.push_back(v.toString());
    return r;
}

std::optional<qint64> Library::find_document_by_hash(const QByteArray& content_hash) const {
    Stmt st(d_->db, "SELECT id FROM documents WHERE content_hash = ?");
    st.bind(1, content_hash);
    if (!st.step()) return std::nullopt;
    return st.int64(0);
}

QVector<DocumentListItem> Library::documents() const {
    Db& db = d_->db;
    ReadTransaction snapshot(db);
    QHash<qint64, QStringList> labels;
    {
        Stmt st(db, "SELECT DISTINCT document_id, label FROM classifications ORDER BY label");
        while (st.step()) labels[st.int64(0)].push_back(st.text(1));
    }
    QVector<DocumentListItem> out;
    Stmt st(db,
            "SELECT " DOCUMENT_INFO_COLUMNS ", (SELECT count(*) FROM summaries c WHERE c.document_id = d.id), " SUMMARY_COLUMNS
            " FROM documents d LEFT JOIN summaries s ON s.id = (SELECT id FROM summaries x WHERE x.document_id = d.id "
            "ORDER BY x.created_at DESC, x.id DESC LIMIT 1) "
            "ORDER BY d.added_at DESC, d.id DESC");
    while (st.step()) {
        DocumentListItem item;
        item.document = read_document_info(st);
        item.summary_count = int(st.int64(kDocumentInfoColumnCount));
        if (!st.is_null(kDocumentInfoColumnCount + 1)) item.latest_summary = read_summary(st, kDocumentInfoColumnCount + 1);
        item.labels = labels.value(item.document.id);
        out.push_back(std::move(item));
    }
    return out;
}

bool Library::delete_document(qint64 id) {
    Db& db = d_->db;
    WriteTransaction tx(db);
    Stmt st(db, "DELETE FROM documents WHERE id = ?");
    st.bind(1, id);
    st.run();
    const bool deleted = db.changes() > 0;
    tx.commit();
    return deleted;
}

// ---------------------------------------------------------------- summaries

qint64 Library::add_summary(const SummaryRecord& summary) {
    WriteTransaction tx(d_->db);
    const qint64 id = d_->insert_summary(summary);
    tx.commit();
    return id;
}

std::optional<SummaryRecord> Library::summary(qint64 id) const {
    Stmt st(d_->db, "SELECT " SUMMARY_COLUMNS " FROM summaries s WHERE s.id = ?");
    st.bind(1, id);
    if (!st.step()) return std::nullopt;
    return read_summary(st);
}

QVector<SummaryRecord> Library::summaries_for(qint64 document_id) const {
    Stmt st(d_->db, "SELECT " SUMMARY_COLUMNS " FROM summaries s WHERE s.document_id = ? ORDER BY s.created_at DESC, s.id DESC");
    st.bind(1, document_id);
    QVector<SummaryRecord> out;
    while (st.step()) out.push_back(read_summary(st));
    return out;
}

bool Library::delete_summary(qint64 id) {
    Db& db = d_->db;
    WriteTransaction tx(db);
    Stmt st(db, "DELETE FROM summaries WHERE id = ?");
    st.bind(1, id);
    st.run();
    const bool deleted = db.changes() > 0;
    tx.commit();
    return deleted;
}

QString Library::export_summary(qint64 summary_id, ExportFormat format) const {
    Db& db = d_->db;
    ReadTransaction snapshot(db);
    const std::optional<SummaryRecord> s = summary(summary_id);
    if (!s) db.fail(LibraryErrorKind::NotFound, QStringLiteral("has no summary %1 to export.").arg(summary_id));
    DocumentInfo doc;
    {
        Stmt st(db, "SELECT " DOCUMENT_INFO_COLUMNS " FROM documents d WHERE d.id = ?");
        st.bind(1, s->document_id);
        if (st.step()) doc = read_document_info(st);
    }

    if (format == ExportFormat::Json) {
        QJsonObject document{{"id", doc.id},       {"title", doc.title},
                             {"path", doc.path},   {"content_hash", QString::fromLatin1(doc.content_hash)},
                             {"pages", doc.pages}, {"encoding", doc.encoding}};
        QJsonArray ids;
        for (qint32 v : s->summary_ids) ids.append(v);
        QJsonObject o{{"id", s->id},
                      {"document", document},
                      {"model", QJsonObject{{"name", s->model_name}, {"path", s->model_path}}},
                      {"parameters", s->parameters},
                      {"summary", s->summary},
                      {"summary_ids", ids},
                      {"input_tokens", s->input_tokens},
                      {"truncated", s->truncated},
                      {"seconds", QJsonObject{{"encode", s->seconds_encode},
                                              {"generate", s->seconds_generate},
                                              {"total", s->seconds_encode + s->seconds_generate}}},
                      {"device", s->device},
                      {"created_at", time_to_text(s->created_at)}};
        return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Indented));
    }

    QString md;
    md += QStringLiteral("# %1\n\n").arg(doc.title.isEmpty() ? QFileInfo(doc.path).fileName() : doc.title);
    md += s->summary.trimmed() + QStringLiteral("\n\n");
    md += QStringLiteral("---\n\n");
    md += QStringLiteral("- Document: `%1`").arg(markdown_escape_inline(QDir::toNativeSeparators(doc.path)));
    if (doc.pages > 0) md += QStringLiteral(" (%1 page%2)").arg(doc.pages).arg(doc.pages == 1 ? "" : "s");
    md += QLatin1Char('\n');
    md += QStringLiteral("- Model: %1").arg(s->model_name);
    if (!s->model_path.isEmpty()) md += QStringLiteral(" (`%1`)").arg(markdown_escape_inline(s->model_path));
    md += QLatin1Char('\n');
    if (!s->parameters.isEmpty()) {
        QStringList params;
        for (auto it = s->parameters.begin(); it != s->parameters.end(); ++it) {
            const QJsonValue v = it.value();
            QString shown = v.isString() ? v.toString()
                                         : QString::fromUtf8(QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact)).mid(1).chopped(1);
            params << QStringLiteral("%1 = %2").arg(it.key(), shown);
        }
        md += QStringLiteral("- Parameters: %1\n").arg(params.join(QStringLiteral(", ")));
    }
    md += QStringLiteral("- Input: %1 tokens%2\n")
              .arg(s->input_tokens)
              .arg(s->truncated ? QStringLiteral(" (truncated to the model's maximum length)") : QString());
    md += QStringLiteral("- Device: %1; %2 s encoding, %3 s generation\n")
              .arg(s->device.isEmpty() ? QStringLiteral("unknown") : s->device)
              .arg(s->seconds_encode, 0, 'f', 2)
              .arg(s->seconds_generate, 0, 'f', 2);
    md += QStringLiteral("- Created: %1\n").arg(time_to_text(s->created_at));
    return md;
}

// ---------------------------------------------------------------- classifications

qint64 Library::add_classification(const ClassificationRecord& c) {
    WriteTransaction tx(d_->db);
    const qint64 id = d_->insert_classification(c);
    tx.commit();
    return id;
}

QVector<qint64> Library::add_classifications(const QVector<ClassificationRecord>& cs) {
    WriteTransaction tx(d_->db);
    QVector<qint64> ids;
    for (const ClassificationRecord& c : cs) ids.push_back(d_->insert_classification(c));
    tx.commit();
    return ids;
}

QVector<ClassificationRecord> Library::classifications_for(qint64 document_id) const {
    Stmt st(d_->db, "SELECT " CLASSIFICATION_COLUMNS
                    " FROM classifications c WHERE c.document_id = ? ORDER BY c.created_at DESC, c.score DESC, c.id DESC");
    st.bind(1, document_id);
    QVector<ClassificationRecord> out;
    while (st.step()) out.push_back(read_classification(st));
    return out;
}

QStringList Library::labels() const {
    Stmt st(d_->db, "SELECT DISTINCT label FROM classifications ORDER BY label");
    QStringList out;
    while (st.step()) out.push_back(st.text(0));
    return out;
}

QVector<DocumentInfo> Library::documents_with_label(const QString& label, double min_score) const {
    Stmt st(d_->db, "SELECT " DOCUMENT_INFO_COLUMNS " FROM documents d WHERE EXISTS (SELECT 1 FROM classifications c "
                    "WHERE c.document_id = d.id AND c.label = ? AND c.score >= ?) ORDER BY d.added_at DESC, d.id DESC");
    st.bind(1, label).bind(2, min_score);
    QVector<DocumentInfo> out;
    while (st.step()) out.push_back(read_document_info(st));
    return out;
}

// ---------------------------------------------------------------- search

QVector<SearchHit> Library::search(const QString& query, const SearchOptions& opts) const {
    const QString match = fts_query(query);
    if (match.isEmpty() || opts.limit <= 0) return {};
    Db& db = d_->db;
    ReadTransaction snapshot(db);
    QMap<qint64, SearchHit> by_doc;
    {
        Stmt st(db,
                "SELECT d.id, d.title, d.path, snippet(documents_fts, -1, ?, ?, '\xE2\x80\xA6', 16), "
                "bm25(documents_fts, 5.0, 1.0) AS r "
                "FROM documents_fts JOIN documents d ON d.id = documents_fts.rowid "
                "WHERE documents_fts MATCH ? ORDER BY r LIMIT ?");
        st.bind(1, opts.mark_begin).bind(2, opts.mark_end).bind(3, match).bind(4, opts.limit);
        while (st.step()) {
            SearchHit h;
            h.document_id = st.int64(0);
            h.title = st.text(1);
            h.path = st.text(2);
            h.document_snippet = st.text(3);
            h.rank = st.real(4);
            by_doc.insert(h.document_id, h);
        }
    }
    {
        Stmt st(db,
                "SELECT s.id, d.id, d.title, d.path, snippet(summaries_fts, 0, ?, ?, '\xE2\x80\xA6', 16), "
                "bm25(summaries_fts) AS r "
                "FROM summaries_fts JOIN summaries s ON s.id = summaries_fts.rowid JOIN documents d ON d.id = s.document_id "
                "WHERE summaries_fts MATCH ? ORDER BY r, s.created_at DESC LIMIT ?");
        st.bind(1, opts.mark_begin).bind(2, opts.mark_end).bind(3, match).bind(4, opts.limit);
        while (st.step()) {
            const qint64 doc_id = st.int64(1);
            auto it = by_doc.find(doc_id);
            if (it == by_doc.end()) {
                SearchHit h;
                h.document_id = doc_id;
                h.title = st.text(2);
                h.path = st.text(3);
                h.rank = st.real(5);
                it = by_doc.insert(doc_id, h);
            } else if (it->summary_id != 0) {
                continue;  // a better matching summary of this document came first
            }
            it->summary_id = st.int64(0);
            it->summary_snippet = st.text(4);
            it->rank = std::min(it->rank, st.real(5));
        }
    }
    QVector<SearchHit> hits(by_doc.begin(), by_doc.end());
    std::stable_sort(hits.begin(), hits.end(), [](const SearchHit& a, const SearchHit& b) { return a.rank < b.rank; });
    if (hits.size() > opts.limit) hits.resize(opts.limit);
    return hits;
}

// ---------------------------------------------------------------- models

qint64 Library::register_model(const ModelRecord& m) {
    Db& db = d_->db;
    WriteTransaction tx(db);
    Stmt st(db,
            "INSERT INTO models (name, path, architecture, attention) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(path) DO UPDATE SET name = excluded.name, architecture = excluded.architecture, "
            "attention = excluded.attention, imported_at = strftime('%Y-%m-%dT%H:%M:%fZ','now')");
    st.bind(1, m.name).bind(2, m.path).bind(3, m.architecture).bind(4, m.attention);
    st.run();
    Stmt id(db, "SELECT id FROM models WHERE path = ?");
    id.bind(1, m.path);
    id.step();
    const qint64 model_id = id.int64(0);
    tx.commit();
    return model_id;
}

QVector<ModelRecord> Library::models() const {
    Stmt st(d_->db, "SELECT " MODEL_COLUMNS " FROM models m ORDER BY m.name, m.id");
    QVector<ModelRecord> out;
    while (st.step()) out.push_back(read_model(st));
    return out;
}

std::optional<ModelRecord> Library::model(qint64 id) const {
    Stmt st(d_->db, "SELECT " MODEL_COLUMNS " FROM models m WHERE m.id = ?");
    st.bind(1, id);
    if (!st.step()) return std::nullopt;
    return read_model(st);
}

bool Library::remove_model(qint64 id) {
    Db& db = d_->db;
    WriteTransaction tx(db);
    Stmt st(db, "DELETE FROM models WHERE id = ?");
    st.bind(1, id);
    st.run();
    const bool deleted = db.changes() > 0;
    tx.commit();
    return deleted;
}

// ---------------------------------------------------------------- batch jobs

BatchJobStart Library::start_or_resume_job(const QString& root, const QStringList& files, const QString& settings,
                                           bool retry_failed) {
    Db& db = d_->db;
    const QString clean_root = QDir::cleanPath(QFileInfo(root).absoluteFilePath());
    WriteTransaction tx(db);
    BatchJobStart out;
    {
        Stmt find(db, "SELECT id FROM batch_jobs WHERE root = ? AND settings = ?");
        find.bind(1, clean_root).bind(2, settings);
        if (find.step()) {
            out.job_id = find.int64(0);
            out.resumed = true;
        } else {
            Stmt ins(db, "INSERT INTO batch_jobs (root, settings) VALUES (?, ?)");
            ins.bind(1, clean_root).bind(2, settings);
            ins.run();
            out.job_id = db.last_insert_id();
        }
    }
    {
        Stmt ins(db, "INSERT INTO batch_items (job_id, path) VALUES (?, ?) ON CONFLICT(job_id, path) DO NOTHING");
        for (const QString& f : files) {
            ins.reset();
            ins.bind(1, out.job_id).bind(2, f);
            ins.run();
        }
    }
    if (retry_failed) {
        Stmt st(db, "UPDATE batch_items SET status = 'pending', error = '' WHERE job_id = ? AND status = 'failed'");
        st.bind(1, out.job_id);
        st.run();
    }
    d_->touch_job(out.job_id);
    {
        Stmt st(db, "SELECT path, status FROM batch_items WHERE job_id = ? ORDER BY id");
        st.bind(1, out.job_id);
        while (st.step()) {
            switch (status_from_text(st.text(1))) {
                case BatchItemStatus::Pending: out.pending.push_back(st.text(0)); break;
                case BatchItemStatus::Done: ++out.done; break;
                case BatchItemStatus::Failed: ++out.failed; break;
            }
        }
    }
    tx.commit();
    return out;
}

qint64 Library::add_summary_for_batch_item(qint64 job_id, const QString& path, const SummaryRecord& summary) {
    Db& db = d_->db;
    WriteTransaction tx(db);
    const auto state = d_->item_state(job_id, path);
    if (!state) d_->no_item(job_id, path);
    if (state->first == BatchItemStatus::Done) {
        tx.commit();
        return state->second;
    }
    const qint64 summary_id = d_->insert_summary(summary);
    Stmt st(db,
            "UPDATE batch_items SET status = 'done', error = '', summary_id = ?, "
            "updated_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE job_id = ? AND path = ?");
    st.bind(1, summary_id).bind(2, job_id).bind(3, path);
    st.run();
    d_->touch_job(job_id);
    tx.commit();
    return summary_id;
}

void Library::mark_item_done(qint64 job_id, const QString& path, qint64 summary_id) {
    Db& db = d_->db;
    WriteTransaction tx(db);
    const auto state = d_->item_state(job_id, path);
    if (!state) d_->no_item(job_id, path);
    {
        Stmt exists(db, "SELECT 1 FROM summaries WHERE id = ?");
        exists.bind(1, summary_id);
        if (!exists.step()) db.fail(LibraryErrorKind::NotFound, QStringLiteral("has no summary %1.").arg(summary_id));
    }
    Stmt st(db,
            "UPDATE batch_items SET status = 'done', error = '', summary_id = ?, "
            "updated_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE job_id = ? AND path = ? AND status != 'done'");
    st.bind(1, summary_id).bind(2, job_id).bind(3, path);
    st.run();
    d_->touch_job(job_id);
    tx.commit();
}

void Library::mark_item_failed(qint64 job_id, const QString& path, const QString& reason) {
    Db& db = d_->db;
    WriteTransaction tx(db);
    if (!d_->item_state(job_id, path)) d_->no_item(job_id, path);
    Stmt st(db,
            "UPDATE batch_items SET status = 'failed', error = ?, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') "
            "WHERE job_id = ? AND path = ? AND status != 'done'");
    st.bind(1, reason).bind(2, job_id).bind(3, path);
    st.run();
    d_->touch_job(job_id);
    tx.commit();
}

std::optional<BatchJobInfo> Library::batch_job(qint64 job_id) const {
    Stmt st(d_->db, "SELECT " BATCH_JOB_COLUMNS " FROM batch_jobs j WHERE j.id = ?");
    st.bind(1, job_id);
    if (!st.step()) return std::nullopt;
    return read_batch_job(st);
}

QVector<BatchJobInfo> Library::batch_jobs() const {
    Stmt st(d_->db, "SELECT " BATCH_JOB_COLUMNS " FROM batch_jobs j ORDER BY j.updated_at DESC, j.id DESC");
    QVector<BatchJobInfo> out;
    while (st.step()) out.push_back(read_batch_job(st));
    return out;
}

QVector<BatchItem> Library::batch_items(qint64 job_id) const {
    Stmt st(d_->db, "SELECT path, status, error, summary_id, updated_at FROM batch_items WHERE job_id = ? ORDER BY id");
    st.bind(1, job_id);
    QVector<BatchItem> out;
    while (st.step()) {
        BatchItem it;
        it.path = st.text(0);
        it.status = status_from_text(st.text(1));
        it.error = st.text(2);
        it.summary_id = st.is_null(3) ? 0 : st.int64(3);
        it.updated_at = time_from_db(st.text(4));
        out.push_back(std::move(it));
    }
    return out;
}

bool Library::delete_batch_job(qint64 job_id) {
    Db& db = d_->db;
    WriteTransaction tx(db);
    Stmt st(db, "DELETE FROM batch_jobs WHERE id = ?");
    st.bind(1, job_id);
    st.run();
    const bool deleted = db.changes() > 0;
    tx.commit();
    return deleted;
}

}  // namespace precis
