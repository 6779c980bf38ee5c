// Ingestion of PDFs the tests draw themselves with QPdfWriter: running headers/footers
// and page numbers dropped, hyphenated line breaks joined, paragraphs unwrapped (also
// across a page break), page offsets, image-only pages, and damaged, empty and
// password-protected files (encrypted with the qpdf tool when it is installed), and the
// outline (bookmarks: PDFs written by hand, tests/support/simple_pdf.h, since QPdfWriter
// cannot write one). Every test runs twice: Poppler inside the test, and in the
// precis-pdf-reader process (app/ingest/pdf_reader_process.h), which must read every file
// the same way.
#include <gtest/gtest.h>

#include <QFile>
#include <QGuiApplication>
#include <QImage>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <cstdlib>

#include "app/ingest/ingest.h"
#include "tests/support/simple_pdf.h"

using namespace precis;

namespace {

struct PageSpec {
    QVector<QStringList> paragraphs;  // lines of each paragraph
    bool image_only = false;
};

constexpr int kLineStep = 14;       // points between lines of a paragraph
constexpr int kParagraphStep = 30;  // points between paragraphs

// Draws pages at 72 dpi (1 unit = 1 point) with a running header and a "Page N of M"
// footer on every page that is not image-only.
void write_pdf(const QString& path, const QVector<PageSpec>& pages, const QString& title = {},
               const QString& header = QStringLiteral("ACME Corp Annual Report")) {
    QPdfWriter writer(path);
    writer.setPageSize(QPageSize(QPageSize::A4));
    writer.setPageMargins(QMarginsF(0, 0, 0, 0));
    writer.setResolution(72);
    if (!title.isEmpty()) writer.setTitle(title);
    QPainter painter(&writer);
    QFont font(QStringLiteral("DejaVu Serif"));
    font.setPointSize(11);
    painter.setFont(font);
    for (int i = 0; i < pages.size(); ++i) {
        if (i > 0) writer.newPage();
        const PageSpec& page = pages[i];
        if (page.image_only) {
            QImage image(400, 300, QImage::Format_RGB32);
            image.fill(Qt::white);
            QPainter ip(&image);
            ip.fillRect(40, 40, 320, 20, Qt::black);  // looks like a scanned line, is not text
            ip.fillRect(40, 80, 280, 20, Qt::black);
            ip.end();
            painter.drawImage(QRectF(60, 100, 400, 300), image);
            continue;
        }
        if (!header.isEmpty()) painter.drawText(60, 40, header);
        int y = 100;
        for (const QStringList& paragraph : page.paragraphs) {
            for (const QString& line : paragraph) {
                painter.drawText(60, y, line);
                y += kLineStep;
            }
            y += kParagraphStep - kLineStep;
        }
        painter.drawText(260, 800, QStringLiteral("Page %1 of %2").arg(i + 1).arg(pages.size()));
    }
}

QVector<PageSpec> report_pages() {
    PageSpec p1, p2, p3;
    p1.paragraphs = {{"The committee reviewed the infor-", "mation provided by the well-known",
                      "auditors and approved the budget."},
                     {"Revenue grew in every region during", "the year, driven by strong demand"}};
    p2.paragraphs = {{"for the new product line."}, {"Costs were kept under control."}};
    p3.paragraphs = {{"Outlook remains positive."}};
    return {p1, p2, p3};
}

const QString kReportText = QStringLiteral(
    "The committee reviewed the information provided by the well-known auditors and approved the budget.\n\n"
    "Revenue grew in every region during the year, driven by strong demand for the new product line.\n\n"
    "Costs were kept under control.\n\n"
    "Outlook remains positive.");

enum class Reader { InProcess, ReaderProcess };

class IngestPdf : public ::testing::TestWithParam<Reader> {
protected:
    // find_pdf_reader() takes $PRECIS_PDF_READER first; empty means "none installed".
    void SetUp() override {
        const std::string reader = std::string(PRECIS_BINARY_DIR_FOR_TESTS) + "/bin/precis-pdf-reader";
        setenv("PRECIS_PDF_READER", GetParam() == Reader::ReaderProcess ? reader.c_str() : "", 1);
    }
    void TearDown() override { unsetenv("PRECIS_PDF_READER"); }

