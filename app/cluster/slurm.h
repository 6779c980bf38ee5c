#pragma once
// Talking to Slurm through its own commands (sbatch, squeue, sacct, scontrol, scancel),
// as a user at a shell would: Precis links nothing of Slurm's and needs no daemon of its
// own, so any Slurm the user's `sbatch` reaches (SLURM_CONF included) is the one used.
#include <map>
#include <string>
#include <vector>

namespace precis::cluster {

struct CommandResult {
    int exit_code = -1;
    std::string out, err;
};

// Throws Error, one sentence, when `program` (e.g. "sbatch") is not on the PATH: this
// machine has no Slurm, and the sentence says what works without it.
void require_slurm(const std::string& program);

// Runs `program args...`, waiting at most `timeout_ms`; throws Error when it cannot start
// or does not finish in time.
CommandResult run_command(const std::string& program, const std::vector<std::string>& args, int timeout_ms = 60000);

// `sbatch --parsable args...`: the new job's id. Throws Error with sbatch's own message.
std::string sbatch(const std::vector<std::string>& args);

// What Slurm says about one task of an array job (task -1: a job that is not an array).
struct TaskState {
    std::string state;      // PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, TIMEOUT, ...
    std::string reason;     // why pending or why it ended, when Slurm gives one
    std::string exit_code;  // "1:0" (code:signal), empty while it runs
};

// The tasks of `job_id`: squeue for those pending or running, sacct for those that
// ended, and scontrol where sacct has no accounting to read (a cluster without slurmdbd
// keeps ended jobs for MinJobAge seconds only). Tasks Slurm no longer knows are absent.
std::map<int, TaskState> task_states(const std::string& job_id);

// Parsers of those commands' outputs, separate for the tests.
std::map<int, TaskState> parse_squeue(const std::string& out);     // -h -r -o %K|%T|%r
std::map<int, TaskState> parse_sacct(const std::string& out, const std::string& job_id);  // -n -P -X -o JobID,State,ExitCode,Reason
std::map<int, TaskState> parse_scontrol(const std::string& out);   // -o show job
// "0-3,7" as task ids; "%2" throttles are ignored.
std::vector<int> parse_task_list(const std::string& text);

}  // namespace precis::cluster
