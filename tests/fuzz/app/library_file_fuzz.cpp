// libFuzzer target: opening a library file (SQLite header and pages, our schema version
// check and migrations) and reading everything in it the way the window and `precis
// library` do: documents, summaries with their passages, exports, classifications,
// search, models and batch jobs; then one write.
#include <filesystem>

#include "app/file_names.h"
#include "app/library/library.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

void read_everything(const precis::Library& lib) {
    for (const precis::DocumentListItem& item : lib.documents()) {
        lib.document(item.document.id);
        lib.classifications_for(item.document.id);
        for (const precis::SummaryRecord& s : lib.summaries_for(item.document.id)) {
            precis::summary_method_description(s);
            lib.export_summary(s.id, precis::ExportFormat::Markdown);
            lib.export_summary(s.id, precis::ExportFormat::Json);
        }
    }
    for (const QString& label : lib.labels()) lib.documents_with_label(label);
    lib.search(QStringLiteral("the summary"));
    lib.search(QStringLiteral("\"long documents\" mod*"));
    lib.models();
    for (const precis::BatchJobInfo& job : lib.batch_jobs()) lib.batch_items(job.id);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const auto dir = precis::fuzz::scratch();
    // A write-ahead log or journal left by the previous input would be replayed into this one.
    for (const char* stale : {"library.sqlite-wal", "library.sqlite-shm", "library.sqlite-journal"})
        std::filesystem::remove(dir / stale);
    const auto path = precis::fuzz::write_input("library.sqlite", data, size);
    try {
        precis::Library lib(precis::path_from_fs(path));
        read_everything(lib);
        precis::ModelRecord model;
        model.name = QStringLiteral("fuzz");
        model.path = QStringLiteral("/nonexistent/fuzz-model");
        lib.register_model(model);
    } catch (const precis::LibraryError&) {
    }
    return 0;
}
