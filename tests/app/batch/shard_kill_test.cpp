// A shard process SIGKILLed while it writes its library (what a node failure or an
// out-of-memory kill does to an array task): the shard library is intact, holds each
// summary it reported done exactly once, and the same command resumes it to the end
// without redoing a file.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "app/batch/shard.h"
#include "app/batch/batch_runner.h"
#include "app/library/library.h"
#include "tests/app/batch/batch_folder.h"
#include "tests/support/fixtures.h"

namespace precis::test {
namespace {

namespace fs = std::filesystem;

pid_t spawn_precis(const std::vector<std::string>& words, const fs::path& log) {
    const std::string binary = (binary_dir() / "bin/precis").string();
    const pid_t pid = ::fork();
    if (pid == 0) {
        std::freopen(log.c_str(), "a", stderr);
        std::vector<char*> argv{const_cast<char*>(binary.c_str())};
        for (const std::string& w : words) argv.push_back(const_cast<char*>(w.c_str()));
        argv.push_back(nullptr);
        ::execv(binary.c_str(), argv.data());
        ::_exit(127);
    }
    return pid;
}

// Items done so far, read as another process would (a shared, read-only connection).
int done_items(const fs::path& library) {
    sqlite3* db = nullptr;
    int done = 0;
    if (sqlite3_open_v2(library.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
        sqlite3_busy_timeout(db, 1000);
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(db, "SELECT count(*) FROM batch_items WHERE status = 'done'", -1, &st, nullptr) ==
                SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW)
            done = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return done;
}

TEST(ShardKill, AShardKilledWhileWritingIsIntactAndResumes) {
    const fs::path dir = scratch_dir("shard-kill"), folder = dir / "docs", shard = dir / "shard-1.db";
    // Long documents, so that the shard is still writing when it is killed.
    make_batch_folder(folder, 80, 0, false, 1200);
    const std::vector<std::string> command{"batch", folder.string(), "--shard", "1/2", "--library", shard.string(),
                                           "--method", "extractive", "--sentences", "3"};
    const pid_t pid = spawn_precis(command, dir / "run1.log");
    int done_at_kill = 0;
    for (int i = 0; i < 3000 && done_at_kill < 3; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        done_at_kill = done_items(shard);
    }
    ASSERT_EQ(::waitpid(pid, nullptr, WNOHANG), 0) << "the shard finished before it could be killed";
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status));

    QString root = QString::fromStdString(folder.string());
    const int shard_files = int(files_in_shard(list_documents(root, false), root, {1, 2}).size());
    int done_before_resume = 0;
    {
        Library lib(QString::fromStdString(shard.string()));  // opens: not damaged
        ASSERT_EQ(lib.batch_jobs().size(), 1);
        const BatchJobInfo job = lib.batch_jobs()[0];
        EXPECT_EQ(job.pending + job.done + job.failed, shard_files);
        EXPECT_GE(job.done, done_at_kill);
        EXPECT_LT(job.done, shard_files);
        done_before_resume = job.done;
        int summaries = 0;
        for (const DocumentListItem& d : lib.documents()) summaries += d.summary_count;
        EXPECT_EQ(summaries, job.done) << "a summary without its done item, or the other way round";
    }
    const pid_t again = spawn_precis(command, dir / "run2.log");
    ::waitpid(again, &status, 0);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    Library lib(QString::fromStdString(shard.string()));
    const BatchJobInfo job = lib.batch_jobs()[0];
    EXPECT_EQ(job.done, shard_files);
    EXPECT_EQ(job.pending, 0);
    int summaries = 0;
    for (const DocumentListItem& d : lib.documents()) summaries += d.summary_count;
    EXPECT_EQ(summaries, shard_files);
    std::ifstream log(dir / "run2.log");
    const std::string text((std::istreambuf_iterator<char>(log)), {});
    EXPECT_NE(text.find("resumed"), std::string::npos) << text;
    EXPECT_NE(text.find(std::to_string(done_before_resume) + " before"), std::string::npos) << text;
}

}  // namespace
}  // namespace precis::test
