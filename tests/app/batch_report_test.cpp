// A batch job's report stays true across cancel, resume and retry: every file of the job
// is counted once (done before, done now, failed before, failed now, not reached), earlier
// failures keep their reasons, and the library lists the failed files afterwards. Runs
// the job extractively (no model) through run_batch and through `precis batch` (in this
// process, and as a child process interrupted with Ctrl-C).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QCoreApplication>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/batch/batch_counts.h"
#include "app/batch/batch_runner.h"
#include "app/cli/commands.h"
#include "app/library/library.h"
#include "tests/app/in_process_cli.h"
#include "tests/support/fixtures.h"

namespace precis::test {
namespace {

namespace fs = std::filesystem;

void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

class BatchReportTest : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = scratch_dir("batch-report");
        folder_ = dir_ / "inbox";
        fs::create_directories(folder_);
        write(folder_ / "a-rivers.txt", "Rivers shape their valleys slowly. Floods spread silt over the plain. "
                                        "Farmers have valued that soil for thousands of years.");
        write(folder_ / "b-bread.md", "# Bread\n\nFlour, water, salt and time make bread. Knead it until smooth.");
        write(folder_ / "c-empty.txt", "   \n");
        write(folder_ / "d-broken.pdf", "this is not a PDF at all");
        library_path_ = QString::fromStdString((dir_ / "library.sqlite").string());
    }

    BatchReport run(bool retry_failed, int stop_after_files = -1) {
        Library library(library_path_);
        BatchOptions opts;
        opts.root = QString::fromStdString(folder_.string());
        opts.extractive = true;
        opts.retry_failed = retry_failed;
        int finished = 0;
        BatchCallbacks cb;
        cb.on_file_finished = [&](const QString&, bool, const QString&) { ++finished; };
        cb.run.should_abort = [&] { return stop_after_files >= 0 && finished >= stop_after_files; };
        return run_batch(library, nullptr, opts, cb);
    }

    fs::path dir_, folder_;
    QString library_path_;
};

TEST_F(BatchReportTest, CountsEveryFileOfTheJobAfterCancelResumeAndRetry) {
    // 1. Cancelled after the first file: the rest are "not reached", not silently absent.
    BatchReport r = run(false, 1);
    EXPECT_TRUE(r.cancelled);
    EXPECT_EQ(r.total, 4);
    EXPECT_EQ(r.done_now, 1);
    EXPECT_EQ(r.not_reached(), 3);
    EXPECT_EQ(batch_counts_text(batch_counts(r)), "4 files: 1 summarized (1 now), 3 not reached yet");

    // 2. Resumed: the rest run; two fail.
    r = run(false);
    EXPECT_TRUE(r.resumed);
    EXPECT_FALSE(r.cancelled);
    EXPECT_EQ(r.done_before, 1);
    EXPECT_EQ(r.done_now, 1);
    ASSERT_EQ(r.failures.size(), 2);
    EXPECT_EQ(batch_counts_text(batch_counts(r)), "4 files: 2 summarized (1 now, 1 before), 2 failed (2 now)");

    // 3. Resumed again without retrying: the two failures are still reported, with their reasons.
    const QString empty_reason = r.failures[0].reason;
    r = run(false);
    EXPECT_EQ(r.done_now, 0);
    EXPECT_TRUE(r.failures.isEmpty());
    ASSERT_EQ(r.failed_before.size(), 2);
    EXPECT_TRUE(r.failed_before[0].path.endsWith("c-empty.txt"));
    EXPECT_EQ(r.failed_before[0].reason, empty_reason);
    EXPECT_TRUE(r.failed_before[1].path.endsWith("d-broken.pdf"));
    EXPECT_FALSE(r.failed_before[1].reason.isEmpty());
    EXPECT_EQ(batch_counts_text(batch_counts(r)), "4 files: 2 summarized (2 before), 2 failed (2 before)");

    // 4. Retried after one file was fixed, cancelled before any retried file ran: the
    //    retried files keep their old reasons in the library.
    write(folder_ / "c-empty.txt", "The empty file now has a sentence about tides, which rise twice a day.");
    r = run(true, 0);
    EXPECT_TRUE(r.cancelled);
    EXPECT_EQ(r.retried, 2);
    EXPECT_EQ(r.not_reached(), 2);
    {
        Library library(library_path_);
        const QVector<BatchItem> items = library.batch_items(r.job_id);
        ASSERT_EQ(items.size(), 4);
        EXPECT_EQ(items[2].status, BatchItemStatus::Pending);
        EXPECT_EQ(items[2].error, empty_reason);
    }

    // 5. The retry runs: one now succeeds, one fails again.
    r = run(true);
    EXPECT_EQ(r.done_before, 2);
    EXPECT_EQ(r.done_now, 1);
    ASSERT_EQ(r.failures.size(), 1);
    EXPECT_TRUE(r.failures[0].path.endsWith("d-broken.pdf"));
    EXPECT_TRUE(r.failed_before.isEmpty());
    EXPECT_EQ(batch_counts_text(batch_counts(r)), "4 files: 3 summarized (1 now, 2 before), 1 failed (1 now)");

    // The library lists the file that is still failed, with its reason and its job's folder.
    Library library(library_path_);
    const QVector<FailedBatchFile> failed = library.failed_batch_files();
    ASSERT_EQ(failed.size(), 1);
    EXPECT_TRUE(failed[0].path.endsWith("d-broken.pdf"));
    EXPECT_FALSE(failed[0].error.isEmpty());
    EXPECT_EQ(failed[0].root.toStdString(), folder_.string());
    EXPECT_EQ(failed[0].job_id, r.job_id);
}

