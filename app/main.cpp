// precis: with a subcommand, the command line (no display needed); without one, the
// desktop application.
#include <unistd.h>

#include <QCoreApplication>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "app/cli/commands.h"
#include "app/ingest/stall_guard.h"
#include "app/paths.h"
#include "ui/gui_main.h"

// A PDF that Poppler could not finish leaves its reading thread running
// (app/ingest/stall_guard.h): then end without destroying what it may still use.
static int exit_leaving_abandoned_work(int status) {
    if (!precis::work_was_abandoned()) return status;
    std::fflush(nullptr);
    std::_Exit(status);
}

int main(int argc, char** argv) {
    // OpenMP threads that spin while waiting steal the cores the other workers need
    // (measured: 3-5x slower encoders and decoding on a busy 2-core machine). libgomp
    // reads its wait policy only when it loads, so set it and start again once.
    if (!std::getenv("OMP_WAIT_POLICY")) {
        setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
        // By its real path: exec'ing /proc/self/exe names the process "exe" in ps and top.
        // That path is gone if the package was upgraded under us: then /proc/self/exe.
        if (const std::filesystem::path self = precis::executable_path(); !self.empty()) execv(self.c_str(), argv);
        execv("/proc/self/exe", argv);  // only returns on failure: then run as we are
    }
    // A file name is bytes: ask the file system with them (Qt would decode them lossily).
    std::error_code ec;
    if (argc > 1 && (precis::cli::is_command(argv[1]) || !std::filesystem::exists(argv[1], ec))) {
        QCoreApplication app(argc, argv);
        QCoreApplication::setApplicationName("precis");
        return exit_leaving_abandoned_work(precis::cli::run_cli(argc, argv));
    }
    return exit_leaving_abandoned_work(precis::ui::run_gui(argc, argv));
}
