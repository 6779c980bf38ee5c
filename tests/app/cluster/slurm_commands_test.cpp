// What precis cluster reads from and writes for Slurm, without a cluster: the task states
// in squeue, sacct and scontrol output, the batch scripts, and the one sentence where no
// Slurm is installed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "app/cluster/sbatch_script.h"
#include "app/cluster/slurm.h"
#include "tests/app/in_process_cli.h"
#include "tests/support/fixtures.h"

namespace precis::test {
namespace {

using namespace precis::cluster;

TEST(SlurmCommands, ReadsTaskStatesFromSqueueSacctAndScontrol) {
    auto q = parse_squeue("0|RUNNING|None\n2|PENDING|Resources\n");
    ASSERT_EQ(q.size(), 2u);
    EXPECT_EQ(q[0].state, "RUNNING");
    EXPECT_EQ(q[2].reason, "Resources");

    auto a = parse_sacct("41_0|COMPLETED|0:0|None\n41_1|CANCELLED by 0|0:15|None\n41_[2-3]|PENDING|0:0|Dependency\n"
                         "410_1|FAILED|1:0|NonZeroExitCode\n",
                         "41");
    ASSERT_EQ(a.size(), 4u);  // 410_1 belongs to another job
    EXPECT_EQ(a[1].state, "CANCELLED");
    EXPECT_EQ(a[1].exit_code, "0:15");
    EXPECT_EQ(a[3].reason, "Dependency");
    EXPECT_EQ(parse_sacct("42|COMPLETED|0:0|None\n", "42").at(-1).state, "COMPLETED");

    auto c = parse_scontrol(
        "JobId=44 ArrayJobId=43 ArrayTaskId=1 JobName=precis-batch JobState=FAILED Reason=NonZeroExitCode ExitCode=1:0\n"
        "JobId=43 ArrayJobId=43 ArrayTaskId=2-3,5%2 JobState=PENDING Reason=Priority ExitCode=0:0\n");
    EXPECT_EQ(c[1].state, "FAILED");
    EXPECT_EQ(c[1].exit_code, "1:0");
    EXPECT_EQ(c[5].state, "PENDING");
    EXPECT_EQ(c[5].exit_code, "");
    EXPECT_EQ(c.size(), 4u);
    EXPECT_EQ(parse_task_list("0-2,7"), (std::vector<int>{0, 1, 2, 7}));
}

TEST(SlurmCommands, BatchScriptRunsOneShardPerTaskIntoItsOwnLibrary) {
    ClusterJob job;
    job.folder = "/shared/out-cluster";
    job.library = "/shared/out.db";
    job.documents = "/shared/the archive";
    job.tasks = 8;
    const std::string s = batch_script(job, {"gpu", "02:00:00", "8G", "4", "gpu:1"},
                                       {"--method", "neural", "--model", "/models/bart it's"}, "/opt/precis/bin/precis");
    for (const char* line : {"#SBATCH --array=0-7\n", "#SBATCH --partition=gpu\n", "#SBATCH --time=02:00:00\n",
                             "#SBATCH --mem=8G\n", "#SBATCH --cpus-per-task=4\n", "#SBATCH --gres=gpu:1\n",
                             "--shard \"${SLURM_ARRAY_TASK_ID}/8\"", "'/shared/the archive'",
                             "--library /shared/out-cluster/shards/shard-\"${SLURM_ARRAY_TASK_ID}\".db",
                             "--failed-files-ok --method neural --model '/models/bart it'\\''s'"})
        EXPECT_NE(s.find(line), std::string::npos) << line << "\n" << s;
    const std::string m = merge_script(job, {"gpu", "02:00:00", "8G", "4", "gpu:1"}, "/opt/precis/bin/precis");
    EXPECT_NE(m.find("library merge /shared/out.db \"${shards[@]}\""), std::string::npos) << m;
    EXPECT_EQ(m.find("--gres"), std::string::npos) << "the merge needs no GPU";
}

TEST(SlurmCommands, ClusterWithoutSlurmSaysSoInOneSentence) {
    const std::string old_path = std::getenv("PATH") ? std::getenv("PATH") : "";
    const auto empty = scratch_dir("no-slurm-path");
    ::setenv("PATH", empty.c_str(), 1);
    const auto docs = scratch_dir("no-slurm-docs");
    const CliResult r = run_cli_in_process({"cluster", "submit", docs.string(), "--library", (docs / "out.db").string(),
                                            "--tasks", "2", "--method", "extractive"});
    ::setenv("PATH", old_path.c_str(), 1);
    EXPECT_EQ(r.code, 1);
    EXPECT_TRUE(contains(r.err, "precis cluster needs Slurm, and sbatch is not on this machine's PATH")) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(std::filesystem::exists(docs / "out-cluster")) << "nothing is written when nothing can be submitted";
}

}  // namespace
}  // namespace precis::test
