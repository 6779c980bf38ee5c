// A library file is input too: one edited by hand or damaged can hold any numbers where
// Precis wrote passage ranges, and it can live under a name that is not UTF-8. Neither may
// cause undefined behaviour or open another file.
#include <gtest/gtest.h>

#include <QTemporaryDir>
#include <climits>
#include <filesystem>
#include <sqlite3.h>

#include "app/file_names.h"
#include "app/ingest/ingest.h"
#include "app/library/library.h"
#include "tests/support/fixtures.h"

using namespace precis;

namespace {

// A library with one document and one summary; returns the summary's id.
qint64 library_with_a_summary(const QString& path) {
    Library lib(path);
    IngestedDocument doc;
    doc.path = QStringLiteral("/docs/rivers.txt");
    doc.title = QStringLiteral("Rivers");
    doc.text = QStringLiteral("Rivers carve valleys. Floods spread silt over the plain.");
    doc.encoding = QStringLiteral("UTF-8");
    doc.content_hash = QByteArray(64, 'b');
    SummaryRecord s;
    s.document_id = lib.add_or_get_document(doc);
    s.model_name = QStringLiteral("bart-tiny");
    s.summary = QStringLiteral("Rivers shape land.");
    s.passages = QVector<SourcePassage>{{0, 21, 1.0, -1}};
    return lib.add_summary(s);
}

void overwrite_passages(const QString& path, qint64 summary_id, const char* json) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path_to_native(path).constData(), &db), SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db, "UPDATE summaries SET source_passages = ? WHERE id = ?", -1, &st, nullptr), SQLITE_OK);
    sqlite3_bind_text(st, 1, json, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, summary_id);
    EXPECT_EQ(sqlite3_step(st), SQLITE_DONE);
    sqlite3_finalize(st);
    sqlite3_close(db);
}

}  // namespace

TEST(LibraryHostileFile, PassagesWithImpossibleRangesAreDroppedAndExportsStillWork) {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("library.sqlite"));
    const qint64 id = library_with_a_summary(path);
    // INT_MIN..INT_MAX would overflow end - begin; INT_MAX as a page overflows page + 1.
    overwrite_passages(path, id,
                       "[{\"begin\":-2147483648,\"end\":2147483647,\"page\":0,\"weight\":0.5},"
                       "{\"begin\":5,\"end\":2,\"page\":-1,\"weight\":0.5},"
                       "{\"begin\":0,\"end\":6,\"page\":2147483647,\"weight\":0.5},"
                       "{\"begin\":0,\"end\":6,\"page\":-1,\"weight\":1e308},"
                       "{\"begin\":0,\"end\":6,\"page\":-1,\"weight\":0.25}]");
    Library lib(path);
    const auto summary = lib.summary(id);
    ASSERT_TRUE(summary && summary->passages);
    ASSERT_EQ(summary->passages->size(), 1);  // only the last one is a range Precis could have written
    EXPECT_EQ(summary->passages->first(), (SourcePassage{0, 6, 0.25, -1}));
    EXPECT_TRUE(lib.export_summary(id, ExportFormat::Markdown).contains(QStringLiteral("> Rivers (25.0%)")));
    EXPECT_FALSE(lib.export_summary(id, ExportFormat::Json).isEmpty());
}

TEST(LibraryHostileFile, LibraryUnderANonUtf8NameIsCreatedUnderExactlyThatName) {
    const auto dir = test::scratch_dir("library-non-utf8");  // Qt could not delete these names
    const std::string folder = dir.string() + "/biblioth\xE8que";
    const std::string file = folder + "/caf\xE9.sqlite";
    {
        Library lib(path_from_native(file));  // makes the folder too
        EXPECT_EQ(path_to_native(lib.path()).toStdString(), file);
    }
    EXPECT_TRUE(std::filesystem::is_regular_file(file));
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir),
                            std::filesystem::directory_iterator()),
              1);  // and nothing under a mangled name beside it
}
