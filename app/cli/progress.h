#pragma once
// Command-line progress and cancellation: a status line on stderr (redrawn in place on
// a terminal) and Ctrl-C turned into a cooperative cancel of the running job.
#include <exception>
#include <string>

#include "engine/core/byte_progress.h"
#include "engine/model/run_options.h"

namespace precis::cli {

// Installs the SIGINT/SIGTERM handler (first signal cancels, second exits at once).
void install_cancel_handler();
bool cancel_requested();

// Callbacks that draw "label: encoding layer 3/6", "generating token 12/142".
RunCallbacks progress_callbacks(const std::string& label);
// Callbacks that draw "label: 120/558 MB" for file work, cancelled by Ctrl-C.
ByteProgress byte_progress(const std::string& label);
void progress_line(const std::string& text);  // draws a status line
void progress_done();                         // ends the status line

// One line on stderr for a file that failed: the error names the file already when it
// comes from ingestion; otherwise the file is put in front.
void report_file_failure(const std::string& file, const std::exception& e);

}  // namespace precis::cli
