#pragma once
// Reads a PDF in the precis-pdf-reader process instead of inside Precis.
//
// Why: Poppler parses hostile files. A damaged one can make it loop for hours (a 26 KB
// file found by the fuzz smoke spent over ten minutes in Document::page()) or crash. In
// a process of its own, a crash costs only that process, and a reader that stops making
// progress, or whose run the user cancels, is killed: no thread is left burning a core
// (which is all the in-process stall guard, stall_guard.h, can do).
#include <QByteArray>
#include <QString>
#include <chrono>
#include <functional>
#include <string>

#include "app/ingest/pdf_pages.h"

namespace precis {

// The installed reader: $PRECIS_PDF_READER if set, else precis-pdf-reader beside the
// running executable (the build tree) or in ../libexec/precis/ from it (an installed
// package). Empty when there is none (then PDFs are read in-process).
std::string find_pdf_reader();

struct PdfReaderOutcome {
    enum class Ending {
        Finished,      // everything arrived (pages.failure says whether the file opened)
        Stalled,       // no step for the stall limit: killed
        Crashed,       // ended, or sent something malformed, before it finished
        Cancelled,     // should_abort() said stop: killed
        CouldNotStart  // the program could not be run (detail says why)
    };
    Ending ending = Ending::Finished;
    PdfPages pages;
    int steps = 0;       // frames received: 0 = still opening, 1 + k = k pages read
    std::string detail;  // Crashed: how it ended ("signal 11, Segmentation fault"); CouldNotStart: the error
};

PdfReaderOutcome read_pdf_in_reader_process(const std::string& program, const QByteArray& bytes, const QString& password,
                                            std::chrono::milliseconds stall_limit,
                                            const std::function<bool()>& should_abort);

}  // namespace precis
