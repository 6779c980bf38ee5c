#include "engine/core/worker_team.h"

#include <immintrin.h>
#include <omp.h>
#include <sched.h>

#include <chrono>
#include <cstdint>
#include <mutex>

namespace precis {

namespace {

constexpr int kPauses = 256;            // about 10 us: the gap between two jobs of a step
constexpr int64_t kYieldMicros = 2000;  // the gap between two steps (search, callbacks)

thread_local bool t_in_team_job = false;

int64_t micros_now() {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// Pauses, then yields the core, until done() or, when yield_micros >= 0, until that many
// microseconds have passed; says whether done().
template <class Done>
bool pause_then_yield_until(Done done, int64_t yield_micros) {
    for (int i = 0; i < kPauses; ++i) {
        if (done()) return true;
        _mm_pause();
    }
    const int64_t until = yield_micros < 0 ? INT64_MAX : micros_now() + yield_micros;
    for (;;) {
        for (int i = 0; i < 16; ++i) {
            if (done()) return true;
            sched_yield();
        }
        if (micros_now() > until) return false;
    }
}

}  // namespace

WorkerTeam::WorkerTeam(int threads) : size_(std::max(1, threads)) {
    workers_.reserve(size_t(size_ - 1));
    for (int t = 1; t < size_; ++t) workers_.emplace_back([this, t] { work(t); });
}

WorkerTeam::~WorkerTeam() {
    stop_.store(true);
    generation_.fetch_add(1);
    generation_.notify_all();
    for (std::thread& w : workers_) w.join();
}

void WorkerTeam::work(int thread) {
    t_in_team_job = true;  // a job that asks for a team itself runs serially (run_shared)
    uint32_t seen = 0;
    for (;;) {
        const auto new_job = [&] { return generation_.load(std::memory_order_acquire) != seen; };
        if (!pause_then_yield_until(new_job, kYieldMicros)) {
            sleepers_.fetch_add(1);
            // seq_cst, paired with run(): either run() sees this sleeper and wakes it, or
            // the value wait() reads is already the new one.
            while (generation_.load() == seen) generation_.wait(seen);
            sleepers_.fetch_sub(1);
        }
        seen = generation_.load(std::memory_order_acquire);
        if (stop_.load()) return;
        call_(context_, thread, size_);
        pending_.fetch_sub(1, std::memory_order_release);
    }
}

bool WorkerTeam::run(Call call, void* context) {
    call_ = call;
    context_ = context;
    pending_.store(size_ - 1, std::memory_order_relaxed);
    generation_.fetch_add(1);  // publishes the job (seq_cst, paired with the sleepers' count)
    // A worker woken from its sleep starts late by the wake-up alone (hundreds of
    // microseconds on a VM): that says nothing about a busy core, so it is not judged.
    const bool woke_sleepers = sleepers_.load() > 0;
    if (woke_sleepers) generation_.notify_all();
    const bool nested = t_in_team_job;
    t_in_team_job = true;
    const int64_t started = micros_now();
    call(context, 0, size_);
    t_in_team_job = nested;
    const int64_t own_done = micros_now();
    // No sleeping here: the workers finish within the job's own time.
    pause_then_yield_until([&] { return pending_.load(std::memory_order_acquire) == 0; }, -1);
    return woke_sleepers || micros_now() - own_done <= (own_done - started) + kLateMicros;
}

// The team lives until the process ends (it is never destroyed, so no exit path waits on
// its workers, which sleep when idle); it is rebuilt when the thread count changes.
void worker_team_detail::run_shared(int threads, WorkerTeam::Call call, void* context) {
    // Whoever runs them, the job's parts are always the same `threads` parts: how a
    // product is split can change its bits (a BLAS call over fewer columns may take other
    // kernels), and a summary must not depend on how busy the machine was.
    const auto on_this_thread = [&] {
        const bool nested = t_in_team_job;
        t_in_team_job = true;
        for (int t = 0; t < threads; ++t) call(context, t, threads);
        t_in_team_job = nested;
    };
    // Nested (before the lock, which this thread may hold): serial, as OpenMP's default.
    if (t_in_team_job || omp_in_parallel()) return on_this_thread();
    static std::mutex busy;
    static WorkerTeam* team = nullptr;
    std::unique_lock lock(busy, std::try_to_lock);
    if (!lock.owns_lock()) {  // another engine worker has the team
#pragma omp parallel for num_threads(threads) schedule(static, 1)
        for (int t = 0; t < threads; ++t) call(context, t, threads);
        return;
    }
    static int serial_jobs = 0;  // left to run on the caller alone after workers fell behind
    static SerialBackoff backoff;
    if (serial_jobs > 0) {
        --serial_jobs;
        return on_this_thread();
    }
    if (!team || team->size() != threads) {
        delete team;
        team = new WorkerTeam(threads);
    }
    serial_jobs = backoff.after(!team->run(call, context));
}

}  // namespace precis