TEST_F(BatchReportTest, CliReportKeepsEarlierFailuresAndSaysHowToRetry) {
    int argc = 1;
    char name[] = "precis";
    char* argv[] = {name, nullptr};
    std::unique_ptr<QCoreApplication> app;
    if (!QCoreApplication::instance()) app = std::make_unique<QCoreApplication>(argc, argv);
    const std::string lib = library_path_.toStdString();
    const std::vector<std::string> batch{"batch", folder_.string(), "--method", "extractive", "--library", lib};

    CliResult r = run_cli_in_process(batch);
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_TRUE(contains(r.err, "4 files: 2 summarized (2 now), 2 failed (2 now)")) << r.err;

    // Resumed: nothing new runs, but the report still counts the two failures and their reasons.
    r = run_cli_in_process(batch);
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_TRUE(contains(r.err, "(resumed)")) << r.err;
    EXPECT_TRUE(contains(r.err, "4 files: 2 summarized (2 before), 2 failed (2 before)")) << r.err;
    EXPECT_TRUE(contains(r.err, "failed (earlier run): " + (folder_ / "c-empty.txt").string())) << r.err;
    EXPECT_TRUE(contains(r.err, "failed (earlier run): " + (folder_ / "d-broken.pdf").string())) << r.err;
    EXPECT_TRUE(contains(r.err, "with --retry-failed")) << r.err;

    // The library lists them later.
    CliResult list = run_cli_in_process({"library", "list", "--failed", "--library", lib});
    EXPECT_EQ(list.code, 0) << list.err;
    EXPECT_TRUE(contains(list.out, (folder_ / "c-empty.txt").string())) << list.out;
    EXPECT_TRUE(contains(list.out, (folder_ / "d-broken.pdf").string())) << list.out;
    EXPECT_TRUE(contains(list.err, "--retry-failed")) << list.err;

    // Retried after fixing one: one succeeds, one fails anew; exit 1 while any file is failed.
    write(folder_ / "c-empty.txt", "The empty file now has a sentence about tides, which rise twice a day.");
    std::vector<std::string> retry = batch;
    retry.push_back("--retry-failed");
    r = run_cli_in_process(retry);
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_TRUE(contains(r.err, "4 files: 3 summarized (1 now, 2 before), 1 failed (1 now)")) << r.err;
    EXPECT_TRUE(contains(r.err, "2 files that failed before tried again")) << r.err;
    list = run_cli_in_process({"library", "list", "--failed", "--library", lib});
    EXPECT_FALSE(contains(list.out, "c-empty.txt")) << list.out;
    EXPECT_TRUE(contains(list.out, "d-broken.pdf")) << list.out;
}

