// Work that may never finish (app/ingest/stall_guard.h): it is waited for while it makes
// progress, its errors reach the caller, and once it stops beating for the limit the
// caller gets a report and goes on while the work is left to finish by itself; a cancel
// is heard within a moment, even while the work is busy on one step.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <thread>

#include "app/ingest/stall_guard.h"

namespace precis::test {
namespace {

using namespace std::chrono_literals;

TEST(StallGuard, WorkThatKeepsBeatingIsWaitedForWellPastTheLimit) {
    auto steps = std::make_shared<std::atomic<int>>(0);
    const StallReport report = run_with_stall_limit(
        [steps](const std::function<void()>& beat) {
            for (int i = 0; i < 30; ++i) {  // 30 x 20 ms, each step well inside the 250 ms limit
                std::this_thread::sleep_for(20ms);
                ++*steps;
                beat();
            }
        },
        250ms);
    EXPECT_FALSE(report.stalled);
    EXPECT_EQ(report.beats, 30);
    EXPECT_EQ(steps->load(), 30);
    EXPECT_FALSE(work_was_abandoned());
}

TEST(StallGuard, WhatTheWorkThrowsReachesTheCaller) {
    EXPECT_THROW(run_with_stall_limit([](const std::function<void()>&) { throw std::runtime_error("damaged"); }, 1s),
                 std::runtime_error);
}

// Leaves a thread behind too, released at the end of the test.
TEST(StallGuard, ACancelLeavesTheWorkBehindAtOnceWithoutWaitingForTheLimit) {
    auto release = std::make_shared<std::atomic<bool>>(false);
    auto finished = std::make_shared<std::atomic<bool>>(false);
    const auto started = std::chrono::steady_clock::now();
    const StallReport report = run_with_stall_limit(
        [release, finished](const std::function<void()>& beat) {
            beat();  // then stuck
            while (!release->load()) std::this_thread::sleep_for(1ms);
            finished->store(true);
        },
        60s, [started] { return std::chrono::steady_clock::now() - started > 100ms; });
    const auto waited = std::chrono::steady_clock::now() - started;
    EXPECT_TRUE(report.cancelled);
    EXPECT_FALSE(report.stalled);
    EXPECT_EQ(report.beats, 1);
    EXPECT_LT(waited, 5s);  // not the 60 s limit
    EXPECT_TRUE(work_was_abandoned());
    release->store(true);
    for (int i = 0; i < 5000 && !finished->load(); ++i) std::this_thread::sleep_for(1ms);
    EXPECT_TRUE(finished->load());
}

// Runs last in this file: it leaves a thread behind (released at the end of the test).
TEST(StallGuard, WorkThatStopsBeatingIsLeftBehindAndTheCallerToldAfterWhichStep) {
    auto release = std::make_shared<std::atomic<bool>>(false);
    auto finished = std::make_shared<std::atomic<bool>>(false);
    const auto started = std::chrono::steady_clock::now();
    const StallReport report = run_with_stall_limit(
        [release, finished](const std::function<void()>& beat) {
            beat();
            beat();  // then stuck, as Poppler on a damaged page
            while (!release->load()) std::this_thread::sleep_for(1ms);
            finished->store(true);
        },
        200ms);
    const auto waited = std::chrono::steady_clock::now() - started;
    EXPECT_TRUE(report.stalled);
    EXPECT_EQ(report.beats, 2);
    EXPECT_GE(waited, 200ms);
    EXPECT_LT(waited, 5s);
    EXPECT_TRUE(work_was_abandoned());
    EXPECT_FALSE(finished->load());
    // The left-behind work still owns what it uses and finishes once it can.
    release->store(true);
    for (int i = 0; i < 5000 && !finished->load(); ++i) std::this_thread::sleep_for(1ms);
    EXPECT_TRUE(finished->load());
}

}  // namespace
}  // namespace precis::test
