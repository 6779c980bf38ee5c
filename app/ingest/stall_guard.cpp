#include "app/ingest/stall_guard.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

namespace precis {

namespace {

// Shared by the caller and the work's thread, which may outlive the caller's wait.
struct Progress {
    std::mutex mutex;
    std::condition_variable changed;
    bool done = false;
    int beats = 0;
    std::exception_ptr error;
};

std::atomic<bool> g_abandoned{false};

constexpr std::chrono::milliseconds kCancelPoll{50};

}  // namespace

bool work_was_abandoned() { return g_abandoned.load(); }

StallReport run_with_stall_limit(std::function<void(const std::function<void()>& beat)> work,
                                 std::chrono::milliseconds stall_limit, const std::function<bool()>& should_abort) {
    auto progress = std::make_shared<Progress>();
    std::thread worker([progress, work = std::move(work)] {
        const std::function<void()> beat = [&progress] {
            std::lock_guard lock(progress->mutex);
            ++progress->beats;
            progress->changed.notify_all();
        };
        std::exception_ptr error;
        try {
            work(beat);
        } catch (...) {
            error = std::current_exception();
        }
        std::lock_guard lock(progress->mutex);
        progress->error = error;
        progress->done = true;
        progress->changed.notify_all();
    });

    // Waits in short slices when a cancel must be heard, else for the whole limit at once.
    using Clock = std::chrono::steady_clock;
    const std::chrono::milliseconds slice = should_abort ? std::min(stall_limit, kCancelPoll) : stall_limit;
    std::unique_lock lock(progress->mutex);
    int beats_seen = progress->beats;
    auto last_beat = Clock::now();
    for (;;) {
        progress->changed.wait_for(lock, slice, [&] { return progress->done || progress->beats != beats_seen; });
        if (progress->done) break;
        if (progress->beats != beats_seen) {
            beats_seen = progress->beats;
            last_beat = Clock::now();
        }
        const bool cancelled = should_abort && should_abort();
        if (cancelled || Clock::now() - last_beat >= stall_limit) {
            const StallReport report{!cancelled, cancelled, progress->beats};
            lock.unlock();
            g_abandoned.store(true);
            worker.detach();
            return report;
        }
    }
    lock.unlock();
    worker.join();
    if (progress->error) std::rethrow_exception(progress->error);
    return StallReport{false, false, progress->beats};
}

}  // namespace precis
