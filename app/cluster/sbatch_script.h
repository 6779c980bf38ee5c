#pragma once
// The two batch scripts of a cluster job, written as a person would write them: #SBATCH
// lines for the resources, one precis command each, comments that say how to run them
// again. They are what gets submitted, and they stay in the job's folder.
#include <filesystem>
#include <string>
#include <vector>

#include "app/cluster/cluster_job.h"

namespace precis::cluster {

// What each array task asks Slurm for; empty strings are left to the cluster's defaults.
struct SlurmResources {
    std::string partition, time, mem, cpus_per_task, gres;
};

// One array task per shard: `precis batch DIR --shard $SLURM_ARRAY_TASK_ID/N` into the
// shard's own library. `batch_options` are passed on as given (--method, --sentences, ...).
std::string batch_script(const ClusterJob& job, const SlurmResources& resources,
                         const std::vector<std::string>& batch_options, const std::filesystem::path& precis);

// `precis library merge OUT` over the shard libraries that exist when it runs.
std::string merge_script(const ClusterJob& job, const SlurmResources& resources, const std::filesystem::path& precis);

// A word for bash: single-quoted unless it needs no quoting.
std::string shell_quote(const std::string& word);

// Writes `text` to `file`, executable, replacing it atomically.
void write_script(const std::filesystem::path& file, const std::string& text);

}  // namespace precis::cluster
