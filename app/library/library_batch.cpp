// The batch-job half of the library: a job is a folder plus settings, its items the
// files; a summary and its item's "done" are written in one transaction, so a killed
// run loses nothing and a rerun redoes nothing.
#include <QStringList>

#include "app/library/library.h"
#include "app/library/library_private.h"

namespace precis {

namespace {

#define BATCH_JOB_COLUMNS                                                                              \
    "j.id, j.root, j.settings, j.created_at, j.updated_at, "                                           \
    "(SELECT count(*) FROM batch_items i WHERE i.job_id = j.id AND i.status = 'pending'), "            \
    "(SELECT count(*) FROM batch_items i WHERE i.job_id = j.id AND i.status = 'done'), "               \
    "(SELECT count(*) FROM batch_items i WHERE i.job_id = j.id AND i.status = 'failed')"

BatchJobInfo read_batch_job(const Stmt& st) {
    BatchJobInfo j;
    j.id = st.int64(0);
    j.root = st.path(1);
    j.settings = st.text(2);
    j.created_at = time_from_db(st.text(3));
    j.updated_at = time_from_db(st.text(4));
    j.pending = int(st.int64(5));
    j.done = int(st.int64(6));
    j.failed = int(st.int64(7));
    return j;
}

}  // namespace

const char* batch_item_status_name(BatchItemStatus s) {
    switch (s) {
        case BatchItemStatus::Pending: return "pending";
        case BatchItemStatus::Done: return "done";
        case BatchItemStatus::Failed: return "failed";
    }
    return "pending";
}

BatchJobStart Library::start_or_resume_job(const QString& root, const QStringList& files, const QString& settings,
                                           bool retry_failed) {
    Db& db = d_->db;
    const QString clean_root = absolute_clean_path(root);
    WriteTransaction tx(db);
    BatchJobStart out;
    {
        Stmt find(db, "SELECT id FROM batch_jobs WHERE root = ? AND settings = ?");
        find.bind_path(1, clean_root).bind(2, settings);
        if (find.step()) {
            out.job_id = find.int64(0);
            out.resumed = true;
        } else {
            Stmt ins(db, "INSERT INTO batch_jobs (root, settings) VALUES (?, ?)");
            ins.bind_path(1, clean_root).bind(2, settings);
            ins.run();
            out.job_id = db.last_insert_id();
        }
    }
    {
        Stmt ins(db, "INSERT INTO batch_items (job_id, path) VALUES (?, ?) ON CONFLICT(job_id, path) DO NOTHING");
        for (const QString& f : files) {
            ins.reset();
            ins.bind(1, out.job_id).bind_path(2, f);
            ins.run();
        }
    }
    if (retry_failed) {
        {
            Stmt count(db, "SELECT count(*) FROM batch_items WHERE job_id = ? AND status = 'failed'");
            count.bind(1, out.job_id);
            if (count.step()) out.retried = int(count.int64(0));
        }
        // The reason stays until the retry succeeds or fails anew.
        Stmt st(db, "UPDATE batch_items SET status = 'pending' WHERE job_id = ? AND status = 'failed'");
        st.bind(1, out.job_id);
        st.run();
    }
    d_->touch_job(out.job_id);
    {
        Stmt st(db, "SELECT path, status, error, updated_at FROM batch_items WHERE job_id = ? ORDER BY id");
        st.bind(1, out.job_id);
        while (st.step()) {
            switch (status_from_text(st.text(1))) {
                case BatchItemStatus::Pending: out.pending.push_back(st.path(0)); break;
                case BatchItemStatus::Done: ++out.done; break;
                case BatchItemStatus::Failed: {
                    ++out.failed;
                    BatchItem item;
                    item.path = st.path(0);
                    item.status = BatchItemStatus::Failed;
                    item.error = st.text(2);
                    item.updated_at = time_from_db(st.text(3));
                    out.failed_items.push_back(std::move(item));
                    break;
                }
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
    st.bind(1, summary_id).bind(2, job_id).bind_path(3, path);
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
    st.bind(1, summary_id).bind(2, job_id).bind_path(3, path);
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
    st.bind(1, reason).bind(2, job_id).bind_path(3, path);
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
        it.path = st.path(0);
        it.status = status_from_text(st.text(1));
        it.error = st.text(2);
        it.summary_id = st.is_null(3) ? 0 : st.int64(3);
        it.updated_at = time_from_db(st.text(4));
        out.push_back(std::move(it));
    }
    return out;
}

QVector<FailedBatchFile> Library::failed_batch_files() const {
    // One row per file: its newest outcome over every job (a re-run with other settings is
    // another job over the same files), listed while that outcome is a failure.
    Stmt st(d_->db,
            "SELECT job_id, root, path, error, updated_at FROM ("
            " SELECT i.job_id, j.root, i.path, i.error, i.updated_at, i.status, i.id,"
            "  ROW_NUMBER() OVER (PARTITION BY i.path ORDER BY i.updated_at DESC, i.id DESC) AS newest"
            " FROM batch_items i JOIN batch_jobs j ON j.id = i.job_id WHERE i.status IN ('done', 'failed'))"
            " WHERE newest = 1 AND status = 'failed' ORDER BY updated_at DESC, id DESC");
    QVector<FailedBatchFile> out;
    while (st.step()) {
        FailedBatchFile f;
        f.job_id = st.int64(0);
        f.root = st.path(1);
        f.path = st.path(2);
        f.error = st.text(3);
        f.failed_at = time_from_db(st.text(4));
        out.push_back(std::move(f));
    }
    return out;
}

bool Library::delete_batch_job(qint64 job_id) {
    return d_->delete_by_id("DELETE FROM batch_jobs WHERE id = ?", job_id);
}

}  // namespace precis
