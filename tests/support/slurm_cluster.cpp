#include "tests/support/slurm_cluster.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace precis::test {

namespace fs = std::filesystem;

namespace {

// Daemons live in sbin, which a non-login PATH may lack.
std::string find_program(const std::string& name) {
    std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
    path += ":/usr/sbin:/sbin:/usr/local/sbin";
    std::istringstream dirs(path);
    for (std::string dir; std::getline(dirs, dir, ':');) {
        const fs::path candidate = fs::path(dir) / name;
        if (!dir.empty() && ::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    }
    return {};
}

// A port nobody listens on now (the kernel's choice for port 0).
int free_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    socklen_t len = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    ::close(fd);
    return ntohs(addr.sin_port);
}

long memory_mb() {
    std::ifstream in("/proc/meminfo");
    std::string key;
    long kb = 0;
    while (in >> key >> kb)
        if (key == "MemTotal:") return kb / 1024;
    return 1024;
}

std::string host_name() {
    std::array<char, 256> name{};
    ::gethostname(name.data(), name.size() - 1);
    std::string s(name.data());
    return s.substr(0, s.find('.'));
}

}  // namespace

std::string SlurmCluster::missing_parts() {
    std::string missing;
    for (const char* p : {"munged", "mungekey", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol", "scancel"})
        if (find_program(p).empty()) missing += std::string(missing.empty() ? "" : ", ") + p;
    if (missing.empty()) return {};
    return "Slurm is not installed here (missing " + missing +
           "; packaging/install-deps.sh installs slurmctld, slurmd, slurm-client and munge)";
}

std::string SlurmCluster::run(const std::string& command_line, int* exit_code) {
    std::string out;
    FILE* p = ::popen((command_line + " 2>&1").c_str(), "r");
    if (!p) throw std::runtime_error("cannot run " + command_line);
    std::array<char, 4096> buf;
    while (size_t n = std::fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
    const int status = ::pclose(p);
    if (exit_code) *exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return out;
}

pid_t SlurmCluster::start(const std::vector<std::string>& argv, const fs::path& log) {
    const pid_t pid = ::fork();
    if (pid == 0) {
        const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
        ::dup2(fd, 1);
        ::dup2(fd, 2);
        std::vector<char*> args;
        for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        ::execv(args[0], args.data());
        ::_exit(127);
    }
    started_.push_back(pid);
    return pid;
}

void SlurmCluster::stop(pid_t pid) {
    ::kill(pid, SIGTERM);
    for (int i = 0; i < 100; ++i) {  // 10 s, then it is killed
        if (::waitpid(pid, nullptr, WNOHANG) == pid) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
}

std::string SlurmCluster::log_tail() const {
    std::string all;
    for (const char* name : {"munged.out", "slurmctld.log", "slurmd.log"}) {
        std::ifstream in(dir_ / name);
        std::stringstream ss;
        ss << in.rdbuf();
        const std::string s = ss.str();
        all += std::string("--- ") + name + "\n" + s.substr(s.size() > 2000 ? s.size() - 2000 : 0);
    }
    return all;
}

SlurmCluster::SlurmCluster(const fs::path& dir) : dir_(dir), conf_(dir / "slurm.conf") {
    for (const char* sub : {"munge", "state", "spool"}) fs::create_directories(dir_ / sub);
    fs::permissions(dir_ / "munge", fs::perms::owner_all, fs::perm_options::replace);
    const fs::path key = dir_ / "munge" / "munge.key", socket = dir_ / "munge" / "munge.sock";
    if (run(find_program("mungekey") + " -c -b 1024 -k " + key.string()).find("rror") != std::string::npos)
        throw std::runtime_error("mungekey could not write " + key.string());
    // --force: munged runs as root here, and its socket folder is private to root.
    start({find_program("munged"), "--foreground", "--force", "--key-file=" + key.string(), "--socket=" + socket.string(),
           "--pid-file=" + (dir_ / "munge" / "munged.pid").string(), "--seed-file=" + (dir_ / "munge" / "seed").string(),
           "--log-file=" + (dir_ / "munge" / "munged.log").string()},
          dir_ / "munged.out");
    for (int i = 0; i < 50 && !fs::exists(socket); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));

    cpus_ = int(std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN)));
    const std::string node = host_name();
    std::ofstream(conf_) << "ClusterName=precistest\n"
                         << "SlurmctldHost=" << node << "(127.0.0.1)\n"
                         << "SlurmctldPort=" << free_port() << "\nSlurmdPort=" << free_port() << "\n"
                         << "AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket=" << socket.string() << "\n"
                         << "SlurmUser=root\nSlurmdUser=root\n"
                         << "StateSaveLocation=" << (dir_ / "state").string() << "\n"
                         << "SlurmdSpoolDir=" << (dir_ / "spool").string() << "\n"
                         << "SlurmctldPidFile=" << (dir_ / "slurmctld.pid").string() << "\n"
                         << "SlurmdPidFile=" << (dir_ / "slurmd.pid").string() << "\n"
                         << "SlurmctldLogFile=" << (dir_ / "slurmctld.log").string() << "\n"
                         << "SlurmdLogFile=" << (dir_ / "slurmd.log").string() << "\n"
                         // No cgroups, accounting or MPI: a container or CI machine has none.
                         << "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nMpiDefault=none\n"
                         << "JobAcctGatherType=jobacct_gather/none\nAccountingStorageType=accounting_storage/none\n"
                         << "JobCompType=jobcomp/none\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
                         << "SchedulerType=sched/builtin\nSchedulerParameters=sched_interval=1\n"
                         // Ended jobs stay visible to scontrol for the whole test (no slurmdbd).
                         << "ReturnToService=2\nMinJobAge=3600\nKillWait=2\nInactiveLimit=0\n"
                         << "NodeName=" << node << " NodeAddr=127.0.0.1 CPUs=" << cpus_
                         << " RealMemory=" << memory_mb() / 2 << " State=UNKNOWN\n"
                         << "PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n";
    ::setenv("SLURM_CONF", conf_.c_str(), 1);
    start({find_program("slurmctld"), "-D", "-i", "-f", conf_.string()}, dir_ / "slurmctld.out");
    start({find_program("slurmd"), "-D", "-N", node, "-f", conf_.string()}, dir_ / "slurmd.out");
    for (int i = 0; i < 300; ++i) {  // 30 s
        const std::string state = run("sinfo -h -o %t");
        if (state.rfind("idle", 0) == 0 || state.rfind("mix", 0) == 0) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    const std::string why = log_tail();
    for (auto it = started_.rbegin(); it != started_.rend(); ++it) stop(*it);
    started_.clear();
    throw std::runtime_error("the test's Slurm cluster did not come up in 30 s:\n" + why);
}

SlurmCluster::~SlurmCluster() {
    // This cluster's jobs only: SLURM_CONF names our controller.
    if (const passwd* me = ::getpwuid(::getuid()); me && !started_.empty()) run(std::string("scancel --user=") + me->pw_name);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    for (auto it = started_.rbegin(); it != started_.rend(); ++it) stop(*it);
}

}  // namespace precis::test
