#pragma once
// Runs a piece of work that may never finish on its own thread, and stops waiting for it
// when it stops making progress.
//
// Why: Poppler can spend exponential time in the object graph of a damaged PDF. A 26 KB
// file found by the fuzz smoke (tests/fuzz/app/pdf_ingest_fuzz) made Document::page()
// recurse through stream lengths for over ten minutes, hanging the command line, the
// window's worker and a batch alike. A library call cannot be interrupted, so the work
// runs on a thread of its own: it calls beat() after each step (opening, each page), and
// the caller gives up when no beat came for `stall_limit`. The abandoned thread runs on
// until Poppler returns or the process ends (it owns everything it touches), and its
// result is dropped. Precis reads PDFs in a process of its own when its reader is installed
// (pdf_reader_process.h), which it can kill; this guard is for when it is not.
#include <chrono>
#include <functional>

namespace precis {

struct StallReport {
    bool stalled = false;    // the work made no progress for the stall limit and was left behind
    bool cancelled = false;  // should_abort() said stop, and the work was left behind
    int beats = 0;           // the steps it had finished (beat() calls) when it was left
};

// Runs work(beat) and returns when it returns (rethrowing what it throws), when it has not
// called beat() for `stall_limit`, or soon after `should_abort` (if given) returns true.
// `work` must own (capture by value) all it uses.
StallReport run_with_stall_limit(std::function<void(const std::function<void()>& beat)> work,
                                 std::chrono::milliseconds stall_limit,
                                 const std::function<bool()>& should_abort = {});

// True once any work has been left behind. The process should then end with _Exit: its
// static objects must not be destroyed under a thread that may still be using them.
bool work_was_abandoned();

}  // namespace precis
