// The library shared between processes, as a GUI and a batch run share it: several
// processes writing at once lose nothing, and a batch process killed with SIGKILL in the
// middle of its work resumes without losing or duplicating a finished file.
//
// The child processes are this same test binary started with --child=MODE (see main()).
#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QElapsedTimer>
#include <QFile>
#include <QHash>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QThread>
#include <cstdio>
#include <sqlite3.h>

#include "app/ingest/ingest.h"
#include "app/library/library.h"

using namespace precis;

namespace {

constexpr int kRowsPerWriter = 120;
constexpr int kBatchFiles = 60;

IngestedDocument fake_document(const QString& path) {
    IngestedDocument d;
    d.path = path;
    d.title = path.section('/', -1);
    d.text = QStringLiteral("Contents of %1. ").arg(path).repeated(20);
    d.encoding = QStringLiteral("UTF-8");
    d.content_hash = QCryptographicHash::hash(path.toUtf8(), QCryptographicHash::Sha256).toHex();
    return d;
}

SummaryRecord fake_summary(qint64 doc, const QString& path) {
    SummaryRecord s;
    s.document_id = doc;
    s.model_name = QStringLiteral("test-model");
    s.summary = QStringLiteral("Summary of %1").arg(path);
    s.device = QStringLiteral("cpu");
    return s;
}

QStringList batch_files() {
    QStringList files;
    for (int i = 0; i < kBatchFiles; ++i) files << QStringLiteral("/corpus/doc-%1.txt").arg(i, 3, 10, QChar('0'));
    return files;
}

void wait_for_file(const QString& path) {
    QElapsedTimer t;
    t.start();
    while (!QFile::exists(path) && t.elapsed() < 30000) QThread::msleep(5);
}

// --child=writer DB NAME GO_FILE: adds kRowsPerWriter documents with a summary each.
int child_writer(const QString& db, const QString& name, const QString& go_file) {
    Library lib(db);
    wait_for_file(go_file);
    for (int i = 0; i < kRowsPerWriter; ++i) {
        const QString path = QStringLiteral("/%1/%2.txt").arg(name).arg(i);
        const qint64 doc = lib.add_or_get_document(fake_document(path));
        lib.add_summary(fake_summary(doc, path));
    }
    return 0;
}

// --child=batch DB DELAY_MS: a batch run over batch_files(), printing "done PATH" after
// each file is stored and "resumed N" (N pending) at the start of a resumed job.
int child_batch(const QString& db, int delay_ms) {
    Library lib(db);
    const BatchJobStart job = lib.start_or_resume_job(QStringLiteral("/corpus"), batch_files(), QStringLiteral("m"));
    std::printf("%s %lld\n", job.resumed ? "resumed" : "started", static_cast<long long>(job.pending.size()));
    std::fflush(stdout);
    for (const QString& path : job.pending) {
        const qint64 doc = lib.add_or_get_document(fake_document(path));
        QThread::msleep(static_cast<unsigned long>(delay_ms));  // "inference"
        lib.add_summary_for_batch_item(job.job_id, path, fake_summary(doc, path));
        std::printf("done %s\n", qPrintable(path));
        std::fflush(stdout);
    }
    return 0;
}

QProcess* start_child(QObject* parent, const QStringList& args) {
    auto* p = new QProcess(parent);
    p->setProcessChannelMode(QProcess::SeparateChannels);
    p->start(QCoreApplication::applicationFilePath(), args);
    EXPECT_TRUE(p->waitForStarted(30000)) << p->errorString().toStdString();
    return p;
}

// First column of the first row of `sql`, read over a separate raw connection.
QString query_value(const QString& db, const char* sql) {
    sqlite3* raw = nullptr;
    sqlite3_open_v2(db.toUtf8().constData(), &raw, SQLITE_OPEN_READONLY, nullptr);
    sqlite3_stmt* st = nullptr;
    QString v = QStringLiteral("<error>");
    if (sqlite3_prepare_v2(raw, sql, -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = QString::fromUtf8(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
    sqlite3_finalize(st);
    sqlite3_close(raw);
    return v;
}

int count_rows(const QString& db, const char* sql) { return query_value(db, sql).toInt(); }

}  // namespace

TEST(LibraryConcurrency, ThreeProcessesWritingAtOnceLoseNothing) {
    QTemporaryDir dir;
    const QString db = dir.filePath("library.sqlite");
    const QString go = dir.filePath("go");
    { Library create(db); }  // one creator, so the children race on writes rather than on creation

    QObject owner;
    QProcess* a = start_child(&owner, {"--child=writer", db, "alpha", go});
    QProcess* b = start_child(&owner, {"--child=writer", db, "bravo", go});
    QThread::msleep(200);  // let both open the library and wait for the signal
    QFile(go).open(QIODevice::WriteOnly);

    // This process is the third writer, at the same time.
    {
        Library lib(db);
        for (int i = 0; i < kRowsPerWriter; ++i) {
            const QString path = QStringLiteral("/parent/%1.txt").arg(i);
            lib.add_summary(fake_summary(lib.add_or_get_document(fake_document(path)), path));
        }
    }
    for (QProcess* p : {a, b}) {
        ASSERT_TRUE(p->waitForFinished(120000));
        EXPECT_EQ(p->exitStatus(), QProcess::NormalExit);
        EXPECT_EQ(p->exitCode(), 0) << p->readAllStandardError().toStdString();
    }

    Library lib(db);
    const QVector<DocumentListItem> docs = lib.documents();
    EXPECT_EQ(docs.size(), 3 * kRowsPerWriter);
    QHash<QString, int> per_writer;
    for (const DocumentListItem& d : docs) {
        per_writer[d.document.path.section('/', 1, 1)]++;
        ASSERT_TRUE(d.latest_summary) << d.document.path.toStdString();
        EXPECT_EQ(d.latest_summary->summary, "Summary of " + d.document.path);
        EXPECT_EQ(d.summary_count, 1);
    }
    EXPECT_EQ(per_writer.value("alpha"), kRowsPerWriter);
    EXPECT_EQ(per_writer.value("bravo"), kRowsPerWriter);
    EXPECT_EQ(per_writer.value("parent"), kRowsPerWriter);
    EXPECT_EQ(lib.search("Contents").size(), 50);  // search default limit, index intact
    EXPECT_EQ(query_value(db, "PRAGMA integrity_check"), "ok");
}

TEST(LibraryConcurrency, BatchKilledMidRunResumesWithoutLosingOrDuplicating) {
    QTemporaryDir dir;
    const QString db = dir.filePath("library.sqlite");
    QObject owner;

    // 1. Run the batch and kill it with SIGKILL once a few files are done.
    QProcess* first = start_child(&owner, {"--child=batch", db, "25"});
    int reported_done = 0;
    QByteArray out;
    QElapsedTimer t;
    t.start();
    while (reported_done < 8 && t.elapsed() < 60000) {
        first->waitForReadyRead(1000);
        out += first->readAllStandardOutput();
        reported_done = int(out.count("done "));
    }
    ASSERT_GE(reported_done, 8) << out.toStdString() << first->readAllStandardError().toStdString();
    EXPECT_TRUE(out.startsWith("started 60\n")) << out.toStdString();
    first->kill();  // SIGKILL: no cleanup, possibly in the middle of a transaction
    ASSERT_TRUE(first->waitForFinished(30000));
    EXPECT_EQ(first->exitStatus(), QProcess::CrashExit);

    // 2. What the killed run finished is stored exactly once; nothing half-done.
    QHash<QString, qint64> done_before;
    int summaries_before = 0;
    {
        Library lib(db);
        const std::optional<BatchJobInfo> job = lib.batch_job(1);
        ASSERT_TRUE(job);
        for (const BatchItem& item : lib.batch_items(1))
            if (item.status == BatchItemStatus::Done) done_before.insert(item.path, item.summary_id);
        EXPECT_GE(done_before.size(), reported_done);  // every reported file is stored (one more may have committed)
        EXPECT_LT(done_before.size(), kBatchFiles);
        EXPECT_EQ(job->pending, kBatchFiles - int(done_before.size()));
        summaries_before = count_rows(db, "SELECT count(*) FROM summaries");
        EXPECT_EQ(summaries_before, done_before.size());  // no summary without its item marked done
    }

    // 3. Resume: only the pending files are done.
    QProcess* second = start_child(&owner, {"--child=batch", db, "0"});
    ASSERT_TRUE(second->waitForFinished(120000));
    EXPECT_EQ(second->exitCode(), 0) << second->readAllStandardError().toStdString();
    const QByteArray out2 = second->readAllStandardOutput();
    EXPECT_TRUE(out2.startsWith(QStringLiteral("resumed %1\n").arg(kBatchFiles - done_before.size()).toUtf8()))
        << out2.toStdString();
    for (auto it = done_before.cbegin(); it != done_before.cend(); ++it)
        EXPECT_FALSE(out2.contains(("done " + it.key() + "\n").toUtf8())) << "redone: " << it.key().toStdString();

    // 4. Everything done once, earlier work untouched.
    Library lib(db);
    const QVector<BatchItem> items = lib.batch_items(1);
    ASSERT_EQ(items.size(), kBatchFiles);
    QSet<qint64> summary_ids;
    for (const BatchItem& item : items) {
        EXPECT_EQ(item.status, BatchItemStatus::Done) << item.path.toStdString();
        if (done_before.contains(item.path)) {
            EXPECT_EQ(item.summary_id, done_before.value(item.path));
        }
        const std::optional<SummaryRecord> s = lib.summary(item.summary_id);
        ASSERT_TRUE(s) << item.path.toStdString();
        EXPECT_EQ(s->summary, "Summary of " + item.path);
        EXPECT_EQ(lib.document(s->document_id)->path, item.path);
        summary_ids.insert(item.summary_id);
    }
    EXPECT_EQ(summary_ids.size(), kBatchFiles);
    EXPECT_EQ(count_rows(db, "SELECT count(*) FROM summaries"), kBatchFiles);
    EXPECT_EQ(count_rows(db, "SELECT count(*) FROM documents"), kBatchFiles);
    EXPECT_EQ(lib.batch_job(1)->done, kBatchFiles);
}

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    if (args.size() >= 2 && args[1].startsWith(QLatin1String("--child="))) {
        try {
            const QString mode = args[1].mid(8);
            if (mode == QLatin1String("writer") && args.size() == 5) return child_writer(args[2], args[3], args[4]);
            if (mode == QLatin1String("batch") && args.size() == 4) return child_batch(args[2], args[3].toInt());
        } catch (const std::exception& e) {
            std::fprintf(stderr, "child failed: %s\n", e.what());
            return 3;
        }
        std::fprintf(stderr, "bad child arguments\n");
        return 2;
    }
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
