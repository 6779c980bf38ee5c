#include "app/cli/progress.h"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>

#include "app/ingest/ingest.h"

namespace precis::cli {

namespace {

std::atomic<int> g_signals{0};

void on_signal(int) {
    if (g_signals.fetch_add(1) >= 1) _exit(130);
}

bool stderr_is_tty() {
    static const bool tty = isatty(2) != 0;
    return tty;
}

bool g_line_open = false;

}  // namespace

void install_cancel_handler() {
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
}

bool cancel_requested() { return g_signals.load() > 0; }

void progress_line(const std::string& text) {
    if (stderr_is_tty()) {
        std::fprintf(stderr, "\r\033[K%s", text.c_str());
        g_line_open = true;
    }
}

void progress_done() {
    if (g_line_open) std::fputs("\r\033[K", stderr);
    g_line_open = false;
}

void report_file_failure(const std::string& file, const std::exception& e) {
    progress_done();
    if (dynamic_cast<const IngestError*>(&e))
        std::cerr << "precis: " << e.what() << "\n";
    else
        std::cerr << "precis: " << file << ": " << e.what() << "\n";
}

RunCallbacks progress_callbacks(const std::string& label) {
    RunCallbacks cb;
    cb.should_abort = [] { return cancel_requested(); };
    cb.progress = [label](RunStage stage, int done, int total) {
        const char* what = stage == RunStage::Encoding ? "encoding layer" : stage == RunStage::Generating ? "generating token" : "classifying";
        progress_line(label + ": " + what + " " + std::to_string(done) + "/" + std::to_string(total));
    };
    return cb;
}

ByteProgress byte_progress(const std::string& label) {
    ByteProgress p;
    p.should_abort = [] { return cancel_requested(); };
    p.progress = [label](uint64_t done, uint64_t total) {
        progress_line(label + ": " + std::to_string(done >> 20) + "/" + std::to_string(total >> 20) + " MiB");
    };
    return p;
}

}  // namespace precis::cli
