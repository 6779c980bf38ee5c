#pragma once
// What library.cpp, library_search.cpp and library_batch.cpp share: the connection wrapper
// with its insert helpers, and the JSON/time/status conversions of stored rows. Not public API.
#include <QDateTime>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <optional>
#include <utility>

#include "app/file_names.h"
#include "app/library/library.h"
#include "app/library/library_sections.h"
#include "app/library/sqlite_db.h"

namespace precis {

using sqlite::Db;
using sqlite::ReadTransaction;
using sqlite::Stmt;
using sqlite::WriteTransaction;

inline QString to_json(const QJsonObject& o) { return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact)); }

template <typename Seq>
QString to_json_array(const Seq& values) {
    QJsonArray a;
    for (const auto& v : values) a.append(v);
    return QString::fromUtf8(QJsonDocument(a).toJson(QJsonDocument::Compact));
}

QString passages_to_json(const QVector<SourcePassage>& passages);
std::optional<QVector<SourcePassage>> passages_from_json(const QString& json, bool is_null);

inline QDateTime time_from_db(const QString& s) {
    return QDateTime::fromString(s, Qt::ISODateWithMs);  // stored with a 'Z': UTC
}

inline BatchItemStatus status_from_text(const QString& s) {
    if (s == QLatin1String("done")) return BatchItemStatus::Done;
    if (s == QLatin1String("failed")) return BatchItemStatus::Failed;
    return BatchItemStatus::Pending;
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
                "input_tokens, truncated, seconds_encode, seconds_generate, device, source_passages, method) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
        st.bind(1, s.document_id)
            .bind(2, s.model_name)
            .bind_path(3, s.model_path)
            .bind(4, to_json(s.parameters))
            .bind(5, s.summary)
            .bind(6, to_json_array(s.summary_ids))
            .bind(7, s.input_tokens)
            .bind(8, s.truncated)
            .bind(9, s.seconds_encode)
            .bind(10, s.seconds_generate)
            .bind(11, s.device)
            .bind(13, s.method.isEmpty() ? QStringLiteral("neural") : s.method);
        if (s.passages)
            st.bind(12, passages_to_json(*s.passages));
        else
            st.bind_null(12);
        st.run();
        const qint64 id = db.last_insert_id();
        insert_sections(db, id, s.sections);
        return id;
    }

    // The database clock, in the same format as the schema's column defaults.
    QString now() {
        Stmt st(db, "SELECT strftime('%Y-%m-%dT%H:%M:%fZ','now')");
        st.step();
        return st.text(0);
    }

    // `created_at` is shared by every label of one classification run, so "newest run first,
    // then by score" stays true even when the inserts straddle a millisecond.
    qint64 insert_classification(const ClassificationRecord& c, const QString& created_at) {
        if (!document_exists(c.document_id))
            db.fail(LibraryErrorKind::NotFound,
                    QStringLiteral("has no document %1 to add a classification to.").arg(c.document_id));
        Stmt st(db, "INSERT INTO classifications (document_id, model_name, parameters, label, score, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?)");
        st.bind(1, c.document_id).bind(2, c.model_name).bind(3, to_json(c.parameters)).bind(4, c.label).bind(5, c.score);
        st.bind(6, created_at);
        st.run();
        return db.last_insert_id();
    }

    // Status and summary id of a batch item; nullopt if the job has no such item.
    std::optional<std::pair<BatchItemStatus, qint64>> item_state(qint64 job_id, const QString& path) {
        Stmt st(db, "SELECT status, summary_id FROM batch_items WHERE job_id = ? AND path = ?");
        st.bind(1, job_id).bind_path(2, path);
        if (!st.step()) return std::nullopt;
        return std::make_pair(status_from_text(st.text(0)), st.is_null(1) ? qint64(0) : st.int64(1));
    }

    [[noreturn]] void no_item(qint64 job_id, const QString& path) {
        db.fail(LibraryErrorKind::NotFound,
                QStringLiteral("has no file \"%1\" in batch job %2.").arg(path_for_display(path)).arg(job_id));
    }

    // Runs a "DELETE ... WHERE id = ?" in its own transaction; true when a row went.
    bool delete_by_id(const char* sql, qint64 id) {
        WriteTransaction tx(db);
        Stmt st(db, sql);
        st.bind(1, id);
        st.run();
        const bool deleted = db.changes() > 0;
        tx.commit();
        return deleted;
    }

    void touch_job(qint64 job_id) {
        Stmt st(db, "UPDATE batch_jobs SET updated_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE id = ?");
        st.bind(1, job_id);
        st.run();
    }
};

}  // namespace precis