    QTemporaryDir dir_;
    QString path(const QString& name) const { return dir_.filePath(name); }

    static IngestErrorKind error_kind(const QString& file, const IngestOptions& opts = {}, QString* message = nullptr) {
        try {
            ingest_file(file, opts);
        } catch (const IngestError& e) {
            if (message) *message = e.message();
            return e.kind();
        }
        ADD_FAILURE() << "no error for " << file.toStdString();
        return IngestErrorKind::NotFound;
    }
};

}  // namespace

TEST_P(IngestPdf, MultiPageReportBecomesCleanRunningText) {
    const QString file = path("report.pdf");
    write_pdf(file, report_pages(), QStringLiteral("Annual Report 2023"));
    const IngestedDocument doc = ingest_file(file);
    EXPECT_EQ(doc.text, kReportText);
    EXPECT_EQ(doc.pages, 3);
    EXPECT_EQ(doc.encoding, "PDF");
    EXPECT_EQ(doc.title, "Annual Report 2023");
    EXPECT_EQ(doc.content_hash.size(), 64);
}

TEST_P(IngestPdf, RepeatedHeadersFootersAndPageNumbersAreDroppedAndReported) {
    const QString file = path("report.pdf");
    write_pdf(file, report_pages());
    const IngestedDocument doc = ingest_file(file);
    EXPECT_FALSE(doc.text.contains("ACME"));
    EXPECT_FALSE(doc.text.contains("Page "));
    EXPECT_TRUE(doc.notes.contains("6 repeated header/footer lines removed")) << doc.notes.join("; ").toStdString();
    EXPECT_EQ(doc.title, "report");  // no metadata title: the file name
}

TEST_P(IngestPdf, HyphenatedLineBreakIsJoinedButRealHyphensStay) {
    const QString file = path("report.pdf");
    write_pdf(file, report_pages());
    const IngestedDocument doc = ingest_file(file);
    EXPECT_TRUE(doc.text.contains("the information provided"));
    EXPECT_FALSE(doc.text.contains("infor-"));
    EXPECT_TRUE(doc.text.contains("the well-known auditors"));
}

TEST_P(IngestPdf, PageOffsetsPointAtEachPagesFirstWords) {
    const QString file = path("report.pdf");
    write_pdf(file, report_pages());
    const IngestedDocument doc = ingest_file(file);
    ASSERT_EQ(doc.page_offsets.size(), 3);
    EXPECT_EQ(doc.page_offsets[0], 0);
    // Page 2 starts in the middle of a paragraph that runs across the page break.
    EXPECT_TRUE(doc.text.mid(doc.page_offsets[1]).startsWith("for the new product line.")) << doc.page_offsets[1];
    EXPECT_TRUE(doc.text.mid(doc.page_offsets[2]).startsWith("Outlook remains positive."));
}

TEST_P(IngestPdf, SinglePageKeepsHeaderAndFooterBecauseNothingRepeats) {
    // A single page: nothing can be recognized as a running header, so nothing is dropped.
    const QString file = path("single.pdf");
    PageSpec p;
    p.paragraphs = {{"A lone page with a short", "paragraph of wrapped text."}};
    write_pdf(file, {p});
    const IngestedDocument doc = ingest_file(file);
    EXPECT_EQ(doc.text, "ACME Corp Annual Report\n\nA lone page with a short paragraph of wrapped text.\n\nPage 1 of 1");
    EXPECT_TRUE(doc.notes.isEmpty());
}

