// precis batch --shard on the command line: a shard needs its own --library, a library
// holding another shard of the folder is refused, and --shard-from-env reads the array
// runner's variables (the count given with --shard-count winning over Slurm's).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "tests/app/batch/batch_folder.h"
#include "tests/app/in_process_cli.h"
#include "tests/support/fixtures.h"

namespace precis::test {
namespace {

namespace fs = std::filesystem;

TEST(ShardCli, AShardNeedsItsOwnLibraryFile) {
    const fs::path dir = scratch_dir("shard-cli-own"), docs = dir / "docs";
    make_batch_folder(docs, 6, 0, false);
    CliResult r = run_cli_in_process({"batch", docs.string(), "--shard", "0/2", "--method", "extractive"});
    EXPECT_EQ(r.code, 2);
    EXPECT_TRUE(contains(r.err, "a shard needs its own --library file")) << r.err;

    const std::string lib = (dir / "a.db").string();
    r = run_cli_in_process({"batch", docs.string(), "--shard", "0/2", "--library", lib, "--method", "extractive"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(contains(r.err, "shard 0/2, batch job 1")) << r.err;
    r = run_cli_in_process({"batch", docs.string(), "--shard", "1/2", "--library", lib, "--method", "extractive"});
    EXPECT_EQ(r.code, 1);
    EXPECT_TRUE(contains(r.err, "already holds shard 0/2")) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;

    r = run_cli_in_process({"batch", docs.string(), "--shard", "2/2", "--library", lib});
    EXPECT_EQ(r.code, 1);
    EXPECT_TRUE(contains(r.err, "0 <= I < N")) << r.err;
}

TEST(ShardCli, ShardFromEnvironmentUsesTheGivenCountForATaskResubmittedAlone) {
    const fs::path dir = scratch_dir("shard-cli-env"), docs = dir / "docs";
    make_batch_folder(docs, 6, 0, false);
    ::setenv("SLURM_ARRAY_TASK_ID", "1", 1);
    ::setenv("SLURM_ARRAY_TASK_COUNT", "1", 1);  // what sbatch --array=1 tells the task
    const CliResult r = run_cli_in_process({"batch", docs.string(), "--shard-from-env", "--shard-count", "3", "--library",
                                            (dir / "s1.db").string(), "--method", "extractive"});
    ::unsetenv("SLURM_ARRAY_TASK_ID");
    ::unsetenv("SLURM_ARRAY_TASK_COUNT");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(contains(r.err, "shard 1/3, batch job 1")) << r.err;
}

}  // namespace
}  // namespace precis::test
