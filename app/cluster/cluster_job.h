#pragma once
// A cluster job's folder, kept beside the library it fills (OUT.db -> OUT-cluster/): the
// sbatch scripts a user can read, edit and submit again, the shard libraries, the task
// logs, and job.json, which records every submission (the first array, resubmitted
// tasks, merge jobs) so that `precis cluster status JOB` finds all of it from any id.
#include <filesystem>
#include <string>
#include <vector>

namespace precis::cluster {

struct Submission {
    std::string array_job;  // the array job id
    std::vector<int> tasks;  // the shards it runs
    std::string merge_job;  // the merge job that waits for it ("" when none)
};

struct ClusterJob {
    std::filesystem::path folder;     // absolute
    std::filesystem::path library;    // OUT, absolute
    std::filesystem::path documents;  // DIR, absolute
    int tasks = 0;
    std::vector<Submission> submissions;  // oldest first

    std::filesystem::path batch_script() const { return folder / "batch.sbatch"; }
    std::filesystem::path merge_script() const { return folder / "merge.sbatch"; }
    std::filesystem::path shard_library(int task) const;
    std::filesystem::path task_log(int task) const;
    std::filesystem::path merge_log() const { return folder / "logs" / "merge.log"; }

    // The submission that ran `task` last (resubmissions win); nullptr if none.
    const Submission* latest_for(int task) const;

    void save() const;  // job.json, replaced atomically
    static ClusterJob load(const std::filesystem::path& folder);  // throws Error naming job.json
};

// OUT.db -> OUT-cluster beside it.
std::filesystem::path cluster_folder_for(const std::filesystem::path& library);

// Remembers which folder a job id belongs to ($XDG_DATA_HOME/precis/cluster-jobs/ID), for
// `precis cluster status ID` from any directory.
void remember_job(const std::string& job_id, const std::filesystem::path& folder);

// A job id (remembered, else the folder of its script as scontrol tells it), a cluster
// folder, or the library OUT: the job's folder. Throws Error when none is found.
std::filesystem::path find_cluster_folder(const std::string& job_or_path);

}  // namespace precis::cluster