TEST_P(IngestPdf, ImageOnlyPdfHasNoTextLayer) {
    const QString file = path("scan.pdf");
    PageSpec img;
    img.image_only = true;
    write_pdf(file, {img, img});
    QString message;
    EXPECT_EQ(error_kind(file, {}, &message), IngestErrorKind::NoTextLayer);
    EXPECT_TRUE(message.contains("scan.pdf")) << message.toStdString();
    EXPECT_TRUE(message.contains("OCR"));
}

TEST_P(IngestPdf, ImageOnlyPageInsideATextPdfIsReported) {
    const QString file = path("mixed.pdf");
    PageSpec text1, img, text2;
    text1.paragraphs = {{"First page text."}};
    img.image_only = true;
    text2.paragraphs = {{"Third page text."}};
    write_pdf(file, {text1, img, text2});
    const IngestedDocument doc = ingest_file(file);
    EXPECT_EQ(doc.text, "First page text.\n\nThird page text.");
    ASSERT_EQ(doc.page_offsets.size(), 3);
    EXPECT_TRUE(doc.text.mid(doc.page_offsets[2]).startsWith("Third"));
    EXPECT_TRUE(doc.notes.contains("page 2 has no text layer (images only)")) << doc.notes.join("; ").toStdString();
}

TEST_P(IngestPdf, EmptyPdfFileIsEmptyError) {
    const QString file = path("empty.pdf");
    QFile f(file);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.close();
    EXPECT_EQ(error_kind(file), IngestErrorKind::Empty);
}

TEST_P(IngestPdf, GarbageWithPdfExtensionIsCorrupt) {
    const QString file = path("fake.pdf");
    QFile f(file);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write("This is not a PDF at all, just some words.\n");
    f.close();
    QString message;
    EXPECT_EQ(error_kind(file, {}, &message), IngestErrorKind::Corrupt);
    EXPECT_TRUE(message.contains("fake.pdf")) << message.toStdString();
}

TEST_P(IngestPdf, TruncatedPdfIsCorrupt) {
    const QString good = path("good.pdf");
    write_pdf(good, report_pages());
    QFile in(good);
    ASSERT_TRUE(in.open(QIODevice::ReadOnly));
    const QByteArray bytes = in.readAll();
    const QString cut = path("cut.pdf");
    QFile out(cut);
    ASSERT_TRUE(out.open(QIODevice::WriteOnly));
    out.write(bytes.left(200));  // header and the start of the first object only
    out.close();
    EXPECT_EQ(error_kind(cut), IngestErrorKind::Corrupt);
}

TEST_P(IngestPdf, EncryptedPdfNeedsTheRightPassword) {
    const QString qpdf = QStandardPaths::findExecutable(QStringLiteral("qpdf"));
    if (qpdf.isEmpty()) GTEST_SKIP() << "qpdf is not installed (packaging/install-deps.sh installs it)";
    const QString plain = path("plain.pdf"), locked = path("locked.pdf");
    write_pdf(plain, report_pages());
    QProcess proc;
    proc.start(qpdf, {"--encrypt", "s3cret", "owner-pw", "256", "--", plain, locked});
    ASSERT_TRUE(proc.waitForFinished(60000));
    ASSERT_EQ(proc.exitCode(), 0) << proc.readAllStandardError().toStdString();

    QString message;
    EXPECT_EQ(error_kind(locked, {}, &message), IngestErrorKind::Encrypted);
    EXPECT_TRUE(message.contains("locked.pdf")) << message.toStdString();
    EXPECT_TRUE(message.contains("password"));

    IngestOptions wrong;
    wrong.password = QStringLiteral("guess");
    EXPECT_EQ(error_kind(locked, wrong, &message), IngestErrorKind::Encrypted);
    EXPECT_TRUE(message.contains("wrong")) << message.toStdString();

    IngestOptions right;
    right.password = QStringLiteral("s3cret");
    const IngestedDocument doc = ingest_file(locked, right);
    EXPECT_EQ(doc.text, kReportText);
    EXPECT_EQ(doc.pages, 3);
}

