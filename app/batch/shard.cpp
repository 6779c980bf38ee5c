#include "app/batch/shard.h"

#include <charconv>
#include <cstdlib>

#include "app/file_names.h"
#include "engine/core/error.h"

namespace precis {

namespace {

std::optional<int> parse_int(std::string_view s) {
    int v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
    return v;
}

ShardSpec checked(std::optional<int> index, std::optional<int> count, const std::string& shown) {
    if (!index || !count || *count < 1 || *count > kMaxShards || *index < 0 || *index >= *count)
        throw Error("shard " + shown + " is not I/N with 0 <= I < N <= " + std::to_string(kMaxShards) +
                    " (e.g. --shard 0/4 for the first of four)");
    return {*index, *count};
}

}  // namespace

ShardSpec parse_shard(const std::string& text) {
    const auto slash = text.find('/');
    if (slash == std::string::npos) return checked(std::nullopt, std::nullopt, "'" + text + "'");
    const std::string_view s(text);
    return checked(parse_int(s.substr(0, slash)), parse_int(s.substr(slash + 1)), "'" + text + "'");
}

ShardSpec shard_from_environment(std::optional<int> count, const std::function<const char*(const char*)>& getenv) {
    auto read = [&](const char* name) -> std::optional<std::string> {
        const char* v = getenv(name);
        if (!v || !*v) return std::nullopt;
        return std::string(v);
    };
    auto number = [&](const char* name, const std::string& v) {
        auto n = parse_int(v);
        if (!n) throw Error(std::string(name) + " is '" + v + "', not a number");
        return *n;
    };
    if (auto id = read("SLURM_ARRAY_TASK_ID")) {
        const int index = number("SLURM_ARRAY_TASK_ID", *id);
        if (!count) {
            auto n = read("SLURM_ARRAY_TASK_COUNT");
            if (!n) throw Error("--shard-from-env found SLURM_ARRAY_TASK_ID but not SLURM_ARRAY_TASK_COUNT; give --shard-count N");
            count = number("SLURM_ARRAY_TASK_COUNT", *n);
        }
        return checked(index, count, "from SLURM_ARRAY_TASK_ID " + *id + " of " + std::to_string(*count));
    }
    if (auto id = read("JOB_COMPLETION_INDEX")) {
        const int index = number("JOB_COMPLETION_INDEX", *id);
        if (!count) {
            auto n = read("PRECIS_SHARD_COUNT");
            if (!n) throw Error("--shard-from-env found JOB_COMPLETION_INDEX but no count: give --shard-count N "
                                "(the Job's completions) or set PRECIS_SHARD_COUNT");
            count = number("PRECIS_SHARD_COUNT", *n);
        }
        return checked(index, count, "from JOB_COMPLETION_INDEX " + *id + " of " + std::to_string(*count));
    }
    throw Error("--shard-from-env needs SLURM_ARRAY_TASK_ID (a Slurm job array) or JOB_COMPLETION_INDEX "
                "(a Kubernetes Indexed Job) in the environment; neither is set");
}

uint64_t shard_hash(std::string_view bytes) {
    uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a 64
    for (unsigned char c : bytes) {
        h ^= c;
        h *= 0x100000001b3ULL;
    }
    h ^= h >> 30;  // splitmix64's finalizer
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebULL;
    h ^= h >> 31;
    return h;
}

int shard_of(std::string_view relative, int count) { return int(shard_hash(relative) % uint64_t(count)); }

QStringList files_in_shard(const QStringList& files, const QString& root, const ShardSpec& shard) {
    // Relative to the folder, so the same archive mounted elsewhere on another node (or
    // moved) splits the same way.
    QByteArray base = path_to_native(absolute_clean_path(root));
    if (!base.endsWith('/')) base += '/';
    QStringList mine;
    for (const QString& f : files) {
        QByteArray p = path_to_native(f);
        if (p.startsWith(base)) p = p.mid(base.size());
        if (shard_of(std::string_view(p.constData(), size_t(p.size())), shard.count) == shard.index) mine << f;
    }
    return mine;
}

}  // namespace precis
