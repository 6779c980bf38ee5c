// The messages between Precis and its PDF reader process (app/ingest/pdf_wire.h): what the
// reader sends arrives whole however the stream is cut, and anything that is not the
// protocol, in its order, is refused (the reader parses hostile files, so its replies are
// checked, not trusted). The outline is optional, comes once between the last page and the
// title, and stays within the reader's limits.
#include <gtest/gtest.h>

#include <QRectF>

#include "app/ingest/pdf_wire.h"

namespace precis::test {
namespace {

PdfPageLines sample_lines() {
    PdfPageLines lines;
    lines.lines.push_back({QStringLiteral("Über die Flüsse — 河流"), QRectF(60.5, 88.25, 300, 12)});
    lines.lines.push_back({QStringLiteral("second line"), QRectF(60, 102, 120.75, 11.5)});
    return lines;
}

OutlineEntry entry(const QString& title, int level, int page) {
    OutlineEntry e;
    e.title = title;
    e.level = level;
    e.page = page;
    return e;
}

QVector<OutlineEntry> sample_outline() {
    return {entry(QStringLiteral("Einführung — 序論"), 0, 0), entry(QStringLiteral("Methods"), 0, 1),
            entry(QStringLiteral("Data"), 1, 1), entry(QStringLiteral("Deepest"), 2, 2),
            entry(QStringLiteral("Elsewhere"), 1, -1), entry(QString(), 0, 2)};
}

// Applies every frame of `stream`, fed `chunk` bytes at a time; false on the first refusal.
bool apply_stream(const QByteArray& stream, size_t chunk, PdfPagesCollector* sink, PdfOpenFailure* failure = nullptr) {
    FrameSplitter splitter;
    PdfFrameApplier applier(*sink);
    for (qsizetype at = 0; at < stream.size(); at += qsizetype(chunk)) {
        splitter.feed(stream.constData() + at, size_t(std::min<qsizetype>(qsizetype(chunk), stream.size() - at)));
        bool malformed = false;
        while (std::optional<QByteArray> payload = splitter.next(&malformed))
            if (!applier.apply(*payload)) return false;
        if (malformed) return false;
    }
    if (failure) *failure = applier.failure();
    return applier.finished();
}

TEST(PdfWire, PagesAndTitleArriveWholeHoweverTheStreamIsCut) {
    const PdfPageLines lines = sample_lines();
    const QByteArray stream = encode_pdf_opened(3) + encode_pdf_page(0, &lines) +
                              encode_pdf_page(1, nullptr) + encode_pdf_page(2, &lines) +
                              encode_pdf_title(QStringLiteral("Annual Report"));
    for (size_t chunk : {size_t(1), size_t(3), size_t(7), size_t(4096)}) {
        PdfPagesCollector sink;
        ASSERT_TRUE(apply_stream(stream, chunk, &sink)) << "chunk " << chunk;
        const PdfPages& got = sink.result();
        ASSERT_EQ(got.pages.size(), 3);
        ASSERT_EQ(got.pages[0].lines.size(), 2);
        EXPECT_EQ(got.pages[0].lines[0].text, lines.lines[0].text);
        EXPECT_EQ(got.pages[0].lines[0].box, lines.lines[0].box);
        EXPECT_EQ(got.pages[2].lines[1].box, lines.lines[1].box);
        EXPECT_TRUE(got.pages[1].lines.isEmpty());
        EXPECT_EQ(got.unreadable_pages, QVector<int>{2});
        EXPECT_EQ(got.title, "Annual Report");
        EXPECT_TRUE(got.outline.isEmpty());  // the outline frame is optional
        EXPECT_TRUE(got.complete);
    }
}

TEST(PdfWire, TheOutlineArrivesWholeBetweenTheLastPageAndTheTitle) {
    const PdfPageLines lines = sample_lines();
    const QVector<OutlineEntry> outline = sample_outline();
    const QByteArray stream = encode_pdf_opened(3) + encode_pdf_page(0, &lines) + encode_pdf_page(1, nullptr) +
                              encode_pdf_page(2, &lines) + encode_pdf_outline(outline) +
                              encode_pdf_title(QStringLiteral("Annual Report"));
    for (size_t chunk : {size_t(1), size_t(5), size_t(4096)}) {
        PdfPagesCollector sink;
        ASSERT_TRUE(apply_stream(stream, chunk, &sink)) << "chunk " << chunk;
        const PdfPages& got = sink.result();
        ASSERT_EQ(got.outline.size(), outline.size());
        for (qsizetype i = 0; i < outline.size(); ++i) {
            EXPECT_EQ(got.outline[i].title, outline[i].title) << i;
            EXPECT_EQ(got.outline[i].level, outline[i].level) << i;
            EXPECT_EQ(got.outline[i].page, outline[i].page) << i;
            EXPECT_EQ(got.outline[i].offset, -1) << i;  // found later, in the text (ingest.cpp)
        }
        EXPECT_EQ(got.pages.size(), 3);
        EXPECT_EQ(got.title, "Annual Report");
        EXPECT_TRUE(got.complete);
    }
}

TEST(PdfWire, TheOutlineAtItsLimitsIsAccepted) {
    QVector<OutlineEntry> outline(kMaxOutlineEntries, entry(QString(kMaxOutlineTitle, QLatin1Char('x')), 2, 0));
    PdfPagesCollector sink;
    ASSERT_TRUE(apply_stream(encode_pdf_opened(1) + encode_pdf_page(0, nullptr) + encode_pdf_outline(outline) +
                                 encode_pdf_title(QString()),
                             1 << 20, &sink));
    EXPECT_EQ(sink.result().outline.size(), kMaxOutlineEntries);
}

TEST(PdfWire, AFileThatDidNotOpenArrivesAsItsReason) {
    PdfPagesCollector sink;
    PdfOpenFailure failure = PdfOpenFailure::None;
    ASSERT_TRUE(apply_stream(encode_pdf_failure(PdfOpenFailure::WrongPassword), 2, &sink, &failure));
    EXPECT_EQ(failure, PdfOpenFailure::WrongPassword);
    EXPECT_FALSE(sink.result().complete);
}

TEST(PdfWire, TheRequestCarriesPasswordAndBytesExactly) {
    static const char kBytes[] = "%PDF-1.7\0\xff\x01 binary";  // a NUL and bytes that are not UTF-8
    const QByteArray bytes(kBytes, sizeof kBytes - 1);
    const QByteArray request = encode_pdf_request(QStringLiteral("pässwörd"), bytes);
    ASSERT_GE(request.size(), 4);
    EXPECT_EQ(frame_length(request.constData()), uint32_t(request.size() - 4));  // framed in place
    const QByteArray payload = request.mid(4);
    QString password;
    QByteArray got;
    ASSERT_TRUE(decode_pdf_request(payload, &password, &got));
    EXPECT_EQ(password, "pässwörd");
    EXPECT_EQ(got, bytes);
    EXPECT_FALSE(decode_pdf_request(QByteArray("not a request"), &password, &got));
}

TEST(PdfWire, FramesOutOfOrderOrOfUnknownKindAreRefused) {
    const PdfPageLines lines = sample_lines();
    const QByteArray opened2 = encode_pdf_opened(2);
    const QByteArray page0 = encode_pdf_page(0, &lines);
    const QByteArray page1 = encode_pdf_page(1, &lines);
    const QByteArray title = encode_pdf_title(QStringLiteral("t"));
    const QByteArray outline = encode_pdf_outline(sample_outline().mid(0, 3));  // pages 0 and 1
    const QByteArray pages = opened2 + page0 + page1;
    auto outline_of = [](const OutlineEntry& e) { return encode_pdf_outline({e}); };
    const struct {
        const char* what;
        QByteArray stream;
    } refused[] = {
        {"a page before the page count", page0},
        {"a page skipped", opened2 + page1},
        {"a page past the count", opened2 + page0 + page1 + encode_pdf_page(2, &lines)},
        {"the title before the last page", opened2 + page0 + title},
        {"the page count twice", opened2 + opened2},
        {"a failure after the file opened", opened2 + encode_pdf_failure(PdfOpenFailure::NotAPdf)},
        {"a failure that is no reason", encode_pdf_failure(PdfOpenFailure::None)},
        {"anything after the end", opened2 + page0 + page1 + title + title},
        {"no pages", encode_pdf_opened(0)},
        {"a page count no file has", encode_pdf_opened(5'000'000)},
        {"an unknown kind", frame(QByteArray("Zjunk"))},
        {"an empty frame", frame(QByteArray())},
        {"a page cut short", opened2 + frame(encode_pdf_page(0, &lines).mid(4, 20))},
        {"the outline before the last page", opened2 + page0 + outline},
        {"the outline before the page count", outline},
        {"the outline twice", pages + outline + outline},
        {"the outline after the title", pages + title + outline},
        {"an outline entry too deep", pages + outline_of(entry("deep", kMaxOutlineDepth, 0))},
        {"an outline level below the top", pages + outline_of(entry("up", -1, 0))},
        {"an outline entry past the last page", pages + outline_of(entry("past", 0, 2))},
        {"an outline page that is no page", pages + outline_of(entry("none", 0, -2))},
        {"an outline title too long", pages + outline_of(entry(QString(kMaxOutlineTitle + 1, QLatin1Char('x')), 0, 0))},
        {"too many outline entries",
         pages + encode_pdf_outline(QVector<OutlineEntry>(kMaxOutlineEntries + 1, entry("e", 0, 0)))},
        {"an outline cut short", pages + frame(outline.mid(4, outline.size() - 8))},
        {"a length over the limit", QByteArray("\x7f\xff\xff\xff", 4)},
    };
    for (const auto& r : refused) {
        PdfPagesCollector sink;
        EXPECT_FALSE(apply_stream(r.stream, 5, &sink)) << r.what;
    }
}

}  // namespace
}  // namespace precis::test