namespace {

using precis::test::SimplePdfOutlineItem;

// Three pages, each with headings that stand on lines of their own (a blank line after each).
const std::vector<std::vector<std::string>> kChapterPages = {
    {"Introduction", "", "This report looks at rivers."},
    {"Methods", "", "We measured the flow of rivers.", "", "Data", "", "The data came from gauges."},
    // The body names the next heading first: the heading's own line must win.
    {"Our results follow from the methods described above.", "", "Results", "", "The rivers rose."},
};

const QString kChapterText = QStringLiteral(
    "Introduction\n\nThis report looks at rivers.\n\n"
    "Methods\n\nWe measured the flow of rivers.\n\nData\n\nThe data came from gauges.\n\n"
    "Our results follow from the methods described above.\n\nResults\n\nThe rivers rose.");

QStringList titles_of(const QVector<OutlineEntry>& outline) {
    QStringList out;
    for (const OutlineEntry& e : outline) out << e.title;
    return out;
}

// The text from `e.offset` to the end of its line.
QString line_at(const QString& text, const OutlineEntry& e) {
    const qsizetype end = text.indexOf(QLatin1Char('\n'), e.offset);
    return text.mid(e.offset, end < 0 ? -1 : end - e.offset);
}

}  // namespace

TEST_P(IngestPdf, OutlineEntriesPointAtTheirHeadings) {
    const QString file = path("chapters.pdf");
    precis::test::write_simple_pdf_pages(file.toStdString(), kChapterPages,
                                         {{"Introduction", 0, {}},
                                          {"Methods", 1, {{"Data", 1, {}}}},
                                          {"Results", 2, {}}});
    const IngestedDocument doc = ingest_file(file);
    ASSERT_EQ(doc.text, kChapterText);
    ASSERT_EQ(doc.page_offsets.size(), 3);
    ASSERT_EQ(titles_of(doc.outline), QStringList({"Introduction", "Methods", "Data", "Results"}));
    const int levels[] = {0, 0, 1, 0};
    const int pages[] = {0, 1, 1, 2};
    for (qsizetype i = 0; i < doc.outline.size(); ++i) {
        const OutlineEntry& e = doc.outline[i];
        EXPECT_EQ(e.level, levels[i]) << e.title.toStdString();
        EXPECT_EQ(e.page, pages[i]) << e.title.toStdString();
        EXPECT_EQ(line_at(doc.text, e), e.title) << "offset " << e.offset;  // the heading's own line
        EXPECT_GE(e.offset, doc.page_offsets[e.page]);
        if (e.page + 1 < doc.page_offsets.size()) EXPECT_LT(e.offset, doc.page_offsets[e.page + 1]);
    }
    EXPECT_EQ(doc.outline[0].offset, 0);
    EXPECT_EQ(doc.outline[1].offset, doc.page_offsets[1]);
    EXPECT_EQ(doc.outline[3].offset, doc.text.indexOf("Results"));  // not "results" in the line before
}

