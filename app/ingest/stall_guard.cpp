#include "app/ingest/stall_guard.h"

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

}  // namespace

bool work_was_abandoned() { return g_abandoned.load(); }

StallReport run_with_stall_limit(std::function<void(const std::function<void()>& beat)> work,
                                 std::chrono::milliseconds stall_limit) {
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

    std::unique_lock lock(progress->mutex);
    for (;;) {
        const int beats = progress->beats;
        const bool moved =
            progress->changed.wait_for(lock, stall_limit, [&] { return progress->done || progress->beats != beats; });
        if (progress->done) break;
        if (!moved) {
            const StallReport report{true, progress->beats};
            lock.unlock();
            g_abandoned.store(true);
            worker.detach();
            return report;
        }
    }
    lock.unlock();
    worker.join();
    if (progress->error) std::rethrow_exception(progress->error);
    return StallReport{false, progress->beats};
}

}  // namespace precis
