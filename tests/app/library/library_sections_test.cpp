// A long document's outline in the library (SummaryRecord::sections, schema v5): stored
// with its summary in one transaction and read back in order, gone with the summary or
// the document, exported as Markdown and JSON, found by search, shown by
// `precis library show`, and safe to read from a file edited by hand.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <climits>

#include "app/file_names.h"
#include "app/ingest/ingest.h"
#include "app/library/library.h"
#include "tests/app/in_process_cli.h"

namespace precis::test {
namespace {

IngestedDocument make_doc(const QString& title, const QString& text, int pages = 0) {
    IngestedDocument d;
    d.path = QStringLiteral("/docs/%1.%2").arg(title, pages > 0 ? "pdf" : "txt");
    d.title = title;
    d.text = text;
    d.pages = pages;
    d.encoding = pages > 0 ? QStringLiteral("PDF") : QStringLiteral("UTF-8");
    d.content_hash = QCryptographicHash::hash(text.toUtf8(), QCryptographicHash::Sha256).toHex();
    return d;
}

SummaryRecord make_summary(qint64 doc, const QString& text, const DocumentOutline& sections = {}) {
    SummaryRecord s;
    s.document_id = doc;
    s.model_name = QStringLiteral("lsg-bart-base");
    s.model_path = QStringLiteral("/models/lsg-bart-base");
    s.parameters = QJsonObject{{"num_beams", 4}};
    s.summary = text;
    s.summary_ids = {0, 7, 2};
    s.input_tokens = 9000;
    s.device = QStringLiteral("cpu");
    s.sections = sections;
    return s;
}

// A report of three parts on 9 PDF pages, as the long summarizer outlines it.
const DocumentOutline kPdfOutline = {
    {"Introduction", 0, 120, 0, 1, "The survey counts seabirds on the northern cliffs.", 310},
    {"Methods", 120, 480, 2, 6, "Observers photographed each colony twice, in May and July.", 2048},
    {"Results", 480, 700, 7, 8, "Kittiwake nests fell by a third; guillemots held steady.", 1500},
};

QString report_text() { return QString(700, QLatin1Char('x')); }

class LibrarySectionsTest : public ::testing::Test {
protected:
    QTemporaryDir dir_;
    QString db_path() const { return dir_.filePath(QStringLiteral("library.sqlite")); }

