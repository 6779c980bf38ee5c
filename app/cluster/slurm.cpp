#include "app/cluster/slurm.h"

#include <QProcess>
#include <QStandardPaths>
#include <QStringList>

#include <sstream>

#include "engine/core/error.h"

namespace precis::cluster {

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> parts;
    std::string part;
    std::istringstream in(s);
    while (std::getline(in, part, sep)) parts.push_back(part);
    return parts;
}

std::string trimmed(const std::string& s) { return QString::fromStdString(s).trimmed().toStdString(); }

std::string first_word(const std::string& s) { return s.substr(0, s.find(' ')); }

// "0-3,7%2" -> 0,1,2,3,7; a plain number -> itself; "N/A" (no array) -> -1.
std::vector<int> tasks_or_single(const std::string& text) {
    if (text.empty() || text == "N/A" || text == "(null)") return {-1};
    return parse_task_list(text);
}

}  // namespace

void require_slurm(const std::string& program) {
    if (QStandardPaths::findExecutable(QString::fromStdString(program)).isEmpty())
        throw Error("precis cluster needs Slurm, and " + program +
                    " is not on this machine's PATH (install Slurm's client commands, e.g. the slurm-client "
                    "package, or run precis batch --shard I/N on each machine and precis library merge)");
}

CommandResult run_command(const std::string& program, const std::vector<std::string>& args, int timeout_ms) {
    QProcess p;
    QStringList list;
    for (const std::string& a : args) list << QString::fromStdString(a);
    p.start(QString::fromStdString(program), list);
    if (!p.waitForStarted(10000)) throw Error("could not start " + program + ": " + p.errorString().toStdString());
    if (!p.waitForFinished(timeout_ms)) {
        p.kill();
        p.waitForFinished(2000);
        throw Error(program + " did not answer within " + std::to_string(timeout_ms / 1000) + " seconds");
    }
    CommandResult r;
    r.exit_code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput().toStdString();
    r.err = p.readAllStandardError().toStdString();
    return r;
}

std::string sbatch(const std::vector<std::string>& args) {
    std::vector<std::string> all{"--parsable"};
    all.insert(all.end(), args.begin(), args.end());
    const CommandResult r = run_command("sbatch", all);
    // --parsable prints "JOBID" or "JOBID;CLUSTER".
    const std::string id = trimmed(r.out.substr(0, r.out.find(';')));
    if (r.exit_code != 0 || id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
        throw Error("sbatch refused the job: " + trimmed(r.err.empty() ? r.out : r.err));
    return id;
}

std::vector<int> parse_task_list(const std::string& text) {
    std::vector<int> tasks;
    const std::string list = text.substr(0, text.find('%'));
    for (const std::string& part : split(list, ',')) {
        if (part.empty()) continue;
        try {
            const auto dash = part.find('-');
            const int first = std::stoi(part.substr(0, dash));
            const int last = dash == std::string::npos ? first : std::stoi(part.substr(dash + 1));
            for (int t = first; t <= last; ++t) tasks.push_back(t);
        } catch (const std::exception&) {
            // Not a task list (Slurm changed its format): nothing to report for it.
        }
    }
    return tasks;
}

std::map<int, TaskState> parse_squeue(const std::string& out) {
    std::map<int, TaskState> tasks;
    for (const std::string& line : split(out, '\n')) {
        const auto f = split(line, '|');
        if (f.size() < 3) continue;
        for (int t : tasks_or_single(trimmed(f[0]))) tasks[t] = {trimmed(f[1]), trimmed(f[2]), ""};
    }
    return tasks;
}

std::map<int, TaskState> parse_sacct(const std::string& out, const std::string& job_id) {
    std::map<int, TaskState> tasks;
    for (const std::string& line : split(out, '\n')) {
        const auto f = split(line, '|');
        if (f.size() < 4) continue;
        const std::string id = trimmed(f[0]);  // "123", "123_4", "123_[5-7]"
        std::string which = "N/A";
        if (id.rfind(job_id + "_", 0) == 0) {
            which = id.substr(job_id.size() + 1);
            if (!which.empty() && which.front() == '[') which = which.substr(1, which.find(']') - 1);
        } else if (id != job_id) {
            continue;
        }
        const std::string reason = trimmed(f[3]) == "None" ? "" : trimmed(f[3]);
        for (int t : tasks_or_single(which)) tasks[t] = {first_word(trimmed(f[1])), reason, trimmed(f[2])};
    }
    return tasks;
}

std::map<int, TaskState> parse_scontrol(const std::string& out) {
    std::map<int, TaskState> tasks;
    for (const std::string& line : split(out, '\n')) {
        std::map<std::string, std::string> kv;
        for (const std::string& word : split(line, ' ')) {
            const auto eq = word.find('=');
            if (eq != std::string::npos) kv[word.substr(0, eq)] = word.substr(eq + 1);
        }
        if (!kv.count("JobState")) continue;
        const std::string reason = kv["Reason"] == "None" ? "" : kv["Reason"];
        const bool ended = kv["JobState"] != "PENDING" && kv["JobState"] != "RUNNING";
        for (int t : tasks_or_single(kv["ArrayTaskId"])) tasks[t] = {kv["JobState"], reason, ended ? kv["ExitCode"] : ""};
    }
    return tasks;
}

std::map<int, TaskState> task_states(const std::string& job_id) {
    std::map<int, TaskState> tasks;
    // Ended tasks first, so that squeue's view of the live ones wins.
    const CommandResult acct =
        run_command("sacct", {"-n", "-P", "-X", "-j", job_id, "-o", "JobID,State,ExitCode,Reason"});
    if (acct.exit_code == 0) {
        tasks = parse_sacct(acct.out, job_id);
    } else {
        const CommandResult ctl = run_command("scontrol", {"-o", "show", "job", job_id});
        if (ctl.exit_code == 0) tasks = parse_scontrol(ctl.out);
    }
    const CommandResult queue = run_command("squeue", {"-h", "-r", "-j", job_id, "-o", "%K|%T|%r"});
    if (queue.exit_code == 0)
        for (auto& [t, s] : parse_squeue(queue.out)) tasks[t] = s;
    return tasks;
}

}  // namespace precis::cluster
