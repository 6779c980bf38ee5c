#include "app/cluster/sbatch_script.h"

#include <QDateTime>

#include <fstream>

#include "engine/core/error.h"

namespace precis::cluster {

namespace fs = std::filesystem;

std::string shell_quote(const std::string& word) {
    if (!word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                                "_-./=:,+@%") == std::string::npos)
        return word;
    std::string quoted = "'";
    for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

namespace {

std::string now_utc() { return QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString(); }

// The #SBATCH lines both scripts share.
std::string resource_lines(const SlurmResources& r, bool array_task) {
    std::string s;
    if (!r.partition.empty()) s += "#SBATCH --partition=" + r.partition + "\n";
    if (!r.time.empty()) s += "#SBATCH --time=" + r.time + "\n";
    if (!array_task) return s;  // the merge needs one CPU, little memory and no GPU
    if (!r.mem.empty()) s += "#SBATCH --mem=" + r.mem + "\n";
    if (!r.cpus_per_task.empty()) s += "#SBATCH --cpus-per-task=" + r.cpus_per_task + "\n";
    if (!r.gres.empty()) s += "#SBATCH --gres=" + r.gres + "\n";
    return s;
}

}  // namespace

std::string batch_script(const ClusterJob& job, const SlurmResources& resources,
                         const std::vector<std::string>& batch_options, const fs::path& precis) {
    const std::string n = std::to_string(job.tasks);
    const std::string last = std::to_string(job.tasks - 1);
    std::string s = "#!/bin/bash\n";
    s += "# Written by precis cluster submit (" + now_utc() + "): summarizes\n#   " + job.documents.string() +
         "\n# in " + n + " shards, one array task each, into the library\n#   " + job.library.string() + "\n";
    s += "# Each task fills its own library (shards/shard-<task>.db; SQLite on a shared file system\n"
         "# must have one writer per file) and resumes it when requeued or run again. A file that\n"
         "# cannot be summarized is recorded there with its reason and does not fail the task.\n"
         "# Run all tasks again:  sbatch --array=0-" + last + " " + job.batch_script().string() +
         "\n# Run task I again:     precis cluster resubmit <array job id> --task I\n"
         "#                      (or sbatch --array=I this file, then sbatch merge.sbatch)\n";
    s += "#SBATCH --job-name=precis-batch\n";
    s += "#SBATCH --array=0-" + last + "\n";
    s += "#SBATCH --output=";
    s += (job.folder / "logs" / "task-%a.log").string();
    s += "\n";
    s += "#SBATCH --open-mode=append\n";  // a rerun's log follows the earlier one's
    s += "#SBATCH --requeue\n";
    s += resource_lines(resources, true);
    s += "set -euo pipefail\n\n";
    // The shard count is written here, not read from SLURM_ARRAY_TASK_COUNT: a task
    // submitted again alone is told a count of 1, which is not its split.
    s += "exec " + shell_quote(precis.string()) + " batch " + shell_quote(job.documents.string()) + " \\\n";
    s += "  --shard \"${SLURM_ARRAY_TASK_ID}/" + n + "\" \\\n";
    s += "  --library " + shell_quote((job.folder / "shards").string() + "/shard-") + "\"${SLURM_ARRAY_TASK_ID}\"" +
         shell_quote(".db") + " \\\n";
    s += "  --failed-files-ok";
    for (const std::string& o : batch_options) {
        s += ' ';  // appended apart: GCC 12 warns falsely on " " + string
        s += shell_quote(o);
    }
    return s + "\n";
}

std::string merge_script(const ClusterJob& job, const SlurmResources& resources, const fs::path& precis) {
    std::string s = "#!/bin/bash\n";
    s += "# Written by precis cluster submit (" + now_utc() + "): merges the shard libraries into\n#   " +
         job.library.string() + "\n";
    s += "# Merging is idempotent: run it again after resubmitting a task, or now to take in\n"
         "# whatever has finished:  sbatch " + job.merge_script().string() + "\n";
    s += "#SBATCH --job-name=precis-merge\n";
    s += "#SBATCH --output=" + job.merge_log().string() + "\n";
    s += "#SBATCH --open-mode=append\n";
    s += resource_lines(resources, false);
    s += "set -euo pipefail\nshopt -s nullglob\n\n";
    s += "shards=(" + shell_quote((job.folder / "shards").string()) + "/shard-*.db)\n";
    s += "if ((${#shards[@]} == 0)); then echo \"precis: no shard library to merge yet\" >&2; exit 1; fi\n";
    s += "exec " + shell_quote(precis.string()) + " library merge " + shell_quote(job.library.string()) +
         " \"${shards[@]}\"\n";
    return s;
}

void write_script(const fs::path& file, const std::string& text) {
    const fs::path tmp = file.string() + ".tmp";
    {
        std::ofstream out(tmp);
        out << text;
        if (!out) throw Error("cannot write the batch script " + tmp.string());
    }
    fs::permissions(tmp, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec, fs::perm_options::add);
    fs::rename(tmp, file);
}

}  // namespace precis::cluster