    int raw_count(const char* sql) {
        sqlite3* db = nullptr;
        EXPECT_EQ(sqlite3_open(path_to_native(db_path()).constData(), &db), SQLITE_OK);
        sqlite3_stmt* st = nullptr;
        EXPECT_EQ(sqlite3_prepare_v2(db, sql, -1, &st, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
        const int n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
        sqlite3_finalize(st);
        sqlite3_close(db);
        return n;
    }
    void raw_exec(const char* sql) {
        sqlite3* db = nullptr;
        ASSERT_EQ(sqlite3_open(path_to_native(db_path()).constData(), &db), SQLITE_OK);
        char* err = nullptr;
        EXPECT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
        sqlite3_free(err);
        sqlite3_close(db);
    }
};

TEST_F(LibrarySectionsTest, SectionsRoundTripInOrderWithEveryField) {
    Library lib(db_path());
    const qint64 doc = lib.add_or_get_document(make_doc("Seabirds", report_text(), 9));
    const qint64 one_pass = lib.add_summary(make_summary(doc, "One pass."));
    const qint64 outlined = lib.add_summary(make_summary(doc, "Seabird numbers changed.", kPdfOutline));

    ASSERT_TRUE(lib.summary(outlined));
    EXPECT_EQ(lib.summary(outlined)->sections, kPdfOutline);  // every field, in document order
    EXPECT_TRUE(lib.summary(one_pass)->sections.isEmpty());

    const QVector<SummaryRecord> history = lib.summaries_for(doc);
    ASSERT_EQ(history.size(), 2);
    EXPECT_EQ(history[0].id, outlined);
    EXPECT_EQ(history[0].sections, kPdfOutline);
    EXPECT_TRUE(history[1].sections.isEmpty());

    const QVector<DocumentListItem> list = lib.documents();
    ASSERT_EQ(list.size(), 1);
    ASSERT_TRUE(list[0].latest_summary);
    EXPECT_EQ(list[0].latest_summary->sections, kPdfOutline);
}

TEST_F(LibrarySectionsTest, ManySectionsKeepTheirOrderAndTextFileSectionsHaveNoPages) {
    Library lib(db_path());
    const qint64 doc = lib.add_or_get_document(make_doc("Novel", QString(5000, QLatin1Char('y'))));
    DocumentOutline outline;
    for (int i = 0; i < 40; ++i)  // titles that sort differently from their order
        outline.push_back({QStringLiteral("CHAPTER %1").arg(40 - i), i * 100, i * 100 + 100, -1, -1,
                           QStringLiteral("Chapter summary %1.").arg(i), 100 + i});
    const qint64 id = lib.add_summary(make_summary(doc, "A long novel.", outline));
    EXPECT_EQ(lib.summary(id)->sections, outline);
}

TEST_F(LibrarySectionsTest, ABatchItemSummaryKeepsItsSections) {
    Library lib(db_path());
    const qint64 doc = lib.add_or_get_document(make_doc("Seabirds", report_text(), 9));
    const BatchJobStart job = lib.start_or_resume_job("/docs", {"/docs/Seabirds.pdf"});
    const qint64 id = lib.add_summary_for_batch_item(job.job_id, "/docs/Seabirds.pdf", make_summary(doc, "S.", kPdfOutline));
    EXPECT_EQ(lib.summary(id)->sections, kPdfOutline);
}

TEST_F(LibrarySectionsTest, ASectionThatCannotBeStoredStoresNoSummaryEither) {
    { Library create(db_path()); }
    raw_exec("CREATE TRIGGER refuse_methods BEFORE INSERT ON summary_sections WHEN new.title = 'Methods' "
             "BEGIN SELECT RAISE(ABORT, 'refused'); END;");
    Library lib(db_path());
    const qint64 doc = lib.add_or_get_document(make_doc("Seabirds", report_text(), 9));
    EXPECT_THROW(lib.add_summary(make_summary(doc, "Never stored.", kPdfOutline)), LibraryError);
    EXPECT_TRUE(lib.summaries_for(doc).isEmpty());
    EXPECT_EQ(raw_count("SELECT count(*) FROM summary_sections"), 0);
    EXPECT_TRUE(lib.search("seabirds").size() == 1 && lib.search("seabirds")[0].summary_id == 0);
}

TEST_F(LibrarySectionsTest, DeletingASummaryOrItsDocumentRemovesItsSectionsFromTableAndSearch) {
    Library lib(db_path());
    const qint64 doc = lib.add_or_get_document(make_doc("Seabirds", report_text(), 9));
    const qint64 first = lib.add_summary(make_summary(doc, "First.", kPdfOutline));
    const qint64 second = lib.add_summary(make_summary(doc, "Second.", kPdfOutline));
    EXPECT_EQ(raw_count("SELECT count(*) FROM summary_sections"), 6);

    EXPECT_TRUE(lib.delete_summary(first));
    EXPECT_EQ(raw_count("SELECT count(*) FROM summary_sections"), 3);
    ASSERT_EQ(lib.search("kittiwake").size(), 1);
    EXPECT_EQ(lib.search("kittiwake")[0].summary_id, second);

    EXPECT_TRUE(lib.delete_document(doc));
    EXPECT_EQ(raw_count("SELECT count(*) FROM summary_sections"), 0);
    EXPECT_TRUE(lib.search("kittiwake").isEmpty());
    // The index holds no stale rows either (an external-content FTS5 table would still
    // report them through its own index).
    EXPECT_EQ(raw_count("SELECT count(*) FROM summary_sections_fts WHERE summary_sections_fts MATCH 'kittiwake'"), 0);
}

TEST_F(LibrarySectionsTest, ExportJsonListsSectionsWithZeroBasedPagesOrNull) {
    Library lib(db_path());
    const qint64 pdf = lib.add_or_get_document(make_doc("Seabirds", report_text(), 9));
    const qint64 id = lib.add_summary(make_summary(pdf, "Seabird numbers changed.", kPdfOutline));
    const QJsonObject o = QJsonDocument::fromJson(lib.export_summary(id, ExportFormat::Json).toUtf8()).object();
    const QJsonArray sections = o.value("sections").toArray();
    ASSERT_EQ(sections.size(), 3);
    const QJsonObject methods = sections[1].toObject();
    EXPECT_EQ(methods.value("title").toString(), "Methods");
    EXPECT_EQ(methods.value("start").toInt(), 120);
    EXPECT_EQ(methods.value("end").toInt(), 480);
    EXPECT_EQ(methods.value("pages").toArray(), (QJsonArray{2, 6}));
    EXPECT_EQ(methods.value("summary").toString(), kPdfOutline[1].summary);
    EXPECT_EQ(methods.value("tokens").toInt(), 2048);
    EXPECT_EQ(sections[2].toObject().value("title").toString(), "Results");

    const qint64 txt = lib.add_or_get_document(make_doc("Novel", "Once upon a time."));
    const qint64 text_id = lib.add_summary(make_summary(txt, "A tale.", {{"CHAPTER I", 0, 17, -1, -1, "It begins.", 5}}));
    const QJsonObject t = QJsonDocument::fromJson(lib.export_summary(text_id, ExportFormat::Json).toUtf8()).object();
    ASSERT_EQ(t.value("sections").toArray().size(), 1);
    EXPECT_TRUE(t.value("sections").toArray()[0].toObject().value("pages").isNull());

    // Made in one pass: the key is there, empty.
    const qint64 plain = lib.add_summary(make_summary(txt, "Plain."));
    const QJsonObject p = QJsonDocument::fromJson(lib.export_summary(plain, ExportFormat::Json).toUtf8()).object();
    ASSERT_TRUE(p.contains("sections"));
    EXPECT_EQ(p.value("sections").toArray(), QJsonArray{});
}

TEST_F(LibrarySectionsTest, ExportMarkdownHasASectionsPartAfterTheSummaryWithOneBasedPages) {
    Library lib(db_path());
    const qint64 pdf = lib.add_or_get_document(make_doc("Seabirds", report_text(), 9));
    DocumentOutline outline = kPdfOutline;
    outline[2].first_page = outline[2].last_page = 8;  // one page
    const qint64 id = lib.add_summary(make_summary(pdf, "Seabird numbers changed.", outline));
    const QString md = lib.export_summary(id, ExportFormat::Markdown);
    const std::string shown = md.toStdString();
    EXPECT_TRUE(md.contains("Seabird numbers changed.\n\n## Sections\n\n### Introduction (pages 1-2)\n\n"
                            "The survey counts seabirds on the northern cliffs.\n\n"
                            "### Methods (pages 3-7)\n\nObservers photographed each colony twice, in May and July.\n\n"
                            "### Results (page 9)\n\nKittiwake nests fell by a third; guillemots held steady.\n\n---\n"))
        << shown;

    const qint64 txt = lib.add_or_get_document(make_doc("Novel", "Once upon a time."));
    const qint64 text_id = lib.add_summary(make_summary(txt, "A tale.", {{"CHAPTER I", 0, 17, -1, -1, "It begins.", 5}}));
    const QString text_md = lib.export_summary(text_id, ExportFormat::Markdown);
    EXPECT_TRUE(text_md.contains("## Sections\n\n### CHAPTER I\n\nIt begins.\n")) << text_md.toStdString();

    const qint64 plain = lib.add_summary(make_summary(txt, "Plain."));
    EXPECT_FALSE(lib.export_summary(plain, ExportFormat::Markdown).contains("Sections"));
}

TEST_F(LibrarySectionsTest, SearchFindsAWordOnlyInASectionSummary) {
    Library lib(db_path());
    const qint64 other = lib.add_or_get_document(make_doc("Other", "Nothing about birds here."));
    lib.add_summary(make_summary(other, "Unrelated."));
    const qint64 doc = lib.add_or_get_document(make_doc("Seabirds", report_text(), 9));
    const qint64 id = lib.add_summary(make_summary(doc, "Seabird numbers changed.", kPdfOutline));

    const QVector<SearchHit> hits = lib.search("guillemots");  // neither in the text nor in the summary
    ASSERT_EQ(hits.size(), 1);
    EXPECT_EQ(hits[0].document_id, doc);
    EXPECT_EQ(hits[0].summary_id, id);
    EXPECT_TRUE(hits[0].document_snippet.isEmpty());
    EXPECT_TRUE(hits[0].summary_snippet.contains("[guillemots]")) << hits[0].summary_snippet.toStdString();
    EXPECT_EQ(hits[0].section_title, "Results");
    // All the words in one section; a prefix too.
    EXPECT_EQ(lib.search("colony photographed").size(), 1);
    EXPECT_EQ(lib.search("kittiw*").size(), 1);

    // A match in the summary itself says no section.
    const QVector<SearchHit> own = lib.search("numbers");
    ASSERT_EQ(own.size(), 1);
    EXPECT_EQ(own[0].summary_id, id);
    EXPECT_TRUE(own[0].section_title.isEmpty());
}

TEST_F(LibrarySectionsTest, SectionRowsEditedByHandComeBackAsRangesOurCodeCouldWrite) {
    qint64 id = 0;
    {
        Library lib(db_path());
        const qint64 doc = lib.add_or_get_document(make_doc("Seabirds", report_text(), 9));
        id = lib.add_summary(make_summary(doc, "S.", kPdfOutline));
    }
    raw_exec("UPDATE summary_sections SET start = -5, \"end\" = -9, first_page = 2147483647, last_page = 3, "
             "tokens = -1 WHERE position = 0;"
             "UPDATE summary_sections SET start = 9000000000, first_page = 4, last_page = 1 WHERE position = 1;");
    Library lib(db_path());
    const DocumentOutline back = lib.summary(id)->sections;
    ASSERT_EQ(back.size(), 3);
    EXPECT_EQ(back[0].start, 0);
    EXPECT_EQ(back[0].end, 0);
    EXPECT_EQ(back[0].first_page, -1);
    EXPECT_EQ(back[0].last_page, -1);
    EXPECT_EQ(back[0].tokens, 0);
    EXPECT_EQ(back[1].start, INT_MAX);
    EXPECT_GE(back[1].end, back[1].start);
    EXPECT_EQ(back[1].first_page, -1);
    EXPECT_EQ(back[2], kPdfOutline[2]);
    EXPECT_FALSE(lib.export_summary(id, ExportFormat::Markdown).isEmpty());
}

TEST_F(LibrarySectionsTest, LibraryShowPrintsEachSectionWithPagesAfterItsSummary) {
    qint64 doc = 0;
    {
        Library lib(db_path());
        doc = lib.add_or_get_document(make_doc("Seabirds", report_text(), 9));
        lib.add_summary(make_summary(doc, "Seabird numbers changed.", kPdfOutline));
    }
    const CliResult r = run_cli_in_process({"library", "show", std::to_string(doc), "--library", db_path().toStdString()});
    ASSERT_EQ(r.code, 0) << r.err;
    const size_t summary = r.out.find("Seabird numbers changed.");
    const size_t sections = r.out.find("sections: 3\n");
    ASSERT_NE(summary, std::string::npos) << r.out;
    ASSERT_NE(sections, std::string::npos) << r.out;
    EXPECT_LT(summary, sections);
    EXPECT_TRUE(contains(r.out, "  1. Introduction (pages 1-2): The survey counts seabirds on the northern cliffs.\n")) << r.out;
    EXPECT_TRUE(contains(r.out, "  3. Results (pages 8-9): Kittiwake nests")) << r.out;

    const CliResult found = run_cli_in_process({"library", "search", "guillemots", "--library", db_path().toStdString()});
    ASSERT_EQ(found.code, 0) << found.err;
    EXPECT_TRUE(contains(found.out, "section: Results: ")) << found.out;
}

}  // namespace
}  // namespace precis::test
