// libFuzzer target: PDF ingestion through our Poppler wrapper (loading, the lock check,
// text boxes per page, then our layout work: hyphen joins, unwrapping, dropping repeated
// headers, footers and page numbers, page offsets).
#include <chrono>
#include <cstdlib>

#include "app/file_names.h"
#include "app/ingest/ingest.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const auto path = precis::fuzz::write_input("document.pdf", data, size);
    try {
        // A file Poppler cannot finish is given up on well within libFuzzer's 25 s timeout.
        precis::IngestOptions options;
        options.pdf_stall_limit = std::chrono::seconds(3);
        // Poppler and our layout work under the fuzzer's eyes, not in the reader process.
        options.pdf_in_process = true;
        const precis::IngestedDocument doc = precis::ingest_file(precis::path_from_fs(path), options);
        // Page offsets index the text, one per page, in order: the PDF view relies on it.
        if (doc.page_offsets.size() != doc.pages) std::abort();
        int previous = 0;
        for (int offset : doc.page_offsets) {
            if (offset < previous || offset > doc.text.size()) std::abort();
            previous = offset;
        }
    } catch (const precis::IngestError&) {
    }
    return 0;
}
