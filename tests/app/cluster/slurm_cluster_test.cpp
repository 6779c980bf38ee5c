// precis cluster on a real one-node Slurm cluster that this test starts and stops
// (tests/support/slurm_cluster.h): a 40-document folder (text, PDFs, one damaged PDF) in 4
// array tasks merges into one library with every good document summarized once and the
// damaged one failed with its reason; an array task cancelled mid-run (scancel), or whose
// precis is SIGKILLed while it writes its shard, resubmitted alone loses and doubles
// nothing. Skips, in one line, where Slurm is not installed.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <regex>
#include <thread>

#include "app/library/library.h"
#include "tests/app/batch/batch_folder.h"
#include "tests/support/fixtures.h"
#include "tests/support/slurm_cluster.h"

namespace precis::test {
namespace {

namespace fs = std::filesystem;

std::string quoted(const std::string& w) { return "'" + w + "'"; }

std::string precis(const std::vector<std::string>& words, int* code = nullptr) {
    std::string line = quoted((binary_dir() / "bin/precis").string());
    for (const std::string& w : words) line += " " + quoted(w);
    return SlurmCluster::run(line, code);
}

// The number after `label` at the start of a line of `text` ("array job 12"): the ids
// printed on stdout, not the same words inside a notice on stderr.
std::string number_after(const std::string& text, const std::string& label) {
    std::smatch m;
    if (std::regex_search(text, m, std::regex("(?:^|\n)" + label + " ([0-9]+)"))) return m[1];
    return {};
}

bool wait_until(const std::function<bool()>& done, int seconds, int poll_ms = 200) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (std::chrono::steady_clock::now() < end) {
        if (done()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(poll_ms));
    }
    return done();
}

// JobState of a job or of one array task ("12_3"), from the controller.
std::string job_state(const std::string& id) {
    std::smatch m;
    const std::string out = SlurmCluster::run("scontrol -o show job " + id);
    if (std::regex_search(out, m, std::regex("JobState=([A-Z_]+)"))) return m[1];
    return {};
}

int done_items(const fs::path& library) {
    sqlite3* db = nullptr;
    int done = 0;
    if (sqlite3_open_v2(library.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
        sqlite3_busy_timeout(db, 1000);
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(db, "SELECT count(*) FROM batch_items WHERE status = 'done'", -1, &st, nullptr) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW)
            done = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return done;
}

class SlurmClusterTest : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        skip_ = SlurmCluster::missing_parts();
        if (skip_.empty() && ::getuid() != 0) skip_ = "the test's Slurm cluster runs its daemons as root, and this is not root";
        if (!skip_.empty()) return;
        // Where precis cluster remembers job ids: this test's, not the user's.
        ::setenv("XDG_DATA_HOME", (scratch_dir("slurm-data") / "share").c_str(), 1);
        try {
            cluster_ = std::make_unique<SlurmCluster>(scratch_dir("slurm-cluster"));
        } catch (const std::exception& e) {
            failure_ = e.what();
        }
    }
    static void TearDownTestSuite() { cluster_.reset(); }
    void SetUp() override {
        if (!skip_.empty()) GTEST_SKIP() << skip_;
        ASSERT_TRUE(cluster_) << failure_;
    }

    static inline std::unique_ptr<SlurmCluster> cluster_;
    static inline std::string skip_, failure_;
};

TEST_F(SlurmClusterTest, FortyDocumentsInFourTasksMergeWithEveryGoodDocumentOnce) {
    const fs::path dir = scratch_dir("slurm-e2e"), docs = dir / "docs", out = dir / "merged.db";
    const BatchFolder made = make_batch_folder(docs, 30, 9, true);
    ASSERT_EQ(made.good() + 1, 40);
    int code = -1;
    const std::string submitted = precis({"cluster", "submit", docs.string(), "--library", out.string(), "--tasks", "4",
                                          "--method", "extractive", "--sentences", "2"},
                                         &code);
    ASSERT_EQ(code, 0) << submitted;
    const std::string array = number_after(submitted, "array job"), merge = number_after(submitted, "merge job");
    ASSERT_FALSE(array.empty() || merge.empty()) << submitted;
    EXPECT_NE(submitted.find("precis cluster status " + array), std::string::npos) << submitted;

    bool saw_tasks = false;
    std::string status;
    ASSERT_TRUE(wait_until([&] {
        status = precis({"cluster", "status", array});
        saw_tasks = saw_tasks || (status.find("task 0 (job " + array + "_0)") != std::string::npos &&
                                  status.find("task 3 (job " + array + "_3)") != std::string::npos);
        const std::string s = job_state(merge);
        return s == "COMPLETED" || s == "FAILED" || s == "CANCELLED";
    }, 150)) << status;
    EXPECT_EQ(job_state(merge), "COMPLETED") << status;
    EXPECT_TRUE(saw_tasks) << status;
    status = precis({"cluster", "status", array});
    EXPECT_NE(status.find("tasks: 4 COMPLETED"), std::string::npos) << status;
    EXPECT_NE(status.find("merge job " + merge + ": COMPLETED"), std::string::npos) << status;

    Library merged(QString::fromStdString(out.string()));
    const QVector<DocumentListItem> documents = merged.documents();
    EXPECT_EQ(documents.size(), made.good());
    for (const DocumentListItem& d : documents) EXPECT_EQ(d.summary_count, 1) << d.document.path.toStdString();
    const QVector<FailedBatchFile> failed = merged.failed_batch_files();
    ASSERT_EQ(failed.size(), 1);
    EXPECT_TRUE(failed[0].path.endsWith("damaged.pdf"));
    EXPECT_FALSE(failed[0].error.trimmed().isEmpty());

    // Merging again here (precis cluster merge: whatever shards exist) adds nothing.
    const std::string again = precis({"cluster", "merge", array}, &code);
    EXPECT_EQ(code, 0) << again;
    EXPECT_NE(again.find("merged 4 of 4 shards"), std::string::npos) << again;
    EXPECT_NE(again.find("0 documents and 0 summaries added"), std::string::npos) << again;

    // The script Slurm ran is the one kept beside the library.
    const fs::path script = dir / "merged-cluster" / "batch.sbatch";
    std::ifstream in(script);
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    EXPECT_NE(text.find("#SBATCH --array=0-3"), std::string::npos) << text;
    EXPECT_NE(text.find("--method extractive"), std::string::npos) << text;
    EXPECT_NE(SlurmCluster::run("scontrol -o show job " + array).find("Command=" + script.string()), std::string::npos);
}

