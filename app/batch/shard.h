#pragma once
// Which share of a batch folder one array task summarizes (`precis batch DIR --shard I/N`).
//
// A file belongs to shard hash(path relative to DIR) mod N, and nothing else decides it:
// the split is the same on every rerun, whatever order the file system lists the folder
// in, and adding or removing a file never moves another file to another shard (a task
// that is requeued finds exactly the files it had). Balance is statistical: with n files
// every shard gets about n/N files and, because the hash ignores sizes, about 1/N of the
// bytes; tests/app/batch/shard_test.cpp states the bound measured on the corpus. A
// balancer that looked at sizes would have to look at the other files too, and then an
// added file could move files between shards.
#include <QString>
#include <QStringList>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace precis {

struct ShardSpec {
    int index = 0;  // 0 .. count-1
    int count = 1;
    QString text() const { return QStringLiteral("%1/%2").arg(index).arg(count); }
};

// The largest N accepted: more tasks than this is a typo, not a cluster.
inline constexpr int kMaxShards = 100000;

// "I/N"; throws Error naming the text when it is not two integers with 0 <= I < N.
ShardSpec parse_shard(const std::string& text);

// The shard an array runner gives this process, from its environment (`getenv` is
// std::getenv outside tests):
//   Slurm:      SLURM_ARRAY_TASK_ID, and the count from `count` or SLURM_ARRAY_TASK_COUNT
//   Kubernetes: JOB_COMPLETION_INDEX (an Indexed Job), the count from `count` or
//               PRECIS_SHARD_COUNT (Kubernetes does not tell a pod how many there are)
// `count` wins over the environment's: a task resubmitted alone (sbatch --array=3) is told
// SLURM_ARRAY_TASK_COUNT=1, which is not the split it belongs to. Throws Error saying
// which variable is missing.
ShardSpec shard_from_environment(std::optional<int> count,
                                 const std::function<const char*(const char*)>& getenv);

// The 64-bit FNV-1a hash of the bytes, mixed (splitmix64's finalizer) so that names that
// differ in one character still land far apart. Fixed forever: changing it would move
// every file of a running job to another shard.
uint64_t shard_hash(std::string_view bytes);

// The shard of a file whose path relative to the batch folder is `relative` ('/'-separated
// native bytes).
int shard_of(std::string_view relative, int count);

// The files of `files` (absolute, under `root`) that belong to `shard`, in their order.
QStringList files_in_shard(const QStringList& files, const QString& root, const ShardSpec& shard);

}  // namespace precis