TEST_P(IngestPdf, OutlineTitlesAreMatchedLooselyElseTheEntryPointsAtItsPage) {
    const QString file = path("loose.pdf");
    precis::test::write_simple_pdf_pages(file.toStdString(), kChapterPages,
                                         {{"THE  rivers   ROSE", 2, {}},  // case and spacing differ
                                          // Only the first 40 characters count.
                                          {"Our results follow from the methods described in part two", 2, {}},
                                          {"Summary", 1, {}},   // not on its page: the page's start
                                          {"Appendix", 7, {}},  // past the last page
                                          {"Notes", -1, {}}});  // no destination
    const IngestedDocument doc = ingest_file(file);
    ASSERT_EQ(doc.text, kChapterText);
    ASSERT_EQ(doc.outline.size(), 5);
    EXPECT_EQ(doc.outline[0].title, "THE rivers ROSE");  // whitespace simplified
    EXPECT_EQ(line_at(doc.text, doc.outline[0]), "The rivers rose.");
    EXPECT_EQ(doc.outline[1].page, 2);
    EXPECT_EQ(doc.outline[1].offset, doc.page_offsets[2]);
    EXPECT_TRUE(doc.text.mid(doc.outline[1].offset).startsWith("Our results follow"));
    EXPECT_EQ(doc.outline[2].page, 1);
    EXPECT_EQ(doc.outline[2].offset, doc.page_offsets[1]);
    for (int i : {3, 4}) {  // kept in their places, pointing nowhere
        EXPECT_EQ(doc.outline[i].page, -1) << doc.outline[i].title.toStdString();
        EXPECT_EQ(doc.outline[i].offset, -1) << doc.outline[i].title.toStdString();
    }
    EXPECT_EQ(doc.outline[4].title, "Notes");
}

TEST_P(IngestPdf, OutlineIsReadToThreeLevels) {
    const QString file = path("deep.pdf");
    SimplePdfOutlineItem item{"Level 4", 0, {{"Level 5", 0, {}}}};
    for (const char* title : {"Level 3", "Level 2", "Level 1"}) item = SimplePdfOutlineItem{title, 0, {item}};
    precis::test::write_simple_pdf_pages(file.toStdString(), kChapterPages, {item, {"The rivers rose", 2, {}}});
    const IngestedDocument doc = ingest_file(file);
    ASSERT_EQ(titles_of(doc.outline), QStringList({"Level 1", "Level 2", "Level 3", "The rivers rose"}));
    EXPECT_EQ(doc.outline[2].level, 2);
    EXPECT_EQ(doc.outline[3].level, 0);
    EXPECT_EQ(line_at(doc.text, doc.outline[3]), "The rivers rose.");  // the walk went on after the cut
}

TEST_P(IngestPdf, OutlineIsReadToTenThousandEntries) {
    const QString file = path("many.pdf");
    std::vector<SimplePdfOutlineItem> outline;
    for (int i = 0; i < 10'005; ++i) outline.push_back({"Entry " + std::to_string(i), i % 3, {}});
    precis::test::write_simple_pdf_pages(file.toStdString(), kChapterPages, outline);
    const IngestedDocument doc = ingest_file(file);
    ASSERT_EQ(doc.outline.size(), 10'000);
    EXPECT_EQ(doc.outline.back().title, "Entry 9999");
    EXPECT_EQ(doc.outline.back().offset, doc.page_offsets[0]);
}

TEST_P(IngestPdf, DocumentsWithoutAnOutlineHaveAnEmptyOne) {
    const QString plain = path("plain.pdf");
    precis::test::write_simple_pdf_pages(plain.toStdString(), kChapterPages);
    const IngestedDocument doc = ingest_file(plain);
    EXPECT_EQ(doc.text, kChapterText);
    EXPECT_TRUE(doc.outline.isEmpty());

    const QString drawn = path("report.pdf");
    write_pdf(drawn, report_pages());
    EXPECT_TRUE(ingest_file(drawn).outline.isEmpty());

    const QString text = path("notes.txt");
    QFile f(text);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write("Introduction\n\nSome notes.\n");
    f.close();
    EXPECT_TRUE(ingest_file(text).outline.isEmpty());
}

INSTANTIATE_TEST_SUITE_P(Readers, IngestPdf, ::testing::Values(Reader::InProcess, Reader::ReaderProcess),
                         [](const ::testing::TestParamInfo<Reader>& info) {
                             return info.param == Reader::InProcess ? "InProcess" : "ReaderProcess";
                         });

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    ::testing::InitGoogleTest(&argc, argv);
    QGuiApplication app(argc, argv);  // QPdfWriter and QPainter need fonts
    return RUN_ALL_TESTS();
}
