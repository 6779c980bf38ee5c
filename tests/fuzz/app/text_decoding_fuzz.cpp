// libFuzzer target: text decoding in app/ingest (BOM detection, UTF-8 / UTF-16 decoding,
// the Latin-1 / Windows-1252 fallback, NUL detection), then the whole ingestion of the
// same bytes as a Markdown file (line endings, title, the empty and binary checks).
#include <QString>
#include <cstdlib>

#include "app/file_names.h"
#include "app/ingest/ingest.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const QByteArray bytes(reinterpret_cast<const char*>(data), qsizetype(size));
    const precis::DecodedText decoded = precis::decode_text_bytes(bytes);
    // ingest.h promises one of these names; anything else would reach the library and the UI.
    static const QStringList kEncodings = {QStringLiteral("UTF-8"), QStringLiteral("UTF-16LE"),
                                           QStringLiteral("UTF-16BE"), QStringLiteral("Latin-1 (fallback)"),
                                           QStringLiteral("Windows-1252 (fallback)")};
    if (!kEncodings.contains(decoded.encoding)) std::abort();

    const auto path = precis::fuzz::write_input("document.md", data, size);
    try {
        const precis::IngestedDocument doc = precis::ingest_file(precis::path_from_fs(path));
        if (doc.text.trimmed().isEmpty()) std::abort();  // empty documents are an error, not a result
    } catch (const precis::IngestError&) {
    }
    return 0;
}
