// The messages between Precis and its PDF reader process (app/ingest/pdf_wire.h): what the
// reader sends arrives whole however the stream is cut, and anything that is not the
// protocol, in its order, is refused (the reader parses hostile files, so its replies are
// checked, not trusted).
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
        EXPECT_TRUE(got.complete);
    }
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
        {"a length over the limit", QByteArray("\x7f\xff\xff\xff", 4)},
    };
    for (const auto& r : refused) {
        PdfPagesCollector sink;
        EXPECT_FALSE(apply_stream(r.stream, 5, &sink)) << r.what;
    }
}

}  // namespace
}  // namespace precis::test
