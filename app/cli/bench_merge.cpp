// The merge benchmark: what the last job of a cluster run costs. Shard libraries are made
// directly with SQL in one transaction each (the batch path would spend the time
// summarizing), with the columns a real extractive batch writes: a document of about
// `--document-bytes` of text, a summary of a few sentences with its source passages, and
// a done batch item. The merge runs in a child process, so its peak memory is its own.
#include "app/cli/bench_merge.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>

#include "app/file_names.h"
#include "app/library/library.h"
#include "app/library/library_merge.h"
#include "app/library/sqlite_db.h"
#include "engine/core/error.h"

namespace precis::cli {

namespace {

namespace fs = std::filesystem;
using sqlite::Db;
using sqlite::Stmt;

QString words(qint64 seed, int bytes) {
    static const char* const vocabulary[] = {"river", "valley", "court", "contract", "thesis", "measured", "results",
                                             "between", "archive", "cluster", "within", "season", "report", "found"};
    QString s;
    quint64 x = quint64(seed) * 0x9e3779b97f4a7c15ULL + 1;
    while (s.size() < bytes) {
        x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
        s += QLatin1String(vocabulary[(x * 0x2545f4914f6cdd1dULL) % 14]);
        s += (x % 11 == 0) ? QStringLiteral(". ") : QStringLiteral(" ");
    }
    return s;
}

void make_shard(const QString& path, int shard, qint64 first, qint64 count, int document_bytes) {
    { Library create(path); }
    Db db(path);
    sqlite::WriteTransaction tx(db);
    db.exec("INSERT INTO batch_jobs (root, settings) VALUES ('/archive', '{\"method\":\"extractive\",\"shard\":\"x\"}')");
    Stmt job(db, "UPDATE batch_jobs SET settings = ? WHERE id = 1");
    job.bind(1, QStringLiteral("{\"method\":\"extractive\",\"shard\":\"%1\"}").arg(shard));
    job.run();
    Stmt doc(db, "INSERT INTO documents (path, content_hash, title, text) VALUES (?, ?, ?, ?)");
    Stmt sum(db, "INSERT INTO summaries (document_id, model_name, parameters, summary, device, source_passages, method) "
                 "VALUES (?, 'extractive', '{\"budget\":\"3 sentences\",\"method\":\"extractive\"}', ?, 'cpu', "
                 "'[{\"begin\":0,\"end\":80,\"page\":-1,\"weight\":1}]', 'extractive')");
    Stmt item(db, "INSERT INTO batch_items (job_id, path, status, summary_id) VALUES (1, ?, 'done', ?)");
    for (qint64 i = first; i < first + count; ++i) {
        const QString file = QStringLiteral("/archive/%1/doc-%2.pdf").arg(i % 1000).arg(i);
        doc.reset();
        doc.bind(1, file).bind(2, QByteArray::number(i, 16).rightJustified(64, '0')).bind(3, file).bind(4, words(i, document_bytes));
        doc.run();
        sum.reset();
        sum.bind(1, db.last_insert_id()).bind(2, words(-i, 400));
        sum.run();
        item.reset();
        item.bind(1, file).bind(2, db.last_insert_id());
        item.run();
    }
    tx.commit();
}

struct Measured {
    double seconds = 0;
    long peak_rss_mb = 0;
};

Measured timed_merge(const QString& out, const QStringList& shards) {
    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = ::fork();
    if (pid == 0) {
        try {
            merge_libraries(out, shards);
            ::_exit(0);
        } catch (const std::exception& e) {
            std::cerr << "precis: " << e.what() << "\n";
            ::_exit(1);
        }
    }
    int status = 0;
    rusage usage{};
    ::wait4(pid, &status, 0, &usage);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw Error("the benchmark's merge failed");
    return {std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), usage.ru_maxrss / 1024};
}

}  // namespace

int bench_merge(const Arguments& args) {
    const int total = args.int_value("--merge-summaries").value_or(100000);
    const int shards = args.int_value("--shards").value_or(4);
    const int document_bytes = args.int_value("--document-bytes").value_or(2000);
    if (total < 1 || shards < 1 || shards > total || document_bytes < 1)
        throw Error("--merge-summaries, --shards and --document-bytes must be positive, with no more shards than summaries");
    const fs::path dir = fs::temp_directory_path() / ("precis-bench-merge-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    try {
        QStringList inputs;
        std::cerr << "precis: writing " << shards << " shard libraries with " << total << " summaries in " << dir.string() << "\n";
        for (int s = 0; s < shards; ++s) {
            const qint64 first = qint64(total) * s / shards, last = qint64(total) * (s + 1) / shards;
            inputs << path_from_fs(dir / ("shard-" + std::to_string(s) + ".db"));
            make_shard(inputs.back(), s, first, last - first, document_bytes);
        }
        uintmax_t input_bytes = 0;
        for (const QString& in : inputs) input_bytes += fs::file_size(native_path(in));
        const QString out = path_from_fs(dir / "merged.db");
        const Measured first = timed_merge(out, inputs);
        const Measured again = timed_merge(out, inputs);  // idempotent: everything already there
        std::cout << "merge of " << total << " summaries (" << shards << " shards, " << input_bytes / 1000000
                  << " MB, documents of " << document_bytes << " bytes): " << first.seconds << " s, "
                  << int(total / first.seconds) << " summaries/s, peak memory " << first.peak_rss_mb << " MB\n"
                  << "merging the same shards again (nothing new): " << again.seconds << " s, peak memory "
                  << again.peak_rss_mb << " MB\n"
                  << "merged library: " << fs::file_size(dir / "merged.db") / 1000000 << " MB\n";
    } catch (...) {
        std::error_code ec;
        fs::remove_all(dir, ec);
        throw;
    }
    std::error_code ec;
    fs::remove_all(dir, ec);
    return 0;
}

}  // namespace precis::cli
