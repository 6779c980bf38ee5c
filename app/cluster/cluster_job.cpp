#include "app/cluster/cluster_job.h"

#include <fstream>

#include <nlohmann/json.hpp>

#include "app/cluster/slurm.h"
#include "app/paths.h"
#include "engine/core/error.h"

namespace precis::cluster {

namespace fs = std::filesystem;

fs::path ClusterJob::shard_library(int task) const { return folder / "shards" / ("shard-" + std::to_string(task) + ".db"); }
fs::path ClusterJob::task_log(int task) const { return folder / "logs" / ("task-" + std::to_string(task) + ".log"); }

const Submission* ClusterJob::latest_for(int task) const {
    for (auto it = submissions.rbegin(); it != submissions.rend(); ++it)
        for (int t : it->tasks)
            if (t == task) return &*it;
    return nullptr;
}

void ClusterJob::save() const {
    nlohmann::json j = {{"library", library.string()}, {"documents", documents.string()}, {"tasks", tasks}};
    j["submissions"] = nlohmann::json::array();
    for (const Submission& s : submissions)
        j["submissions"].push_back({{"array_job", s.array_job}, {"tasks", s.tasks}, {"merge_job", s.merge_job}});
    const fs::path file = folder / "job.json", tmp = folder / "job.json.tmp";
    {
        std::ofstream out(tmp);
        out << j.dump(2) << "\n";
        if (!out) throw Error("cannot write " + tmp.string());
    }
    fs::rename(tmp, file);  // a status read at the same moment sees the old or the new file
}

ClusterJob ClusterJob::load(const fs::path& folder) {
    const fs::path file = folder / "job.json";
    std::ifstream in(file);
    if (!in) throw Error(file.string() + " cannot be read: is " + folder.string() + " a precis cluster folder?");
    try {
        const nlohmann::json j = nlohmann::json::parse(in);
        ClusterJob job;
        job.folder = fs::absolute(folder);
        job.library = j.at("library").get<std::string>();
        job.documents = j.at("documents").get<std::string>();
        job.tasks = j.at("tasks").get<int>();
        for (const auto& s : j.at("submissions"))
            job.submissions.push_back({s.at("array_job").get<std::string>(), s.at("tasks").get<std::vector<int>>(),
                                       s.at("merge_job").get<std::string>()});
        return job;
    } catch (const nlohmann::json::exception& e) {
        throw Error(file.string() + " is damaged (" + e.what() + ")");
    }
}

fs::path cluster_folder_for(const fs::path& library) {
    const fs::path out = fs::absolute(library).lexically_normal();
    return out.parent_path() / (out.stem().string() + "-cluster");
}

namespace {

fs::path registry_dir() { return user_data_dir() / "cluster-jobs"; }

}  // namespace

void remember_job(const std::string& job_id, const fs::path& folder) {
    std::error_code ec;
    fs::create_directories(registry_dir(), ec);
    std::ofstream(registry_dir() / job_id) << folder.string() << "\n";  // best effort: scontrol is the fallback
}

fs::path find_cluster_folder(const std::string& job_or_path) {
    std::error_code ec;
    const fs::path given(job_or_path);
    if (fs::is_regular_file(given / "job.json", ec)) return fs::absolute(given);
    if (fs::is_regular_file(cluster_folder_for(given) / "job.json", ec)) return cluster_folder_for(given);
    if (job_or_path.find_first_not_of("0123456789") == std::string::npos && !job_or_path.empty()) {
        std::ifstream remembered(registry_dir() / job_or_path);
        std::string folder;
        if (remembered && std::getline(remembered, folder) && fs::is_regular_file(fs::path(folder) / "job.json", ec))
            return folder;
        // Another user's or another machine's submission: the script's folder, from Slurm.
        const CommandResult r = run_command("scontrol", {"-o", "show", "job", job_or_path});
        const auto at = r.out.find("Command=");
        if (r.exit_code == 0 && at != std::string::npos) {
            const fs::path script = r.out.substr(at + 8, r.out.find(' ', at) - at - 8);
            if (fs::is_regular_file(script.parent_path() / "job.json", ec)) return script.parent_path();
        }
    }
    throw Error("no precis cluster job '" + job_or_path +
                "' found: give the job id printed by precis cluster submit, its folder, or its --library file");
}

}  // namespace precis::cluster
