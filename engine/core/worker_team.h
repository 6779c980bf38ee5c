#pragma once
// A team of threads for runs of short parallel jobs: a decoder step is about sixty
// products and attentions of a millisecond or less, one after another.
//
// Why not OpenMP alone: the engine runs libgomp with a passive wait policy (app/main.cpp),
// because threads that spin while they wait made everything 3-5x slower whenever another
// program, or another of our workers, wanted the cores. But a passive thread sleeps as soon as a region ends, and waking it costs tens
// of microseconds on a VM (an idle virtual CPU halts). Across a decoder step those
// wake-ups cost as much as the work: bart-base int8 at 4k tokens decoded 157-166 tokens/s
// passive, 300-330 with spinning threads. Spinning threads, for their part, decoded at a
// sixth of the passive speed (28 against 172 tokens/s, GOMP_SPINCOUNT=10000) when two runs
// shared the two cores, because a thread spinning at a barrier holds the core the thread
// it waits for needs.
//
// This team's threads wait in three stages: a few hundred pause instructions (the gap
// between two jobs of a step), then sched_yield() for up to 2 ms (another thread that
// needs the core gets it), then sleep on a futex until the next job. The caller is thread
// 0 of every job.
//
// A core that another program keeps busy is the case the team cannot win: its worker
// there gets half the core, in slices of milliseconds, and every job waits for it (greedy
// decoding fell from 201 tokens/s on one thread to 59 on the team). So when the caller has
// to wait for the workers well past its own share of a job, the next jobs run on the
// caller's thread alone before the team is tried again (SerialBackoff): a few after a
// late job that follows an on-time one, twice as many after each late job in a row, up to
// several decoder steps. Bart-base int8 greedy at 4k tokens, 2 cores: 305-316 tokens/s on
// an idle machine (158-167 before the team); with a busy core, no slower than before.
// A worker that is merely descheduled once for a millisecond or two (a VM's neighbours, an
// interrupt) costs a few jobs, where a fixed 512 had cost the 32-document fp32 beam-4
// batch 80 % of its decoding on one thread (3,566 of 3,968 jobs, after 7 such hiccups).
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <type_traits>
#include <vector>

namespace precis {

class WorkerTeam {
public:
    using Call = void (*)(void* context, int thread, int threads);

    explicit WorkerTeam(int threads);  // threads - 1 workers; the caller is thread 0
    ~WorkerTeam();
    WorkerTeam(const WorkerTeam&) = delete;
    WorkerTeam& operator=(const WorkerTeam&) = delete;

    int size() const { return size_; }
    // call(context, t, size()) for every t, t = 0 on the calling thread; returns when all
    // are done, saying whether the workers kept up: finished within kLateMicros (plus the
    // caller's own time again) of the caller, or had to be woken from sleep first. One
    // caller at a time; call must not throw.
    bool run(Call call, void* context);

    static constexpr int64_t kLateMicros = 300;

private:
    void work(int thread);

    int size_;
    std::vector<std::thread> workers_;
    Call call_ = nullptr;
    void* context_ = nullptr;
    std::atomic<uint32_t> generation_{0};
    std::atomic<int> pending_{0};
    std::atomic<int> sleepers_{0};
    std::atomic<bool> stop_{false};
};

// How many of the next jobs run on the caller alone after each job on the team: none
// after an on-time job; kFewestJobs after a late one that follows an on-time one, and
// twice the previous count after each late job in a row, at most kMostJobs.
class SerialBackoff {
public:
    static constexpr int kFewestJobs = 16;  // a fraction of one decoder step's ~60 jobs
    static constexpr int kMostJobs = 512;   // several decoder steps

    int after(bool late) {
        if (!late) {
            next_ = kFewestJobs;
            return 0;
        }
        const int jobs = next_;
        next_ = std::min(2 * next_, kMostJobs);
        return jobs;
    }

private:
    int next_ = kFewestJobs;
};

namespace worker_team_detail {
// The shared team of `threads` threads runs the job; where it cannot, the caller runs
// every part itself (inside an OpenMP region or a team job, or after workers fell
// behind) or an OpenMP region does (another thread is using the team).
void run_shared(int threads, WorkerTeam::Call call, void* context);
}  // namespace worker_team_detail

// fn(t, threads) for every t in [0, threads), on the shared team or, where it cannot be
// used, on the caller or OpenMP's threads. Each t must write only its own part of the
// output: which thread runs which t is not fixed, and one thread may run several.
template <class Fn>
void run_on_team(int threads, Fn&& fn) {
    if (threads <= 1) return fn(0, 1);
    using F = std::remove_reference_t<Fn>;
    worker_team_detail::run_shared(
        threads, [](void* f, int t, int nt) { (*static_cast<F*>(f))(t, nt); },
        const_cast<void*>(static_cast<const void*>(&fn)));
}

// Part t of nt of the columns [0, n) of a product: every boundary but the last rounded
// down to a multiple of 16 floats, so each part writes its own cache lines. A part may be
// empty when n is small.
struct ColumnPart {
    int64_t begin, end;
};
inline ColumnPart column_part(int64_t n, int t, int nt) {
    return {(n * t / nt) / 16 * 16, t + 1 == nt ? n : (n * (t + 1) / nt) / 16 * 16};
}

// fn(i, t) for every i in [0, count), split into `threads` even runs of consecutive i
// (t: the part, for per-part scratch), on the shared team.
template <class Fn>
void for_each_on_team(int threads, int count, Fn&& fn) {
    run_on_team(threads, [&](int t, int nt) {
        for (int i = int(int64_t(count) * t / nt); i < int(int64_t(count) * (t + 1) / nt); ++i) fn(i, t);
    });
}

// fn(i, t) for every i in [0, count), split into `threads` runs of consecutive i of about
// equal total cost(i) >= 0 (an item goes to the part its cost's midpoint falls in). The
// decoder's cross-attention walks the documents of a batch in length order: split by
// count, one thread had the longer half and the other waited for it. Which part an item
// lands in never changes what fn computes for it.
template <class Cost, class Fn>
void for_each_weighted_on_team(int threads, int count, Cost&& cost, Fn&& fn) {
    if (threads <= 1 || count <= 1) {
        for (int i = 0; i < count; ++i) fn(i, 0);
        return;
    }
    int64_t total = 0;
    for (int i = 0; i < count; ++i) total += std::max<int64_t>(0, cost(i));
    // Part t begins at the first item whose midpoint (doubled: integers, so the split is
    // exact) reaches t / threads of the total; parts no item reaches are empty.
    std::vector<int> begin(size_t(threads) + 1, count);
    begin[0] = 0;
    int64_t before = 0;
    for (int i = 0, t = 1; i < count && t < threads; ++i) {
        const int64_t c = std::max<int64_t>(0, cost(i));
        while (t < threads && 2 * before + c >= 2 * total * t / threads) begin[size_t(t++)] = i;
        before += c;
    }
    run_on_team(threads, [&](int t, int) {
        for (int i = begin[size_t(t)]; i < begin[size_t(t) + 1]; ++i) fn(i, t);
    });
}

}  // namespace precis