// A document big enough that summarizing it takes a good part of a second, so a Ctrl-C
// sent when the file before it is done lands while it runs.
std::string long_document() {
    static const char* const words[] = {"river", "valley", "flood", "silt", "plain", "farmer", "soil", "water",
                                        "rain", "stream", "town", "bridge", "ferry", "harbour", "delta", "stone"};
    std::string text;
    unsigned state = 12345;
    for (int sentence = 0; sentence < 20000; ++sentence) {
        const int length = 8 + int(state % 12);
        for (int w = 0; w < length; ++w) {
            state = state * 1103515245u + 12345u;
            text += words[(state >> 16) % 16];
            text += w + 1 < length ? " " : ". ";
        }
    }
    return text;
}

// `precis batch` as a child process; sends it SIGINT (Ctrl-C) once it reports its first
// file done. Returns the exit status and everything it wrote on stderr.
std::pair<int, std::string> batch_interrupted_after_first_file(const std::vector<std::string>& args) {
    int pipe_fds[2];
    if (pipe(pipe_fds) != 0) return {-1, "pipe failed"};
    const std::string binary = (binary_dir() / "bin/precis").string();
    std::vector<std::string> words{binary};
    words.insert(words.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(pipe_fds[1], 2);
        close(pipe_fds[0]);
        close(pipe_fds[1]);
        execv(binary.c_str(), argv.data());
        _exit(127);
    }
    close(pipe_fds[1]);
    FILE* err = fdopen(pipe_fds[0], "r");
    std::string all;
    bool interrupted = false;
    char* line = nullptr;
    size_t capacity = 0;
    while (getline(&line, &capacity, err) > 0) {
        all += line;
        if (!interrupted && std::string(line).find("] done ") != std::string::npos) {
            kill(pid, SIGINT);
            interrupted = true;
        }
    }
    free(line);
    fclose(err);
    int status = 0;
    waitpid(pid, &status, 0);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, all};
}

TEST_F(BatchReportTest, CliReportAfterCtrlCResumeAndRetryCountsEveryFile) {
    int argc = 1;
    char name[] = "precis";
    char* argv[] = {name, nullptr};
    std::unique_ptr<QCoreApplication> app;
    if (!QCoreApplication::instance()) app = std::make_unique<QCoreApplication>(argc, argv);
    // a: small (done first); b, c: long (Ctrl-C lands in one of them); d: not a PDF.
    fs::remove(folder_ / "b-bread.md");
    fs::remove(folder_ / "c-empty.txt");
    write(folder_ / "b-long.txt", long_document());
    write(folder_ / "c-long.txt", long_document() + " The end.");
    const std::string lib = library_path_.toStdString();
    const std::vector<std::string> batch{"batch", folder_.string(), "--method", "extractive", "--library", lib};

    auto [code, err] = batch_interrupted_after_first_file(batch);
    EXPECT_EQ(code, 130) << err;
    EXPECT_TRUE(contains(err, "cancelled: run the same command again to resume")) << err;
    // The long files and the broken one were not reached (a Ctrl-C'd file stays to do).
    EXPECT_TRUE(contains(err, "4 files: 1 summarized (1 now), 3 not reached yet")) << err;

    // Resumed: the rest run; the broken file fails.
    CliResult r = run_cli_in_process(batch);
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_TRUE(contains(r.err, "4 files: 3 summarized (2 now, 1 before), 1 failed (1 now)")) << r.err;

    // Retried after the file changed: it fails anew, with its new reason, and the report
    // still covers the whole job.
    write(folder_ / "d-broken.pdf", "");
    std::vector<std::string> retry = batch;
    retry.push_back("--retry-failed");
    r = run_cli_in_process(retry);
    EXPECT_EQ(r.code, 1) << r.err;  // an empty file fails too, with its own reason
    EXPECT_TRUE(contains(r.err, "4 files: 3 summarized (3 before), 1 failed (1 now)")) << r.err;
    EXPECT_TRUE(contains(r.err, "is empty")) << r.err;
}

}  // namespace
}  // namespace precis::test
