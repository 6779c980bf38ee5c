// The SQLite library in one process: schema and migration from v1 and v4, documents, summary
// history, classifications and the label filter, full-text search, cascade deletes,
// export, models, batch bookkeeping, and the errors (newer schema, foreign or damaged
// file, disk full) with nothing half-written.
#include <gtest/gtest.h>

#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <QTemporaryDir>
#include <sqlite3.h>

#include "app/file_names.h"
#include "app/ingest/ingest.h"
#include "app/library/library.h"

using namespace precis;

namespace {

IngestedDocument make_doc(const QString& title, const QString& text, const QString& path = {}) {
    IngestedDocument d;
    d.path = path.isEmpty() ? QStringLiteral("/docs/%1.txt").arg(title) : path;
    d.title = title;
    d.text = text;
    d.encoding = QStringLiteral("UTF-8");
    d.content_hash = QCryptographicHash::hash(text.toUtf8(), QCryptographicHash::Sha256).toHex();
    return d;
}

SummaryRecord make_summary(qint64 doc, const QString& text, const QString& model = QStringLiteral("lsg-bart-base")) {
    SummaryRecord s;
    s.document_id = doc;
    s.model_name = model;
    s.model_path = QStringLiteral("/models/") + model;
    s.parameters = QJsonObject{{"num_beams", 4}, {"length_penalty", 2.0}, {"max_length", 256},
                               {"attention", "lsg"}, {"sparsity_type", "norm"}};
    s.summary = text;
    s.summary_ids = {0, 133, 4420, 2};
    s.input_tokens = 4096;
    s.truncated = true;
    s.seconds_encode = 1.25;
    s.seconds_generate = 3.5;
    s.device = QStringLiteral("cpu");
    return s;
}

// Raw access for checks the API does not expose, and for building old files.
struct RawDb {
    sqlite3* db = nullptr;
    explicit RawDb(const QString& path) { EXPECT_EQ(sqlite3_open(path.toUtf8().constData(), &db), SQLITE_OK); }
    ~RawDb() { sqlite3_close(db); }
    void exec(const char* sql) {
        char* err = nullptr;
        EXPECT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "") << "\n" << sql;
        sqlite3_free(err);
    }
    QString value(const char* sql) {
        sqlite3_stmt* st = nullptr;
        EXPECT_EQ(sqlite3_prepare_v2(db, sql, -1, &st, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
        QString out;
        if (sqlite3_step(st) == SQLITE_ROW) out = QString::fromUtf8(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
        sqlite3_finalize(st);
        return out;
    }
    int count(const char* table) { return value(QStringLiteral("SELECT count(*) FROM %1").arg(table).toUtf8()).toInt(); }
};

class LibraryTest : public ::testing::Test {
protected:
    QTemporaryDir dir_;
    QString db_path() const { return dir_.filePath(QStringLiteral("lib/library.sqlite")); }

    template <typename F>
    static LibraryError expect_library_error(F&& f, LibraryErrorKind kind) {
        try {
            f();
        } catch (const LibraryError& e) {
            EXPECT_EQ(int(e.kind()), int(kind)) << e.what();
            return e;
        }
        ADD_FAILURE() << "no LibraryError";
        return LibraryError(LibraryErrorKind::Other, {}, {});
    }
};

// The v1 schema exactly as Precis 0.1 wrote it (kept here, independent of the code).
const char* const kV1Schema = R"sql(
CREATE TABLE documents (
  id INTEGER PRIMARY KEY, path TEXT NOT NULL, content_hash TEXT NOT NULL UNIQUE,
  title TEXT NOT NULL DEFAULT '', pages INTEGER NOT NULL DEFAULT 0, text TEXT NOT NULL,
  encoding TEXT NOT NULL DEFAULT '', added_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')));
CREATE TABLE summaries (
  id INTEGER PRIMARY KEY, document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  model_name TEXT NOT NULL, model_path TEXT NOT NULL DEFAULT '', parameters TEXT NOT NULL DEFAULT '{}',
  summary TEXT NOT NULL, summary_ids TEXT NOT NULL DEFAULT '[]', input_tokens INTEGER NOT NULL DEFAULT 0,
  truncated INTEGER NOT NULL DEFAULT 0, seconds_encode REAL NOT NULL DEFAULT 0,
  seconds_generate REAL NOT NULL DEFAULT 0, device TEXT NOT NULL DEFAULT '',
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')));
CREATE INDEX summaries_by_document ON summaries(document_id, created_at);
CREATE TABLE models (
  id INTEGER PRIMARY KEY, name TEXT NOT NULL, path TEXT NOT NULL UNIQUE, architecture TEXT NOT NULL DEFAULT '',
  attention TEXT NOT NULL DEFAULT '', imported_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')));
INSERT INTO documents (id, path, content_hash, title, pages, text, encoding, added_at)
  VALUES (1, '/old/whales.pdf', 'aaaa', 'Whales', 12, 'Blue whales migrate across the ocean every winter.', 'PDF',
          '2023-05-01T10:00:00.000Z');
INSERT INTO documents (id, path, content_hash, title, pages, text, encoding, added_at)
  VALUES (2, '/old/bees.txt', 'bbbb', 'Bees', 0, 'Honey bees dance to share directions.', 'UTF-8',
          '2023-05-02T10:00:00.000Z');
INSERT INTO summaries (document_id, model_name, model_path, parameters, summary, summary_ids, input_tokens,
                       truncated, seconds_encode, seconds_generate, device, created_at)
  VALUES (1, 'bart-large-cnn', '/m/bart', '{"num_beams":4}', 'Whales travel far in winter.', '[0,7,2]', 15, 0,
          0.5, 1.5, 'cpu', '2023-05-01T11:00:00.000Z');
INSERT INTO models (name, path, architecture, attention) VALUES ('bart-large-cnn', '/m/bart', 'bart', 'full');
PRAGMA user_version = 1;
)sql";

}  // namespace

TEST_F(LibraryTest, NewLibraryUsesWalForeignKeysAndTheCurrentSchema) {
    {
        Library lib(db_path());
        EXPECT_EQ(lib.schema_version(), Library::kSchemaVersion);
        EXPECT_EQ(lib.path(), db_path());
        EXPECT_TRUE(QFile::exists(db_path()));  // parent folder created
    }
    RawDb raw(db_path());
    EXPECT_EQ(raw.value("PRAGMA journal_mode"), "wal");
    EXPECT_EQ(raw.value("PRAGMA user_version"), QString::number(Library::kSchemaVersion));
    for (const char* table : {"documents", "summaries", "classifications", "models", "batch_jobs", "batch_items",
                              "documents_fts", "summaries_fts", "summary_sections", "summary_sections_fts"})
        EXPECT_EQ(raw.value(QStringLiteral("SELECT count(*) FROM sqlite_master WHERE name = '%1'").arg(table).toUtf8()), "1")
            << table;
}

TEST_F(LibraryTest, ReopeningKeepsDataAndSchema) {
    qint64 id = 0;
    {
        Library lib(db_path());
        id = lib.add_or_get_document(make_doc("Alpha", "alpha text"));
    }
    Library again(db_path());
    EXPECT_EQ(again.schema_version(), Library::kSchemaVersion);
    ASSERT_TRUE(again.document(id));
    EXPECT_EQ(again.document(id)->title, "Alpha");
}

TEST_F(LibraryTest, MigratesV1DatabaseKeepingItsData) {
    QDir().mkpath(dir_.filePath("lib"));
    {
        RawDb raw(db_path());
        raw.exec(kV1Schema);
    }
    Library lib(db_path());
    EXPECT_EQ(lib.schema_version(), Library::kSchemaVersion);

    const std::optional<DocumentRecord> whales = lib.document(1);
    ASSERT_TRUE(whales);
    EXPECT_EQ(whales->title, "Whales");
    EXPECT_EQ(whales->pages, 12);
    EXPECT_EQ(whales->text, "Blue whales migrate across the ocean every winter.");
    EXPECT_EQ(whales->added_at, QDateTime(QDate(2023, 5, 1), QTime(10, 0), Qt::UTC));
    EXPECT_TRUE(whales->page_offsets.isEmpty());  // new v2 column, default
    EXPECT_TRUE(whales->notes.isEmpty());

    const QVector<SummaryRecord> history = lib.summaries_for(1);
    ASSERT_EQ(history.size(), 1);
    EXPECT_EQ(history[0].summary, "Whales travel far in winter.");
    EXPECT_EQ(history[0].parameters.value("num_beams").toInt(), 4);
    EXPECT_EQ(history[0].summary_ids, (QVector<qint32>{0, 7, 2}));
    EXPECT_FALSE(history[0].passages.has_value());  // v3 column: never traced
    EXPECT_EQ(history[0].method, "neural");          // v4 column: every older summary came from a model
    EXPECT_TRUE(history[0].sections.isEmpty());      // v5 table: made in one pass
    ASSERT_EQ(lib.models().size(), 1);
    EXPECT_EQ(lib.models()[0].attention, "full");

    // Old rows are in the new full-text indexes, and the new tables work.
    const QVector<SearchHit> hits = lib.search("migrate");
    ASSERT_EQ(hits.size(), 1);
    EXPECT_EQ(hits[0].document_id, 1);
    ASSERT_EQ(lib.search("travel").size(), 1);
    EXPECT_EQ(lib.search("travel")[0].summary_id, history[0].id);
    lib.add_classification({0, 2, "topic-model", {}, "biology", 0.9, {}});
    EXPECT_EQ(lib.labels(), QStringList{"biology"});
    const qint64 added = lib.add_or_get_document(make_doc("Ants", "Ants build colonies."));
    EXPECT_GT(added, 2);
}

// A v4 library as Precis wrote it before outlines: v5 only added summary_sections with its
// index and documents.outline, so a current file without them, marked v4, is one.
TEST_F(LibraryTest, MigratesV4DatabaseGivingItsSummariesNoSections) {
    qint64 doc = 0, neural = 0, extractive = 0;
    {
        Library lib(db_path());
        IngestedDocument in = make_doc("Tides", "The moon pulls the oceans into two bulges.");
        in.pages = 3;
        in.page_offsets = {0, 20, 30};
        doc = lib.add_or_get_document(in);
        SummaryRecord n = make_summary(doc, "Lunar gravity raises tides.");
        n.passages = QVector<SourcePassage>{{0, 16, 1.0, 0}};
        neural = lib.add_summary(n);
        SummaryRecord e = make_summary(doc, "The moon pulls the oceans.", "extractive");
        e.method = "extractive";
        extractive = lib.add_summary(e);
        lib.add_classification({0, doc, "clf", {}, "physics", 0.8, {}});
    }
    {
        RawDb raw(db_path());
        raw.exec("DROP TABLE summary_sections_fts; DROP TABLE summary_sections; "
                 "ALTER TABLE documents DROP COLUMN outline; PRAGMA user_version = 4;");
        EXPECT_EQ(raw.value("SELECT count(*) FROM sqlite_master WHERE sql LIKE '%summary_sections%'"), "0");
    }
    Library lib(db_path());
    EXPECT_EQ(lib.schema_version(), Library::kSchemaVersion);

    const QVector<SummaryRecord> history = lib.summaries_for(doc);
    ASSERT_EQ(history.size(), 2);
    for (const SummaryRecord& s : history) EXPECT_TRUE(s.sections.isEmpty()) << s.id;
    const std::optional<SummaryRecord> n = lib.summary(neural);
    ASSERT_TRUE(n);
    EXPECT_EQ(n->summary, "Lunar gravity raises tides.");
    EXPECT_EQ(n->passages, (QVector<SourcePassage>{{0, 16, 1.0, 0}}));
    EXPECT_EQ(n->input_tokens, 4096);
    EXPECT_EQ(lib.summary(extractive)->method, "extractive");
    EXPECT_EQ(lib.document(doc)->page_offsets, (QVector<int>{0, 20, 30}));
    EXPECT_TRUE(lib.document(doc)->outline.isEmpty());
    EXPECT_EQ(lib.labels(), QStringList{"physics"});
    ASSERT_EQ(lib.documents().size(), 1);
    EXPECT_TRUE(lib.documents()[0].latest_summary->sections.isEmpty());
    ASSERT_EQ(lib.search("gravity").size(), 1);
    EXPECT_EQ(lib.search("gravity")[0].summary_id, neural);
    const QJsonObject exported = QJsonDocument::fromJson(lib.export_summary(neural, ExportFormat::Json).toUtf8()).object();
    EXPECT_EQ(exported.value("sections"), QJsonValue(QJsonArray{}));

    // The new table and its index work in the migrated file.
    SummaryRecord outlined = make_summary(doc, "Tides in two parts.");
    outlined.sections = {{"Part one", 0, 20, 0, 1, "Spring tides follow the full moon.", 12},
                         {"Part two", 20, 42, 1, 2, "Neap tides are weaker.", 9}};
    const qint64 id = lib.add_summary(outlined);
    EXPECT_EQ(lib.summary(id)->sections, outlined.sections);
    ASSERT_EQ(lib.search("neap").size(), 1);
    EXPECT_EQ(lib.search("neap")[0].summary_id, id);
}

// A PDF's outline (its bookmarks) is kept with the document, for the section windows of a
// long summary; a document stored before outlines gains its outline when read again.
TEST_F(LibraryTest, ADocumentKeepsItsPdfOutlineAndAnOldOneGainsItWhenReadAgain) {
    Library lib(db_path());
    IngestedDocument in = make_doc("Report", "Introduction text. Methods text. Results text.");
    in.pages = 3;
    in.page_offsets = {0, 19, 33};
    const qint64 plain = lib.add_or_get_document(in);
    EXPECT_TRUE(lib.document(plain)->outline.isEmpty());
    in.outline = {{"Introduction", 0, 0, 0}, {"Methods", 1, 1, 19}, {"Nowhere", 0, -1, -1}};
    EXPECT_EQ(lib.add_or_get_document(in), plain);
    EXPECT_EQ(lib.document(plain)->outline.size(), 3);
    const OutlineEntry methods = lib.document(plain)->outline[1];
    EXPECT_EQ(methods.title, "Methods");
    EXPECT_EQ(methods.level, 1);
    EXPECT_EQ(methods.page, 1);
    EXPECT_EQ(methods.offset, 19);
    EXPECT_EQ(lib.document(plain)->outline[2].page, -1);
}

TEST_F(LibraryTest, NewerSchemaIsRefusedNamingTheFile) {
    QDir().mkpath(dir_.filePath("lib"));
    {
        RawDb raw(db_path());
        raw.exec("CREATE TABLE documents (id INTEGER PRIMARY KEY); PRAGMA user_version = 7;");
    }
    const LibraryError e = expect_library_error([&] { Library lib(db_path()); }, LibraryErrorKind::Incompatible);
    EXPECT_TRUE(e.message().contains(db_path())) << e.what();
    EXPECT_TRUE(e.message().contains("newer version of Precis")) << e.what();
}

TEST_F(LibraryTest, SqliteFileOfAnotherProgramIsRefusedUntouched) {
    QDir().mkpath(dir_.filePath("lib"));
    {
        RawDb raw(db_path());
        raw.exec("CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('x');");
    }
    const LibraryError e = expect_library_error([&] { Library lib(db_path()); }, LibraryErrorKind::Incompatible);
    EXPECT_TRUE(e.message().contains("another program")) << e.what();
    RawDb raw(db_path());
    EXPECT_EQ(raw.value("SELECT count(*) FROM sqlite_master"), "1");
    EXPECT_EQ(raw.value("PRAGMA journal_mode"), "delete");  // not switched to WAL either
}

TEST_F(LibraryTest, FileThatIsNotADatabaseIsCorrupt) {
    QDir().mkpath(dir_.filePath("lib"));
    QFile f(db_path());
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(QByteArray(8192, 'x'));
    f.close();
    const LibraryError e = expect_library_error([&] { Library lib(db_path()); }, LibraryErrorKind::Corrupt);
    EXPECT_TRUE(e.message().contains(db_path())) << e.what();
}

TEST_F(LibraryTest, UnopenableLocationSaysSoNamingThePath) {
    QFile blocker(dir_.filePath("file"));
    ASSERT_TRUE(blocker.open(QIODevice::WriteOnly));
    blocker.close();
    const QString bad = dir_.filePath("file/sub/library.sqlite");  // a folder inside a regular file
    const LibraryError e = expect_library_error([&] { Library lib(bad); }, LibraryErrorKind::CannotOpen);
    EXPECT_TRUE(e.message().contains(bad)) << e.what();
}

// Every new connection in this process gets a small page limit while it is set, so a
// write fails with a real SQLITE_FULL.
static int g_max_pages = 0;
static int limit_pages(sqlite3* db, char**, const sqlite3_api_routines*) {
    if (g_max_pages > 0)
        sqlite3_exec(db, QStringLiteral("PRAGMA max_page_count = %1").arg(g_max_pages).toUtf8().constData(), nullptr,
                     nullptr, nullptr);
    return SQLITE_OK;
}

TEST_F(LibraryTest, DiskFullIsReportedAndNothingIsHalfWritten) {
    qint64 doc = 0;
    {
        Library lib(db_path());
        doc = lib.add_or_get_document(make_doc("Small", "small text"));
    }
    g_max_pages = 100;  // 400 KiB with 4 KiB pages
    sqlite3_auto_extension(reinterpret_cast<void (*)()>(limit_pages));
    {
        Library lib(db_path());
        QString huge;
        for (int i = 0; i < 40000; ++i) huge += QStringLiteral("word%1 ").arg(i);
        const LibraryError e =
            expect_library_error([&] { lib.add_or_get_document(make_doc("Huge", huge)); }, LibraryErrorKind::DiskFull);
        EXPECT_EQ(e.message(), QStringLiteral("Cannot write to library \"%1\": the disk is full.").arg(db_path()));
        expect_library_error([&] { lib.add_summary(make_summary(doc, huge)); }, LibraryErrorKind::DiskFull);
        // The connection is still usable, and nothing of the failed writes is there.
        EXPECT_EQ(lib.documents().size(), 1);
        EXPECT_TRUE(lib.summaries_for(doc).isEmpty());
        EXPECT_TRUE(lib.search("word123").isEmpty());
        EXPECT_GT(lib.add_summary(make_summary(doc, "fits")), 0);
    }
    sqlite3_cancel_auto_extension(reinterpret_cast<void (*)()>(limit_pages));
    g_max_pages = 0;
    Library lib(db_path());
    EXPECT_EQ(lib.documents().size(), 1);
    EXPECT_EQ(lib.summaries_for(doc).size(), 1);
}

TEST_F(LibraryTest, SameContentIsStoredOnceUnderThePathItWasLastReadFrom) {
    Library lib(db_path());
    bool added = false;
    const qint64 a = lib.add_or_get_document(make_doc("One", "same bytes", "/a/one.txt"), &added);
    EXPECT_TRUE(added);
    const qint64 b = lib.add_or_get_document(make_doc("Copy", "same bytes", "/b/copy.txt"), &added);
    EXPECT_FALSE(added);
    EXPECT_EQ(a, b);
    EXPECT_EQ(lib.documents().size(), 1);
    EXPECT_EQ(lib.document(a)->path, "/b/copy.txt");  // moved or copied: the new place is shown
    EXPECT_EQ(lib.documents()[0].document.path, "/b/copy.txt");
    EXPECT_EQ(lib.find_document_by_hash(make_doc("x", "same bytes").content_hash), a);
    EXPECT_FALSE(lib.find_document_by_hash("00"));
}

TEST_F(LibraryTest, DocumentRoundTripsTextPagesOffsetsAndNotes) {
    Library lib(db_path());
    IngestedDocument in = make_doc("Report", QStringLiteral("Page one.\n\nPage two \u00e9\u65e5."));
    in.pages = 2;
    in.page_offsets = {0, 11};
    in.encoding = QStringLiteral("PDF");
    in.notes = QStringList{"2 repeated header/footer lines removed"};
    const qint64 id = lib.add_or_get_document(in);
    const std::optional<DocumentRecord> out = lib.document(id);
    ASSERT_TRUE(out);
    EXPECT_EQ(out->text, in.text);
    EXPECT_EQ(out->title, "Report");
    EXPECT_EQ(out->pages, 2);
    EXPECT_EQ(out->page_offsets, in.page_offsets);
    EXPECT_EQ(out->notes, in.notes);
    EXPECT_EQ(out->encoding, "PDF");
    EXPECT_EQ(out->content_hash, in.content_hash);
    EXPECT_LE(qAbs(out->added_at.secsTo(QDateTime::currentDateTimeUtc())), 60);
    EXPECT_FALSE(lib.document(id + 100));
}

TEST_F(LibraryTest, SummaryHistoryIsKeptNewestFirstWithAllFields) {
    Library lib(db_path());
    const qint64 doc = lib.add_or_get_document(make_doc("Doc", "text"));
    const qint64 first = lib.add_summary(make_summary(doc, "first summary", "bart-base"));
    const qint64 second = lib.add_summary(make_summary(doc, "second summary", "lsg-bart-base"));
    const QVector<SummaryRecord> history = lib.summaries_for(doc);
    ASSERT_EQ(history.size(), 2);
    EXPECT_EQ(history[0].id, second);
    EXPECT_EQ(history[1].id, first);
    const SummaryRecord& s = history[0];
    EXPECT_EQ(s.document_id, doc);
    EXPECT_EQ(s.model_name, "lsg-bart-base");
    EXPECT_EQ(s.model_path, "/models/lsg-bart-base");
    EXPECT_EQ(s.parameters, make_summary(doc, "").parameters);
    EXPECT_EQ(s.summary_ids, (QVector<qint32>{0, 133, 4420, 2}));
    EXPECT_EQ(s.input_tokens, 4096);
    EXPECT_TRUE(s.truncated);
    EXPECT_DOUBLE_EQ(s.seconds_encode, 1.25);
    EXPECT_DOUBLE_EQ(s.seconds_generate, 3.5);
    EXPECT_EQ(s.device, "cpu");
    EXPECT_TRUE(s.created_at.isValid());
    ASSERT_TRUE(lib.summary(first));
    EXPECT_EQ(lib.summary(first)->summary, "first summary");
}

TEST_F(LibraryTest, ModelFoldersWhoseNamesAreNotUtf8AreStoredExactly) {
    const QString folder = path_from_native(std::string_view("/models/mod\xE8le-lsg"));
    Library lib(db_path());
    const qint64 doc = lib.add_or_get_document(make_doc("Doc", "text"));
    SummaryRecord s = make_summary(doc, "summary");
    s.model_path = folder;
    const qint64 id = lib.add_summary(s);
    ModelRecord m;
    m.name = QStringLiteral("mod\u00e8le-lsg");
    m.path = folder;
    m.architecture = QStringLiteral("LSGBartForConditionalGeneration");
    m.attention = QStringLiteral("lsg");
    lib.register_model(m);
    lib.register_model(m);  // the same folder again updates its row, found by its exact bytes

    Library reopened(db_path());
    ASSERT_TRUE(reopened.summary(id));
    EXPECT_EQ(path_to_native(reopened.summary(id)->model_path).toStdString(), "/models/mod\xE8le-lsg");
    const QVector<ModelRecord> models = reopened.models();
    ASSERT_EQ(models.size(), 1);
    EXPECT_EQ(path_to_native(models[0].path).toStdString(), "/models/mod\xE8le-lsg");
}

TEST_F(LibraryTest, SummaryForMissingDocumentIsNotFoundAndNotStored) {
    Library lib(db_path());
    const LibraryError e = expect_library_error([&] { lib.add_summary(make_summary(42, "orphan")); },
                                                LibraryErrorKind::NotFound);
    EXPECT_TRUE(e.message().contains("42")) << e.what();
    RawDb raw(db_path());
    EXPECT_EQ(raw.count("summaries"), 0);
}

TEST_F(LibraryTest, DocumentListShowsLatestSummaryCountAndLabels) {
    Library lib(db_path());
    const qint64 a = lib.add_or_get_document(make_doc("A", "aaa"));
    const qint64 b = lib.add_or_get_document(make_doc("B", "bbb"));
    lib.add_summary(make_summary(a, "old"));
    const qint64 newest = lib.add_summary(make_summary(a, "new"));
    lib.add_classifications({{0, a, "clf", {}, "science", 0.8, {}}, {0, a, "clf", {}, "news", 0.3, {}}});
    const QVector<DocumentListItem> list = lib.documents();
    ASSERT_EQ(list.size(), 2);
    EXPECT_EQ(list[0].document.id, b);  // newest first
    EXPECT_FALSE(list[0].latest_summary);
    EXPECT_EQ(list[0].summary_count, 0);
    EXPECT_EQ(list[1].document.id, a);
    ASSERT_TRUE(list[1].latest_summary);
    EXPECT_EQ(list[1].latest_summary->id, newest);
    EXPECT_EQ(list[1].latest_summary->summary, "new");
    EXPECT_EQ(list[1].summary_count, 2);
    EXPECT_EQ(list[1].labels, (QStringList{"news", "science"}));
}

TEST_F(LibraryTest, DeletingADocumentCascadesToSummariesClassificationsAndSearch) {
    Library lib(db_path());
    const qint64 keep = lib.add_or_get_document(make_doc("Keep", "penguins live in the south"));
    const qint64 drop = lib.add_or_get_document(make_doc("Drop", "penguins and puffins"));
    lib.add_summary(make_summary(drop, "about puffins"));
    lib.add_summary(make_summary(keep, "about penguins"));
    lib.add_classification({0, drop, "clf", {}, "birds", 0.9, {}});
    EXPECT_EQ(lib.search("puffins").size(), 1);

    EXPECT_TRUE(lib.delete_document(drop));
    EXPECT_FALSE(lib.delete_document(drop));
    EXPECT_FALSE(lib.document(drop));
    EXPECT_TRUE(lib.summaries_for(drop).isEmpty());
    EXPECT_TRUE(lib.classifications_for(drop).isEmpty());
    EXPECT_TRUE(lib.labels().isEmpty());
    EXPECT_TRUE(lib.search("puffins").isEmpty());  // neither its text nor its summary
    const QVector<SearchHit> left = lib.search("penguins");
    ASSERT_EQ(left.size(), 1);
    EXPECT_EQ(left[0].document_id, keep);
    RawDb raw(db_path());
    EXPECT_EQ(raw.count("summaries"), 1);
    EXPECT_EQ(raw.count("classifications"), 0);
}

TEST_F(LibraryTest, DeletingASummaryKeepsTheDocumentAndUpdatesSearch) {
    Library lib(db_path());
    const qint64 doc = lib.add_or_get_document(make_doc("Doc", "plain body"));
    const qint64 s = lib.add_summary(make_summary(doc, "zebra crossing"));
    EXPECT_EQ(lib.search("zebra").size(), 1);
    EXPECT_TRUE(lib.delete_summary(s));
    EXPECT_FALSE(lib.delete_summary(s));
    EXPECT_FALSE(lib.summary(s));
    EXPECT_TRUE(lib.document(doc));
    EXPECT_TRUE(lib.search("zebra").isEmpty());
}

TEST_F(LibraryTest, SearchFindsDocumentTextAndTitlesWithMarkedSnippets) {
    Library lib(db_path());
    const qint64 a = lib.add_or_get_document(
        make_doc("Glaciers", "Alpine glaciers are retreating quickly because summers are warmer than before."));
    lib.add_or_get_document(make_doc("Deserts", "Sand dunes move with the wind."));
    const qint64 c = lib.add_or_get_document(make_doc("Climate and Glaciers", "Ice sheets hold most fresh water."));

    const QVector<SearchHit> hits = lib.search("glaciers");
    ASSERT_EQ(hits.size(), 2);
    QSet<qint64> ids{hits[0].document_id, hits[1].document_id};
    EXPECT_EQ(ids, (QSet<qint64>{a, c}));
    for (const SearchHit& h : hits) {
        EXPECT_TRUE(h.document_snippet.contains("[Glaciers]") || h.document_snippet.contains("[glaciers]"))
            << h.document_snippet.toStdString();
        EXPECT_EQ(h.summary_id, 0);
    }

    SearchOptions opts;
    opts.mark_begin = "<b>";
    opts.mark_end = "</b>";
    const QVector<SearchHit> retreat = lib.search("RETREATING", opts);  // case-insensitive
    ASSERT_EQ(retreat.size(), 1);
    EXPECT_EQ(retreat[0].title, "Glaciers");
    EXPECT_TRUE(retreat[0].document_snippet.contains("<b>retreating</b>")) << retreat[0].document_snippet.toStdString();

    EXPECT_EQ(lib.search("glaciers warmer").size(), 1);  // all words must match
    EXPECT_TRUE(lib.search("glaciers camels").isEmpty());
}

TEST_F(LibraryTest, SearchFindsSummariesAndPointsAtTheirDocument) {
    Library lib(db_path());
    const qint64 doc = lib.add_or_get_document(make_doc("Minutes", "The board met on Tuesday."));
    const qint64 s = lib.add_summary(make_summary(doc, "The board approved the merger with Initech."));
    const QVector<SearchHit> hits = lib.search("initech");
    ASSERT_EQ(hits.size(), 1);
    EXPECT_EQ(hits[0].document_id, doc);
    EXPECT_EQ(hits[0].summary_id, s);
    EXPECT_EQ(hits[0].title, "Minutes");
    EXPECT_TRUE(hits[0].document_snippet.isEmpty());
    EXPECT_TRUE(hits[0].summary_snippet.contains("[Initech]")) << hits[0].summary_snippet.toStdString();

    const QVector<SearchHit> both = lib.search("board");  // text and summary of one document: one hit
    ASSERT_EQ(both.size(), 1);
    EXPECT_EQ(both[0].summary_id, s);
    EXPECT_FALSE(both[0].document_snippet.isEmpty());
}

TEST_F(LibraryTest, SearchTakesOperatorsAndPunctuationLiterallyAndSupportsPhrasesAndPrefixes) {
    Library lib(db_path());
    const qint64 doc = lib.add_or_get_document(make_doc("Ops", "Use AND or NOT in C++ code (carefully): x-ray vision."));
    EXPECT_EQ(lib.search("AND").size(), 1);
    EXPECT_EQ(lib.search("NOT").size(), 1);
    EXPECT_EQ(lib.search("C++").size(), 1);
    EXPECT_EQ(lib.search("(carefully):").size(), 1);
    EXPECT_EQ(lib.search("x-ray").size(), 1);
    EXPECT_EQ(lib.search("\"x-ray vision\"").size(), 1);
    EXPECT_TRUE(lib.search("\"vision x-ray\"").isEmpty());
    EXPECT_EQ(lib.search("care*").size(), 1);
    EXPECT_TRUE(lib.search("care").isEmpty());
    EXPECT_TRUE(lib.search("   ").isEmpty());
    EXPECT_TRUE(lib.search("\"").isEmpty());
    EXPECT_EQ(lib.search("ops")[0].document_id, doc);  // title
}

TEST_F(LibraryTest, ExportMarkdownHasSummaryDocumentModelAndParameters) {
    Library lib(db_path());
    IngestedDocument in = make_doc("Annual Report", "body", "/home/u/report.pdf");
    in.pages = 12;
    const qint64 doc = lib.add_or_get_document(in);
    const qint64 s = lib.add_summary(make_summary(doc, "Revenue grew by ten percent."));
    const QString md = lib.export_summary(s, ExportFormat::Markdown);
    EXPECT_TRUE(md.startsWith("# Annual Report\n\nRevenue grew by ten percent.\n")) << md.toStdString();
    EXPECT_TRUE(md.contains("`/home/u/report.pdf` (12 pages)")) << md.toStdString();
    EXPECT_TRUE(md.contains("- Model: lsg-bart-base (`/models/lsg-bart-base`)"));
    EXPECT_TRUE(md.contains("num_beams = 4"));
    EXPECT_TRUE(md.contains("sparsity_type = norm"));
    EXPECT_TRUE(md.contains("4096 tokens (truncated"));
    EXPECT_TRUE(md.contains("- Device: cpu; 1.25 s encoding, 3.50 s generation"));
}

TEST_F(LibraryTest, ExtractiveSummariesKeepTheirMethodAndExportsSayHowTheyWereMade) {
    Library lib(db_path());
    const qint64 doc = lib.add_or_get_document(make_doc("Rivers", "Rivers carve valleys. Floods spread silt."));
    SummaryRecord e;
    e.document_id = doc;
    e.method = "extractive";
    e.model_name = "extractive";
    e.parameters = QJsonObject{{"method", "extractive"}, {"sentences", 2}, {"document_sentences", 2}, {"document_words", 6}};
    e.summary = "Rivers carve valleys.\nFloods spread silt.";
    e.device = "cpu";
    e.passages = QVector<SourcePassage>{{0, 21, 0.5, -1}, {22, 41, 0.5, -1}};
    const qint64 id = lib.add_summary(e);
    const std::optional<SummaryRecord> back = lib.summary(id);
    ASSERT_TRUE(back);
    EXPECT_EQ(back->method, "extractive");
    EXPECT_EQ(summary_method_description(*back), "extractive: 2 sentences from the document");
    EXPECT_EQ(summary_method_description(make_summary(doc, "x")), "neural: lsg-bart-base");
    const QString md = lib.export_summary(id, ExportFormat::Markdown);
    EXPECT_TRUE(md.contains("- Method: extractive: 2 sentences from the document\n")) << md.toStdString();
    EXPECT_FALSE(md.contains("- Model:")) << md.toStdString();
    EXPECT_TRUE(md.contains("- Input: 6 words in 2 sentences")) << md.toStdString();
    // Its passages are the sentences it chose, not where a model's attention went: no share.
    EXPECT_TRUE(md.contains("## Source passages\n\nThe document's own sentences that the summary chose, in document "
                            "order.\n\n> Rivers carve valleys.\n\n> Floods spread silt.\n"))
        << md.toStdString();
    EXPECT_FALSE(md.contains("attention")) << md.toStdString();
    EXPECT_FALSE(md.contains("%)")) << md.toStdString();
    const QJsonObject j = QJsonDocument::fromJson(lib.export_summary(id, ExportFormat::Json).toUtf8()).object();
    EXPECT_EQ(j.value("method").toString(), "extractive");
    EXPECT_EQ(j.value("source_passages").toArray().size(), 2);
}

TEST_F(LibraryTest, ExportJsonCarriesEveryField) {
    Library lib(db_path());
    const qint64 doc = lib.add_or_get_document(make_doc("Paper", "body", "/p/paper.txt"));
    const qint64 s = lib.add_summary(make_summary(doc, "Short \"quoted\" summary."));
    QJsonParseError err;
    const QJsonObject o = QJsonDocument::fromJson(lib.export_summary(s, ExportFormat::Json).toUtf8(), &err).object();
    ASSERT_EQ(err.error, QJsonParseError::NoError);
    EXPECT_EQ(o["id"].toInteger(), s);
    EXPECT_EQ(o["summary"].toString(), "Short \"quoted\" summary.");
    EXPECT_EQ(o["document"].toObject()["id"].toInteger(), doc);
    EXPECT_EQ(o["document"].toObject()["title"].toString(), "Paper");
    EXPECT_EQ(o["document"].toObject()["path"].toString(), "/p/paper.txt");
    EXPECT_EQ(o["document"].toObject()["content_hash"].toString().size(), 64);
    EXPECT_EQ(o["model"].toObject()["name"].toString(), "lsg-bart-base");
    EXPECT_EQ(o["parameters"].toObject()["length_penalty"].toDouble(), 2.0);
    EXPECT_EQ(o["summary_ids"].toArray(), (QJsonArray{0, 133, 4420, 2}));
    EXPECT_EQ(o["input_tokens"].toInteger(), 4096);
    EXPECT_TRUE(o["truncated"].toBool());
    EXPECT_DOUBLE_EQ(o["seconds"].toObject()["encode"].toDouble(), 1.25);
    EXPECT_DOUBLE_EQ(o["seconds"].toObject()["generate"].toDouble(), 3.5);
    EXPECT_EQ(o["device"].toString(), "cpu");
    EXPECT_TRUE(QDateTime::fromString(o["created_at"].toString(), Qt::ISODateWithMs).isValid());
}

TEST_F(LibraryTest, SourcePassagesAreStoredWithTheSummaryOrAddedLater) {
    Library lib(db_path());
    const qint64 doc = lib.add_or_get_document(make_doc("Rivers", "Rivers move. Sand settles. Deltas grow."));
    SummaryRecord with = make_summary(doc, "with passages");
    with.passages = QVector<SourcePassage>{{0, 13, 0.625, -1}, {26, 39, 0.25, 3}};
    const qint64 a = lib.add_summary(with);
    const qint64 b = lib.add_summary(make_summary(doc, "without passages"));
    EXPECT_EQ(lib.summary(a)->passages, with.passages);
    EXPECT_FALSE(lib.summary(b)->passages.has_value());

    EXPECT_TRUE(lib.set_summary_passages(b, {}));
    ASSERT_TRUE(lib.summary(b)->passages.has_value());  // traced: none found is not "unknown"
    EXPECT_TRUE(lib.summary(b)->passages->isEmpty());
    EXPECT_TRUE(lib.set_summary_passages(b, {{14, 25, 1.0, 0}}));
    EXPECT_EQ(lib.summary(b)->passages, (QVector<SourcePassage>{{14, 25, 1.0, 0}}));
    EXPECT_FALSE(lib.set_summary_passages(999, {}));
}

TEST_F(LibraryTest, ExportsQuoteTheSourcePassagesWithPageAndWeight) {
    Library lib(db_path());
    const qint64 doc = lib.add_or_get_document(make_doc("Rivers", "Rivers move. Sand settles. Deltas grow."));
    SummaryRecord rec = make_summary(doc, "Rivers build deltas.");
    rec.passages = QVector<SourcePassage>{{0, 12, 0.5, -1}, {27, 39, 0.25, 2}};
    const qint64 id = lib.add_summary(rec);

    const QString md = lib.export_summary(id, ExportFormat::Markdown);
    EXPECT_TRUE(md.contains("## Source passages\n\nWhere the summary drew most of its attention")) << md.toStdString();
    EXPECT_TRUE(md.contains("> Rivers move. (50.0%)")) << md.toStdString();
    EXPECT_TRUE(md.contains("> Deltas grow. (p. 3, 25.0%)")) << md.toStdString();

    const QJsonArray passages = QJsonDocument::fromJson(lib.export_summary(id, ExportFormat::Json).toUtf8())
                                    .object()["source_passages"].toArray();
    ASSERT_EQ(passages.size(), 2);
    EXPECT_EQ(passages[1].toObject()["text"].toString(), "Deltas grow.");
    EXPECT_EQ(passages[1].toObject()["page"].toInt(), 2);
    EXPECT_DOUBLE_EQ(passages[0].toObject()["weight"].toDouble(), 0.5);

    // Never traced: no section, no key.
    const qint64 plain = lib.add_summary(make_summary(doc, "plain"));
    EXPECT_FALSE(lib.export_summary(plain, ExportFormat::Markdown).contains("Source passages"));
    EXPECT_FALSE(QJsonDocument::fromJson(lib.export_summary(plain, ExportFormat::Json).toUtf8()).object().contains("source_passages"));
}

TEST_F(LibraryTest, ExportOfMissingSummaryIsNotFound) {
    Library lib(db_path());
    const LibraryError e = expect_library_error([&] { lib.export_summary(9, ExportFormat::Json); },
                                                LibraryErrorKind::NotFound);
    EXPECT_TRUE(e.message().contains("summary 9")) << e.what();
}

TEST_F(LibraryTest, LabelFilterFindsDocumentsByLabelAndMinimumScore) {
    Library lib(db_path());
    const qint64 a = lib.add_or_get_document(make_doc("A", "a"));
    const qint64 b = lib.add_or_get_document(make_doc("B", "b"));
    const qint64 c = lib.add_or_get_document(make_doc("C", "c"));
    lib.add_classifications({{0, a, "clf", {}, "sports", 0.95, {}}, {0, a, "clf", {}, "politics", 0.05, {}}});
    lib.add_classifications({{0, b, "clf", {{"threshold", 0.5}}, "politics", 0.7, {}}});
    lib.add_classification({0, c, "clf", {}, "sports", 0.4, {}});
    EXPECT_EQ(lib.labels(), (QStringList{"politics", "sports"}));

    auto ids = [](const QVector<DocumentInfo>& docs) {
        QVector<qint64> out;
        for (const DocumentInfo& d : docs) out.push_back(d.id);
        return out;
    };
    EXPECT_EQ(ids(lib.documents_with_label("sports")), (QVector<qint64>{c, a}));
    EXPECT_EQ(ids(lib.documents_with_label("sports", 0.5)), (QVector<qint64>{a}));
    EXPECT_EQ(ids(lib.documents_with_label("politics", 0.5)), (QVector<qint64>{b}));
    EXPECT_TRUE(lib.documents_with_label("weather").isEmpty());

    const QVector<ClassificationRecord> ca = lib.classifications_for(a);
    ASSERT_EQ(ca.size(), 2);
    EXPECT_EQ(ca[0].label, "sports");  // same run: higher score first
    EXPECT_EQ(lib.classifications_for(b)[0].parameters.value("threshold").toDouble(), 0.5);
}

TEST_F(LibraryTest, ClassificationsAreAllOrNothing) {
    Library lib(db_path());
    const qint64 a = lib.add_or_get_document(make_doc("A", "a"));
    expect_library_error([&] { lib.add_classifications({{0, a, "clf", {}, "ok", 0.9, {}}, {0, 777, "clf", {}, "bad", 0.1, {}}}); },
                         LibraryErrorKind::NotFound);
    EXPECT_TRUE(lib.classifications_for(a).isEmpty());
}

TEST_F(LibraryTest, ModelRegistryUpdatesAnEntryByPath) {
    Library lib(db_path());
    const qint64 m1 = lib.register_model({0, "bart-base", "/models/bart", "bart", "full", {}});
    const qint64 m2 = lib.register_model({0, "lsg-base", "/models/lsg", "bart", "lsg", {}});
    const qint64 again = lib.register_model({0, "bart-base-v2", "/models/bart", "bart", "lsg", {}});
    EXPECT_EQ(again, m1);
    const QVector<ModelRecord> models = lib.models();
    ASSERT_EQ(models.size(), 2);
    EXPECT_EQ(models[0].name, "bart-base-v2");
    EXPECT_EQ(models[0].attention, "lsg");
    EXPECT_EQ(lib.model(m2)->name, "lsg-base");
    EXPECT_TRUE(lib.remove_model(m2));
    EXPECT_FALSE(lib.model(m2));
    EXPECT_EQ(lib.models().size(), 1);
}

TEST_F(LibraryTest, BatchJobResumesWithoutRedoingDoneFiles) {
    Library lib(db_path());
    const QStringList files = {"/in/a.txt", "/in/b.txt", "/in/c.txt"};
    const BatchJobStart start = lib.start_or_resume_job("/in/", files, "model=x");
    EXPECT_FALSE(start.resumed);
    EXPECT_EQ(start.pending, files);

    const qint64 doc = lib.add_or_get_document(make_doc("a", "a text"));
    const qint64 s = lib.add_summary_for_batch_item(start.job_id, "/in/a.txt", make_summary(doc, "sum a"));
    lib.mark_item_failed(start.job_id, "/in/b.txt", "File \"/in/b.txt\" is empty.");

    const BatchJobStart resumed = lib.start_or_resume_job("/in", files + QStringList{"/in/d.txt"}, "model=x");
    EXPECT_TRUE(resumed.resumed);
    EXPECT_EQ(resumed.job_id, start.job_id);
    EXPECT_EQ(resumed.pending, (QStringList{"/in/c.txt", "/in/d.txt"}));
    EXPECT_EQ(resumed.done, 1);
    EXPECT_EQ(resumed.failed, 1);

    // Finishing an item twice (e.g. two runners) stores one summary.
    EXPECT_EQ(lib.add_summary_for_batch_item(start.job_id, "/in/a.txt", make_summary(doc, "dup")), s);
    EXPECT_EQ(lib.summaries_for(doc).size(), 1);
    // A failure reported after success does not undo it.
    lib.mark_item_failed(start.job_id, "/in/a.txt", "late");

    const QVector<BatchItem> items = lib.batch_items(start.job_id);
    ASSERT_EQ(items.size(), 4);
    EXPECT_EQ(items[0].status, BatchItemStatus::Done);
    EXPECT_EQ(items[0].summary_id, s);
    EXPECT_EQ(items[1].status, BatchItemStatus::Failed);
    EXPECT_EQ(items[1].error, "File \"/in/b.txt\" is empty.");

    const BatchJobStart retry = lib.start_or_resume_job("/in", files, "model=x", /*retry_failed=*/true);
    EXPECT_EQ(retry.pending, (QStringList{"/in/b.txt", "/in/c.txt", "/in/d.txt"}));

    // Other settings are another job.
    const BatchJobStart other = lib.start_or_resume_job("/in", files, "model=y");
    EXPECT_NE(other.job_id, start.job_id);
    EXPECT_EQ(other.pending.size(), 3);

    const std::optional<BatchJobInfo> info = lib.batch_job(start.job_id);
    ASSERT_TRUE(info);
    EXPECT_EQ(info->root, "/in");
    EXPECT_EQ(info->done, 1);
    EXPECT_EQ(info->pending, 3);
    EXPECT_EQ(lib.batch_jobs().size(), 2);
}

TEST_F(LibraryTest, BatchItemMarkedDoneWithAnExistingSummary) {
    Library lib(db_path());
    const BatchJobStart job = lib.start_or_resume_job("/in", {"/in/a.txt"});
    const qint64 doc = lib.add_or_get_document(make_doc("a", "a text"));
    const qint64 s = lib.add_summary(make_summary(doc, "earlier"));
    lib.mark_item_done(job.job_id, "/in/a.txt", s);
    EXPECT_EQ(lib.batch_items(job.job_id)[0].summary_id, s);
    EXPECT_TRUE(lib.start_or_resume_job("/in", {"/in/a.txt"}).pending.isEmpty());
    expect_library_error([&] { lib.mark_item_done(job.job_id, "/in/a.txt", s + 50); }, LibraryErrorKind::NotFound);
}

TEST_F(LibraryTest, UnknownBatchItemIsNotFoundAndStoresNothing) {
    Library lib(db_path());
    const BatchJobStart job = lib.start_or_resume_job("/in", {"/in/a.txt"});
    const qint64 doc = lib.add_or_get_document(make_doc("a", "a text"));
    const LibraryError e = expect_library_error(
        [&] { lib.add_summary_for_batch_item(job.job_id, "/in/zzz.txt", make_summary(doc, "x")); },
        LibraryErrorKind::NotFound);
    EXPECT_TRUE(e.message().contains("zzz.txt")) << e.what();
    EXPECT_TRUE(lib.summaries_for(doc).isEmpty());
    expect_library_error([&] { lib.mark_item_failed(job.job_id + 1, "/in/a.txt", "x"); }, LibraryErrorKind::NotFound);
}

TEST_F(LibraryTest, DeletingASummaryOfADoneBatchItemKeepsItDone) {
    Library lib(db_path());
    const BatchJobStart job = lib.start_or_resume_job("/in", {"/in/a.txt"});
    const qint64 doc = lib.add_or_get_document(make_doc("a", "a text"));
    const qint64 s = lib.add_summary_for_batch_item(job.job_id, "/in/a.txt", make_summary(doc, "x"));
    EXPECT_TRUE(lib.delete_summary(s));
    const QVector<BatchItem> items = lib.batch_items(job.job_id);
    EXPECT_EQ(items[0].status, BatchItemStatus::Done);
    EXPECT_EQ(items[0].summary_id, 0);
    EXPECT_TRUE(lib.delete_batch_job(job.job_id));
    EXPECT_TRUE(lib.batch_items(job.job_id).isEmpty());
    EXPECT_TRUE(lib.document(doc));
}

TEST(LibraryDefaultPath, EnvironmentOverridesTheDataFolder) {
    qputenv("PRECIS_LIBRARY", "/tmp/elsewhere/lib.sqlite");
    EXPECT_EQ(Library::default_path(), "/tmp/elsewhere/lib.sqlite");
    qunsetenv("PRECIS_LIBRARY");
    EXPECT_TRUE(Library::default_path().endsWith("/library.sqlite"));
}
