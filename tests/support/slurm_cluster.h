#pragma once
// A real one-node Slurm cluster, started by a test and torn down by it: munged with its
// own key, socket and state, then slurmctld and slurmd (Debian 12's Slurm 22.05) as child
// processes, their state, spool and logs in a temporary folder, the controller and node
// ports free ones on 127.0.0.1. Nothing of the machine's own Slurm or munge is used or
// touched; SLURM_CONF is set in this process so that sbatch and friends (and the precis
// they run) talk to this cluster. Teardown cancels this cluster's jobs and stops only the
// processes this object started.
#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace precis::test {

class SlurmCluster {
public:
    // Empty when everything needed is installed, else one line saying what is missing.
    static std::string missing_parts();

    // Starts the cluster and waits until its node takes jobs; throws std::runtime_error
    // with the daemons' log tail when it does not come up.
    explicit SlurmCluster(const std::filesystem::path& dir);
    ~SlurmCluster();
    SlurmCluster(const SlurmCluster&) = delete;
    SlurmCluster& operator=(const SlurmCluster&) = delete;

    const std::filesystem::path& conf() const { return conf_; }
    int cpus() const { return cpus_; }

    // Runs a command with this cluster's SLURM_CONF; its stdout (stderr appended).
    static std::string run(const std::string& command_line, int* exit_code = nullptr);

private:
    pid_t start(const std::vector<std::string>& argv, const std::filesystem::path& log);
    void stop(pid_t pid);
    std::string log_tail() const;

    std::filesystem::path dir_, conf_;
    int cpus_ = 1;
    std::vector<pid_t> started_;  // in start order; stopped in reverse
};

}  // namespace precis::test
