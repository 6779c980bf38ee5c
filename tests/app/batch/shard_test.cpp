// The split of a batch folder into shards (app/batch/shard.h): every file in exactly one
// shard, the same split whatever the listing order and whatever files are added, bytes
// spread evenly on real documents, and the shard read from a job array's environment.
#include <gtest/gtest.h>

#include <QStringList>

#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <set>

#include <nlohmann/json.hpp>

#include "app/batch/shard.h"
#include "engine/core/error.h"
#include "tests/support/fixtures.h"

namespace precis::test {
namespace {

const QString kRoot = QStringLiteral("/archive/theses");

QStringList some_files(int n, int seed) {
    std::mt19937 rng(seed);
    QStringList files;
    for (int i = 0; i < n; ++i)
        files << QStringLiteral("%1/%2/doc-%3-%4.pdf").arg(kRoot).arg(rng() % 40).arg(i).arg(rng() % 1000);
    return files;
}

// shard index of each file, from files_in_shard over every shard; fails on a file in two.
std::map<QString, int> split(const QStringList& files, int n) {
    std::map<QString, int> where;
    for (int i = 0; i < n; ++i)
        for (const QString& f : files_in_shard(files, kRoot, {i, n})) {
            EXPECT_EQ(where.count(f), 0u) << f.toStdString() << " is in two shards of " << n;
            where[f] = i;
        }
    return where;
}

TEST(Shard, EveryFileIsInExactlyOneShardForOneTo64Shards) {
    const QStringList files = some_files(1000, 1);
    for (int n = 1; n <= 64; ++n) {
        const auto where = split(files, n);
        EXPECT_EQ(where.size(), size_t(files.size())) << "shards of " << n;
    }
}

TEST(Shard, SplitIsTheSameForAReorderedListing) {
    QStringList files = some_files(2000, 2);
    const auto before = split(files, 7);
    std::mt19937 rng(3);
    std::shuffle(files.begin(), files.end(), rng);
    EXPECT_EQ(split(files, 7), before);
}

TEST(Shard, AddedFilesMoveNoExistingFile) {
    const QStringList files = some_files(2000, 4);
    const auto before = split(files, 16);
    QStringList more = files;
    more << some_files(700, 5);
    const auto after = split(more, 16);
    for (const auto& [file, shard] : before) EXPECT_EQ(after.at(file), shard) << file.toStdString();
}

TEST(Shard, SplitDependsOnThePathInsideTheFolderNotOnWhereTheFolderIs) {
    // The same archive mounted at another place on another node splits the same way.
    const QStringList here = {kRoot + "/a/1.pdf", kRoot + "/b/2.txt", kRoot + "/c.md"};
    const QStringList there = {"/mnt/nfs/theses/a/1.pdf", "/mnt/nfs/theses/b/2.txt", "/mnt/nfs/theses/c.md"};
    for (int i = 0; i < 5; ++i)
        EXPECT_EQ(files_in_shard(here, kRoot, {i, 5}).size(), files_in_shard(there, "/mnt/nfs/theses", {i, 5}).size());
    EXPECT_EQ(shard_of("a/1.pdf", 1000), shard_of("a/1.pdf", 1000));
    EXPECT_EQ(shard_hash("a/1.pdf"), 0x8968b25530fe094dULL) << "the hash must never change: running jobs rely on it";
}

// The corpus' CNN articles as files of their real sizes: with 2,000 documents, every
// shard's bytes stay within 25% of the mean for 4 and 16 shards, and its file count within
// 25% too (measured: see the printed spread). The hash ignores sizes, so this is the
// statistical balance any folder of similar size gets.
TEST(Shard, BytesAndCountsAreBalancedOnTheCorpus) {
    const auto corpus = corpus_dir() / "cnn.jsonl.xz";
    if (!std::filesystem::exists(corpus)) GTEST_SKIP() << "no corpus at " << corpus;
    FILE* p = ::popen(("xz -dc '" + corpus.string() + "' | head -n 2000").c_str(), "r");
    ASSERT_NE(p, nullptr);
    QStringList files;
    std::map<QString, size_t> bytes;
    char* line = nullptr;
    size_t cap = 0;
    while (::getline(&line, &cap, p) > 0) {
        const auto j = nlohmann::json::parse(line);
        const QString f = kRoot + "/cnn/" + QString::fromStdString(j.at("id").get<std::string>()) + ".txt";
        files << f;
        bytes[f] = j.at("article").get<std::string>().size();
    }
    std::free(line);
    ::pclose(p);
    ASSERT_EQ(files.size(), 2000);
    size_t total = 0;
    for (const auto& [f, b] : bytes) total += b;
    for (int n : {4, 16}) {
        double worst_bytes = 0, worst_count = 0;
        for (int i = 0; i < n; ++i) {
            const QStringList mine = files_in_shard(files, kRoot, {i, n});
            size_t b = 0;
            for (const QString& f : mine) b += bytes[f];
            worst_bytes = std::max(worst_bytes, std::abs(double(b) / (double(total) / n) - 1));
            worst_count = std::max(worst_count, std::abs(double(mine.size()) / (2000.0 / n) - 1));
        }
        std::printf("%d shards: bytes within %.1f%% of the mean, files within %.1f%%\n", n, 100 * worst_bytes,
                    100 * worst_count);
        EXPECT_LT(worst_bytes, 0.25) << n << " shards";
        EXPECT_LT(worst_count, 0.25) << n << " shards";
    }
}

TEST(Shard, ParsesIOverNAndRefusesAnythingElse) {
    EXPECT_EQ(parse_shard("3/8").index, 3);
    EXPECT_EQ(parse_shard("3/8").count, 8);
    for (const char* bad : {"8/8", "-1/4", "1", "a/4", "1/0", "1/4x", "/4", "1/"}) EXPECT_THROW(parse_shard(bad), Error) << bad;
}

TEST(Shard, ComesFromSlurmOrKubernetesEnvironment) {
    std::map<std::string, std::string> env;
    auto get = [&](const char* name) -> const char* {
        auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
    };
    EXPECT_THROW(shard_from_environment(std::nullopt, get), Error);
    env = {{"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_COUNT", "4"}};
    EXPECT_EQ(shard_from_environment(std::nullopt, get).text(), "2/4");
    // Resubmitted alone (sbatch --array=2): Slurm says 1 task; the given count wins.
    env["SLURM_ARRAY_TASK_COUNT"] = "1";
    EXPECT_EQ(shard_from_environment(4, get).text(), "2/4");
    EXPECT_THROW(shard_from_environment(std::nullopt, get), Error);  // 2 of 1
    env = {{"JOB_COMPLETION_INDEX", "5"}};
    EXPECT_THROW(shard_from_environment(std::nullopt, get), Error);  // no count
    EXPECT_EQ(shard_from_environment(10, get).text(), "5/10");
    env["PRECIS_SHARD_COUNT"] = "6";
    EXPECT_EQ(shard_from_environment(std::nullopt, get).text(), "5/6");
}

}  // namespace
}  // namespace precis::test
