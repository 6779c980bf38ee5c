// The worker team (engine/core/worker_team.h): every part of every job runs exactly once,
// always split the same way, each job sees what the previous one wrote, nested and
// concurrent callers still get their work done, and workers that fall behind send the
// next jobs to the caller alone, for longer each time they fall behind in a row.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <numeric>
#include <thread>
#include <vector>

#include "engine/core/worker_team.h"

namespace precis::test {
namespace {

TEST(WorkerTeam, EveryIndexRunsOnceInEveryJobAndSeesThePreviousJobsWrites) {
    for (int size : {1, 2, 3, 5}) {
        WorkerTeam team(size);
        ASSERT_EQ(team.size(), size);
        // Plain ints, written by one job and read by the next: the team must order them.
        // Job j writes stamps[j % 2][t] and reads all of stamps[(j + 1) % 2].
        std::vector<int> stamps[2] = {std::vector<int>(size_t(size), -2), std::vector<int>(size_t(size), -1)};
        std::atomic<int> wrong{0};
        for (int job = 0; job < 2000; ++job) {
            struct Context {
                std::vector<int>* stamps;
                std::atomic<int>* wrong;
                int job, size;
            } c{stamps, &wrong, job, size};
            team.run(
                [](void* p, int t, int nt) {
                    auto& c = *static_cast<Context*>(p);
                    if (nt != c.size) c.wrong->fetch_add(1);
                    for (int stamp : c.stamps[(c.job + 1) % 2])
                        if (stamp != c.job - 1) c.wrong->fetch_add(1);
                    c.stamps[c.job % 2][size_t(t)] = c.job;
                },
                &c);
            for (int u = 0; u < size; ++u) ASSERT_EQ(stamps[job % 2][size_t(u)], job) << "size " << size << ", index " << u;
        }
        EXPECT_EQ(wrong.load(), 0) << "size " << size;
    }
}

// Runs one job on the shared team; returns how many threads ran its parts.
int threads_running_a_shared_job(int threads, std::chrono::microseconds worker_delay = {}) {
    const std::thread::id caller = std::this_thread::get_id();
    std::vector<std::thread::id> ran_on(static_cast<size_t>(threads));
    run_on_team(threads, [&](int t, int nt) {
        EXPECT_EQ(nt, threads);
        ran_on[size_t(t)] = std::this_thread::get_id();
        if (ran_on[size_t(t)] != caller && worker_delay.count() > 0) std::this_thread::sleep_for(worker_delay);
    });
    std::sort(ran_on.begin(), ran_on.end());
    return int(std::unique(ran_on.begin(), ran_on.end()) - ran_on.begin());
}

TEST(WorkerTeam, SharedJobsRunEveryPartOnceForAnyThreadCount) {
    for (int threads : {1, 2, 4, 2}) {  // the team is rebuilt for each new count
        std::vector<std::atomic<int>> hits(static_cast<size_t>(threads));
        run_on_team(threads, [&](int t, int nt) {
            EXPECT_EQ(nt, threads);
            hits[size_t(t)].fetch_add(1);
        });
        for (int t = 0; t < threads; ++t) EXPECT_EQ(hits[size_t(t)].load(), 1) << t;
    }
}

TEST(WorkerTeam, AJobThatAsksForTheTeamRunsItsInnerJobOnItsOwnThread) {
    std::atomic<int> inner_parts{0}, elsewhere{0};
    run_on_team(2, [&](int, int) {
        const std::thread::id outer = std::this_thread::get_id();
        run_on_team(2, [&](int, int nt) {
            EXPECT_EQ(nt, 2);  // the same parts as ever, one after the other
            inner_parts.fetch_add(1);
            if (std::this_thread::get_id() != outer) elsewhere.fetch_add(1);
        });
    });
    EXPECT_EQ(inner_parts.load(), 4);
    EXPECT_EQ(elsewhere.load(), 0);
}

TEST(WorkerTeam, CallersOnSeveralThreadsAllGetTheirWorkDone) {
    constexpr int kCallers = 4, kJobs = 300;
    std::vector<std::thread> callers;
    std::vector<long> sums(kCallers, 0);
    for (int c = 0; c < kCallers; ++c)
        callers.emplace_back([&, c] {
            for (int job = 0; job < kJobs; ++job) {
                std::atomic<long> sum{0};
                run_on_team(2, [&](int t, int nt) {
                    // The indices [0, 8) split over the threads the job got.
                    for (int i = 8 * t / nt; i < 8 * (t + 1) / nt; ++i) sum.fetch_add(i + 1);
                });
                sums[size_t(c)] += sum.load();
            }
        });
    for (std::thread& t : callers) t.join();
    for (int c = 0; c < kCallers; ++c) EXPECT_EQ(sums[size_t(c)], long(kJobs) * 36) << "caller " << c;
}

TEST(WorkerTeam, RunSaysWhenAWorkerFinishedWellAfterTheCaller) {
    WorkerTeam team(2);
    const auto late = std::chrono::microseconds(20 * WorkerTeam::kLateMicros);
    // A run whose worker had gone to sleep is excused (its wake-up says nothing about the
    // core), and on a busy machine the worker may sleep before a run: then run again.
    bool said_late = false;
    for (int run = 0; run < 20 && !said_late; ++run)
        said_late = !team.run(
            [](void* p, int t, int) {
                if (t != 0) std::this_thread::sleep_for(*static_cast<const std::chrono::microseconds*>(p));
            },
            const_cast<std::chrono::microseconds*>(&late));
    EXPECT_TRUE(said_late);
}

// The threads that ran a job's parts on the shared team (each part writes only its own).
int threads_running_a_job_that_asks_for_the_team_itself(int& nested_parts) {
    std::thread::id ran_on[2];
    std::atomic<int> parts{0};
    run_on_team(2, [&](int t, int) {
        ran_on[t] = std::this_thread::get_id();
        parts.fetch_add(threads_running_a_shared_job(2));
    });
    nested_parts = parts.load();
    return ran_on[0] == ran_on[1] ? 1 : 2;
}

TEST(WorkerTeam, WorkersThatFallBehindSendTheNextJobsToTheCallerAloneLongerEachTimeInARow) {
    const auto late = std::chrono::microseconds(20 * WorkerTeam::kLateMicros);
    // One try of the whole sequence. It says false where the machine got in the way: a
    // late job whose worker had gone to sleep (another process held the core) is excused,
    // as run() says, and then the job after it runs on the team again; so does a late job
    // before the one meant to be late. Failures of the backoff itself are reported.
    // Jobs [first, last) after a late one must run on the caller alone; says whether they did.
    const auto alone = [](int first, int last, const char* after) {
        for (int job = first; job < last; ++job)
            if (threads_running_a_shared_job(2) != 1) {
                ADD_FAILURE() << "job " << job << " after " << after << " ran on the team";
                return false;
            }
        return true;
    };
    const auto try_once = [&]() -> bool {
        int until_team = 0;
        while (threads_running_a_shared_job(2) != 2)
            if (++until_team > SerialBackoff::kMostJobs + 1) {
                ADD_FAILURE() << "no job ran on the team after the most jobs the caller runs alone";
                return true;
            }
        if (threads_running_a_shared_job(2, late) != 2) return false;

        // A job run on the caller alone may itself ask for the team (the caller holds it).
        int nested_parts = 0;
        if (threads_running_a_job_that_asks_for_the_team_itself(nested_parts) == 2) return false;
        EXPECT_EQ(nested_parts, 2);
        if (!alone(1, SerialBackoff::kFewestJobs, "a late one")) return true;

        // Then the team is tried again; late again, twice as many jobs run on the caller alone.
        if (threads_running_a_shared_job(2, late) != 2) {
            ADD_FAILURE() << "the team was not tried again after " << SerialBackoff::kFewestJobs << " jobs alone";
            return true;
        }
        if (threads_running_a_shared_job(2) == 2) return false;
        if (!alone(1, 2 * SerialBackoff::kFewestJobs, "a second late one in a row")) return true;
        EXPECT_EQ(threads_running_a_shared_job(2), 2);
        return true;
    };
    for (int attempt = 0; !try_once(); ++attempt)
        if (attempt == 20) GTEST_SKIP() << "the machine is too busy: every late job was excused";
}

// Which part ran each item, every item exactly once, for the costs given.
std::vector<int> parts_by_item(int threads, const std::vector<int64_t>& costs) {
    std::vector<std::atomic<int>> part(costs.size());
    for (auto& p : part) p.store(-1);
    std::atomic<int> repeats{0};
    for_each_weighted_on_team(
        threads, int(costs.size()), [&](int i) { return costs[size_t(i)]; },
        [&](int i, int t) {
            if (part[size_t(i)].exchange(t) != -1) repeats.fetch_add(1);
        });
    EXPECT_EQ(repeats.load(), 0);
    std::vector<int> out;
    for (auto& p : part) out.push_back(p.load());
    return out;
}

TEST(ForEachWeightedOnTeam, DocumentsInLengthOrderAreSharedByCostNotByCount) {
    // A cross-attention's (document, head) pairs: 16 documents of 128 to 576 keys in
    // length order, 12 heads each. Split by count, one thread had 1.6x the other's keys.
    std::vector<int64_t> costs;
    for (int d = 0; d < 16; ++d)
        for (int h = 0; h < 12; ++h) costs.push_back(128 + 30 * d);
    for (int threads : {2, 3, 4}) {
        const std::vector<int> part = parts_by_item(threads, costs);
        std::vector<int64_t> cost_of(size_t(threads), 0);
        const int64_t total = std::accumulate(costs.begin(), costs.end(), int64_t(0));
        for (size_t i = 0; i < costs.size(); ++i) {
            ASSERT_GE(part[i], 0) << "item " << i << " never ran";
            if (i > 0) EXPECT_GE(part[i], part[i - 1]) << "each part is a run of consecutive items";
            cost_of[size_t(part[i])] += costs[i];
        }
        for (int t = 0; t < threads; ++t)
            EXPECT_LE(std::abs(cost_of[size_t(t)] - total / threads), costs.back()) << threads << " threads, part " << t;
    }
}

TEST(ForEachWeightedOnTeam, FreeItemsFewItemsAndOneThreadEachRunOnce) {
    const std::vector<int> free_items = parts_by_item(2, {0, 0, 0, 5, 0});
    for (int p : free_items) EXPECT_GE(p, 0);
    const std::vector<int> all_free = parts_by_item(2, {0, 0, 0});
    for (int p : all_free) EXPECT_GE(p, 0);
    const std::vector<int> fewer_than_threads = parts_by_item(4, {7, 1});
    for (int p : fewer_than_threads) EXPECT_GE(p, 0);
    EXPECT_EQ(parts_by_item(1, {3, 1, 4}), (std::vector<int>{0, 0, 0}));
    EXPECT_TRUE(parts_by_item(2, {}).empty());
}

TEST(SerialBackoff, DoublesTheCallersJobsWithEachLateJobInARowUpToTheMostAndStartsOverAfterAnOnTimeOne) {
    SerialBackoff backoff;
    EXPECT_EQ(backoff.after(false), 0);
    EXPECT_EQ(backoff.after(true), SerialBackoff::kFewestJobs);
    EXPECT_EQ(backoff.after(true), 2 * SerialBackoff::kFewestJobs);
    EXPECT_EQ(backoff.after(true), 4 * SerialBackoff::kFewestJobs);
    EXPECT_EQ(backoff.after(false), 0);
    EXPECT_EQ(backoff.after(true), SerialBackoff::kFewestJobs);  // an on-time job starts over
    int jobs = 0;
    for (int late = 0; late < 20; ++late) jobs = backoff.after(true);
    EXPECT_EQ(jobs, SerialBackoff::kMostJobs);  // a core kept busy: the longest wait, no longer
}

}  // namespace
}  // namespace precis::test