// The precis process that writes `shard` (an array task's, started by this test's cluster).
pid_t process_writing(const fs::path& shard) {
    for (const auto& e : fs::directory_iterator("/proc")) {
        std::ifstream in(e.path() / "cmdline");
        std::string cmdline((std::istreambuf_iterator<char>(in)), {});
        std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
        if (cmdline.find(" batch ") != std::string::npos && cmdline.find(shard.string()) != std::string::npos)
            return pid_t(std::stol(e.path().filename().string()));
    }
    return 0;
}

// Task 1 of 2 is stopped mid-run, by scancel (`kill` false) or by SIGKILL sent to its
// precis process as a node's out-of-memory killer would (`kill` true), then resubmitted
// alone: the merge after it has every document once, and the merge that waited for the
// failed array never runs. `ended` is the state Slurm gives the stopped task, `exit` a
// part of the exit code precis cluster status reports for it ("code:signal").
void stop_task_then_resubmit(bool kill, const std::string& ended, const std::string& exit) {
    const fs::path dir = scratch_dir("slurm-stop"), docs = dir / "docs", out = dir / "merged.db";
    const BatchFolder made = make_batch_folder(docs, 60, 0, false, 1200);  // slow enough to cancel mid-run
    int code = -1;
    const std::string submitted = precis({"cluster", "submit", docs.string(), "--library", out.string(), "--tasks", "2",
                                          "--method", "extractive", "--sentences", "3"},
                                         &code);
    ASSERT_EQ(code, 0) << submitted;
    const std::string array = number_after(submitted, "array job"), merge = number_after(submitted, "merge job");
    const fs::path shard1 = dir / "merged-cluster" / "shards" / "shard-1.db";
    ASSERT_TRUE(wait_until([&] { return done_items(shard1) >= 2; }, 90, 20));
    ASSERT_EQ(job_state(array + "_1"), "RUNNING") << "task 1 finished before it could be cancelled";
    if (kill) {
        const pid_t pid = process_writing(shard1);
        ASSERT_GT(pid, 0) << "no precis process writes " << shard1;
        ::kill(pid, SIGKILL);
    } else {
        SlurmCluster::run("scancel " + array + "_1");
    }
    ASSERT_TRUE(wait_until([&] { return job_state(array + "_1") == ended && job_state(array + "_0") == "COMPLETED"; }, 90))
        << job_state(array + "_1");
    const std::string status = precis({"cluster", "status", array});
    EXPECT_NE(status.find("task 1 (job " + array + "_1): " + ended), std::string::npos) << status;
    EXPECT_NE(status.find("exit " + exit), std::string::npos) << status;
    EXPECT_NE(job_state(merge), "COMPLETED");  // afterok: it never merges an incomplete set

    const std::string again = precis({"cluster", "resubmit", array, "--task", "1"}, &code);
    ASSERT_EQ(code, 0) << again;
    const std::string merge2 = number_after(again, "merge job");
    ASSERT_FALSE(merge2.empty()) << again;
    ASSERT_TRUE(wait_until([&] {
        const std::string s = job_state(merge2);
        return s == "COMPLETED" || s == "FAILED" || s == "CANCELLED";
    }, 120))
        << again << precis({"cluster", "status", array}) << SlurmCluster::run("scontrol -o show job");
    EXPECT_EQ(job_state(merge2), "COMPLETED");
    EXPECT_NE(again.find("cancelled merge job " + merge), std::string::npos) << "the merge that can never run";

    Library merged(QString::fromStdString(out.string()));
    EXPECT_EQ(merged.documents().size(), made.good());
    for (const DocumentListItem& d : merged.documents()) EXPECT_EQ(d.summary_count, 1) << d.document.path.toStdString();
    int done = 0, pending = 0;
    for (const BatchJobInfo& j : merged.batch_jobs()) {
        done += j.done;
        pending += j.pending;
    }
    EXPECT_EQ(done, made.good());
    EXPECT_EQ(pending, 0);
}

TEST_F(SlurmClusterTest, ATaskCancelledMidRunAndResubmittedAloneLosesAndDoublesNothing) {
    stop_task_then_resubmit(false, "CANCELLED", "");
}

TEST_F(SlurmClusterTest, ATaskKilledWhileWritingItsShardResumesWhenResubmitted) {
    stop_task_then_resubmit(true, "FAILED", "0:9");
}

}  // namespace
}  // namespace precis::test
