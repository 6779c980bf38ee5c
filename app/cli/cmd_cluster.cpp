// precis cluster submit|status|resubmit|merge: a batch folder as a Slurm job array, one
// shard per task (app/batch/shard.h), and a merge job that fills the library the desktop
// opens (app/library/library_merge.h). Slurm is driven through its own commands
// (app/cluster/slurm.h); the job's scripts and shard libraries live beside the library
// (app/cluster/cluster_job.h).
#include <filesystem>
#include <iostream>

#include "app/batch/shard.h"
#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "app/cli/method_flags.h"
#include "app/cli/run_settings.h"
#include "app/cluster/cluster_job.h"
#include "app/cluster/sbatch_script.h"
#include "app/cluster/slurm.h"
#include "app/file_names.h"
#include "app/library/library.h"
#include "app/library/library_merge.h"
#include "app/paths.h"
#include "engine/core/error.h"

namespace precis::cli {

namespace {

namespace fs = std::filesystem;
using namespace precis::cluster;

// Options of cluster submit itself; everything else is passed on to each task's precis batch.
const std::set<std::string> kSubmitOptions{"--library", "--tasks", "--partition", "--time",
                                           "--mem", "--cpus-per-task", "--gres", "--merge-after"};

std::set<std::string> batch_options() {
    auto options = summarize_option_names();
    options.merge(method_option_names());
    options.insert({"--classifier", "--labels", "--threshold", "--long"});
    return options;
}

std::set<std::string> batch_flags() {
    auto flags = generation_flag_names();
    flags.insert({"--recursive", "--retry-failed", "--multi-label"});
    return flags;
}

// The arguments for each task's precis batch: the caller's summarize options as given,
// with the method settled here, so that every task makes the same kind of summary, and a
// model named by name passed as its folder, read in place from the shared file system.
std::vector<std::string> options_for_tasks(const Args& raw, const Arguments& args) {
    std::vector<std::string> forwarded;
    const auto options = batch_options();
    for (size_t i = 0; i < raw.size(); ++i) {
        const std::string& a = raw[i];
        if (a.rfind("--", 0) != 0) continue;  // the folder
        const std::string name = a.substr(0, a.find('='));
        const bool takes_value = (options.count(name) || kSubmitOptions.count(name)) && a.find('=') == std::string::npos;
        const bool keep = !kSubmitOptions.count(name) && name != "--method" && name != "--model";
        if (keep) forwarded.push_back(a);
        if (takes_value && i + 1 < raw.size()) {
            if (keep) forwarded.push_back(raw[i + 1]);
            ++i;
        }
    }
    const MethodChoice choice = choose_method(args);
    if (choice.method == SummaryMethod::Neural) {
        forwarded.insert(forwarded.end(), {"--method", "neural", "--model", fs::absolute(choice.model->dir).string()});
    } else {
        if (!choice.notice.empty()) std::cerr << "precis: " << choice.notice << "\n";
        forwarded.insert(forwarded.end(), {"--method", "extractive"});
    }
    return forwarded;
}

void print_submitted(const ClusterJob& job, const Submission& s) {
    std::cout << "array job " << s.array_job << " (" << s.tasks.size() << " task" << (s.tasks.size() == 1 ? "" : "s")
              << ")\nmerge job " << s.merge_job << " (into " << job.library.string() << ")\n";
    std::cerr << "precis: batch script " << job.batch_script().string() << "\n"
              << "precis: watch with: precis cluster status " << s.array_job << "   (or: squeue -r -j " << s.array_job
              << "," << s.merge_job << ")\n";
}

std::string merge_dependency(const std::string& when, const std::string& array_job) {
    if (when != "ok" && when != "any") throw UsageError("--merge-after must be ok or any, not '" + when + "'");
    // afterok: only a complete set is merged; afterany: whatever finished, even when tasks failed.
    return "--dependency=after" + when + ":" + array_job;
}

// Submits the merge job after the array `s` holds, and records both: in the job's folder,
// among the jobs status can find by id, and on standard output.
void record_submission(ClusterJob& job, Submission s, const std::string& merge_after) {
    s.merge_job = sbatch({merge_dependency(merge_after, s.array_job), job.merge_script().string()});
    job.submissions.push_back(s);
    job.save();
    remember_job(s.array_job, job.folder);
    remember_job(s.merge_job, job.folder);
    print_submitted(job, s);
}

int submit(const Args& raw) {
    auto options = batch_options();
    options.insert(kSubmitOptions.begin(), kSubmitOptions.end());
    Arguments args("cluster submit", raw, batch_flags(), options);
    if (args.positional().size() != 2) throw UsageError("precis cluster submit needs exactly one folder");
    const auto library = args.value("--library");
    const auto tasks = args.int_value("--tasks");
    if (!library || !tasks) throw UsageError("precis cluster submit needs --library OUT.db and --tasks N");
    if (*tasks < 1 || *tasks > kMaxShards) throw Error("--tasks must be between 1 and " + std::to_string(kMaxShards));
    std::error_code ec;
    const fs::path documents = fs::absolute(args.positional()[1]).lexically_normal();
    if (!fs::is_directory(documents, ec)) throw Error("batch folder " + documents.string() + " does not exist or is not a folder");
    const std::vector<std::string> task_options = options_for_tasks(raw, args);
    require_slurm("sbatch");

    ClusterJob job;
    job.library = fs::absolute(*library).lexically_normal();
    job.folder = cluster_folder_for(job.library);
    job.documents = documents;
    job.tasks = *tasks;
    if (fs::exists(job.folder / "job.json", ec)) {
        // The same job submitted again resumes its shards; another split would mix them.
        ClusterJob earlier = ClusterJob::load(job.folder);
        if (earlier.tasks != job.tasks || earlier.documents != job.documents)
            throw Error(job.folder.string() + " holds a job over " + earlier.documents.string() + " in " +
                        std::to_string(earlier.tasks) + " tasks; use another --library, or remove that folder");
        job.submissions = earlier.submissions;
    }
    fs::create_directories(job.folder / "shards");
    fs::create_directories(job.folder / "logs");
    SlurmResources resources{args.value_or("--partition", ""), args.value_or("--time", ""), args.value_or("--mem", ""),
                             args.value_or("--cpus-per-task", ""), args.value_or("--gres", "")};
    const fs::path precis = executable_path();
    write_script(job.batch_script(), batch_script(job, resources, task_options, precis));
    write_script(job.merge_script(), merge_script(job, resources, precis));

    Submission s;
    s.array_job = sbatch({job.batch_script().string()});
    for (int t = 0; t < job.tasks; ++t) s.tasks.push_back(t);
    record_submission(job, s, args.value_or("--merge-after", "ok"));
    return 0;
}

bool ended_badly(const std::string& state) {
    return state != "PENDING" && state != "RUNNING" && state != "COMPLETED" && state != "COMPLETING" &&
           state != "CONFIGURING" && state != "REQUEUED" && state != "SUSPENDED" && !state.empty();
}

// "12/25 done, 1 failed" from the shard's own library: what the task has written so far.
std::string shard_progress(const ClusterJob& job, int task) {
    std::error_code ec;
    const fs::path file = job.shard_library(task);
    if (!fs::exists(file, ec)) return "not started";
    try {
        Library shard(path_from_fs(file));
        int done = 0, failed = 0, total = 0;
        for (const BatchJobInfo& j : shard.batch_jobs()) {
            done += j.done;
            failed += j.failed;
            total += j.pending + j.done + j.failed;
        }
        return std::to_string(done) + "/" + std::to_string(total) + " done" +
               (failed ? ", " + std::to_string(failed) + " failed" : std::string());
    } catch (const LibraryError& e) {
        return e.what();
    }
}

int status(const Args& raw) {
    Arguments args("cluster status", raw, {}, {});
    if (args.positional().size() != 2) throw UsageError("precis cluster status needs the job id (or its folder)");
    require_slurm("squeue");
    const ClusterJob job = ClusterJob::load(find_cluster_folder(args.positional()[1]));
    std::map<std::string, std::map<int, TaskState>> states;  // by array job id
    for (const Submission& s : job.submissions) states[s.array_job] = task_states(s.array_job);
    std::map<std::string, int> counts;
    std::cout << "precis cluster job in " << job.folder.string() << ": " << job.tasks << " tasks over "
              << job.documents.string() << "\n";
    for (int t = 0; t < job.tasks; ++t) {
        const Submission* s = job.latest_for(t);
        const auto& known = s ? states[s->array_job] : std::map<int, TaskState>{};
        const auto it = known.find(t);
        const TaskState state = it != known.end() ? it->second : TaskState{"ENDED", "Slurm no longer lists it", ""};
        ++counts[state.state];
        std::cout << "  task " << t << " (job " << (s ? s->array_job + "_" + std::to_string(t) : "?") << "): " << state.state;
        if (!state.reason.empty()) std::cout << " (" << state.reason << ")";
        if (ended_badly(state.state) && !state.exit_code.empty()) std::cout << " exit " << state.exit_code;
        std::cout << "; shard " << shard_progress(job, t) << "\n";
    }
    std::cout << "tasks:";
    for (const auto& [state, n] : counts) std::cout << " " << n << " " << state;
    std::cout << "\n";
    if (!job.submissions.empty() && !job.submissions.back().merge_job.empty()) {
        const std::string merge = job.submissions.back().merge_job;
        const auto m = task_states(merge);
        const TaskState st = m.count(-1) ? m.at(-1) : TaskState{"ENDED", "Slurm no longer lists it", ""};
        std::cout << "merge job " << merge << ": " << st.state << (st.reason.empty() ? "" : " (" + st.reason + ")")
                  << (ended_badly(st.state) ? ", see " + job.merge_log().string() : "") << "\n";
    }
    for (const auto& [state, n] : counts)
        if (ended_badly(state)) {
            std::cout << "to run a failed task again: precis cluster resubmit " << job.submissions.front().array_job
                      << " --task I (its log: " << (job.folder / "logs").string() << "/task-I.log)\n";
            break;
        }
    return 0;
}

int resubmit(const Args& raw) {
    Arguments args("cluster resubmit", raw, {}, {"--task", "--merge-after"});
    if (args.positional().size() != 2) throw UsageError("precis cluster resubmit needs the job id (or its folder)");
    const auto tasks_text = args.value("--task");
    if (!tasks_text) throw UsageError("precis cluster resubmit needs --task I (or I,J or I-J)");
    require_slurm("sbatch");
    ClusterJob job = ClusterJob::load(find_cluster_folder(args.positional()[1]));
    Submission s;
    s.tasks = parse_task_list(*tasks_text);
    if (s.tasks.empty()) throw UsageError("--task '" + *tasks_text + "' names no task");
    for (int t : s.tasks)
        if (t < 0 || t >= job.tasks)
            throw Error("job " + args.positional()[1] + " has tasks 0 to " + std::to_string(job.tasks - 1) + ", not " +
                        std::to_string(t));
    // The merge that waited for the failed array can never run now: cancel it if it waits.
    if (!job.submissions.empty() && !job.submissions.back().merge_job.empty()) {
        const std::string old = job.submissions.back().merge_job;
        const auto m = task_states(old);
        if (m.count(-1) && m.at(-1).state == "PENDING") {
            run_command("scancel", {old});
            std::cerr << "precis: cancelled merge job " << old << ", which waited for the failed tasks\n";
        }
    }
    // The script's own --array is overridden; it keeps the shard count, so the task
    // resumes its own shard library.
    s.array_job = sbatch({"--array=" + *tasks_text, job.batch_script().string()});
    record_submission(job, s, args.value_or("--merge-after", "ok"));
    return 0;
}

// Merges here and now whatever shards can be merged, reporting the ones that cannot.
int merge_now(const Args& raw) {
    Arguments args("cluster merge", raw, {}, {});
    if (args.positional().size() != 2) throw UsageError("precis cluster merge needs the job id (or its folder)");
    const ClusterJob job = ClusterJob::load(find_cluster_folder(args.positional()[1]));
    QStringList ready;
    int refused = 0;
    for (int t = 0; t < job.tasks; ++t) {
        std::error_code ec;
        const QString shard = path_from_fs(job.shard_library(t));
        if (!fs::exists(job.shard_library(t), ec)) {
            std::cerr << "precis: task " << t << " has not started: nothing of it to merge\n";
            continue;
        }
        try {
            check_mergeable(shard);
            ready << shard;
        } catch (const LibraryError& e) {
            std::cerr << "precis: " << e.what() << "\n";
            ++refused;
        }
    }
    if (ready.isEmpty()) throw Error("no shard of " + job.folder.string() + " can be merged yet");
    const MergeCounts c = merge_libraries(path_from_fs(job.library), ready);
    std::cerr << "precis: merged " << ready.size() << " of " << job.tasks << " shards into " << job.library.string()
              << ": " << c.documents_added << " documents and " << c.summaries_added << " summaries added\n";
    return refused == 0 ? 0 : 1;
}

}  // namespace

int cmd_cluster(const Args& raw) {
    const std::string sub = first_positional(raw, {"--library", "--tasks", "--partition", "--time", "--mem",
                                                   "--cpus-per-task", "--gres", "--merge-after", "--task"});
    if (sub == "submit") return submit(raw);
    if (sub == "status") return status(raw);
    if (sub == "resubmit") return resubmit(raw);
    if (sub == "merge") return merge_now(raw);
    Arguments help("cluster", raw, {}, {});  // --help shows the usage
    throw UsageError("precis cluster needs submit DIR, status JOB, resubmit JOB --task I or merge JOB");
}

}  // namespace precis::cli
