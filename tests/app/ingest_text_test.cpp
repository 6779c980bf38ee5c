// Ingestion of plain text and Markdown files: encodings, line endings, and the errors a
// user can run into (missing, empty, unsupported, too large, a folder, binary data).
#include <gtest/gtest.h>

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include "app/ingest/ingest.h"

using namespace precis;

namespace {

class IngestText : public ::testing::Test {
protected:
    QTemporaryDir dir_;

    QString write(const QString& name, const QByteArray& bytes) {
        const QString path = dir_.filePath(name);
        QFile f(path);
        EXPECT_TRUE(f.open(QIODevice::WriteOnly));
        f.write(bytes);
        return path;
    }

    // Runs ingest_file expecting an error of `kind`; returns its message.
    static QString expect_error(const QString& path, IngestErrorKind kind, const IngestOptions& opts = {}) {
        try {
            ingest_file(path, opts);
        } catch (const IngestError& e) {
            EXPECT_EQ(e.kind(), kind) << e.what();
            EXPECT_EQ(e.path(), path);
            return e.message();
        }
        ADD_FAILURE() << "no error for " << path.toStdString();
        return {};
    }
};

QByteArray utf16(const QString& s, bool little_endian) {
    QByteArray out;
    out += little_endian ? QByteArray("\xFF\xFE", 2) : QByteArray("\xFE\xFF", 2);
    for (QChar c : s) {
        const char lo = char(c.unicode() & 0xff), hi = char(c.unicode() >> 8);
        if (little_endian) {
            out += lo;
            out += hi;
        } else {
            out += hi;
            out += lo;
        }
    }
    return out;
}

const QString kSample = QStringLiteral("Caf\u00e9 na\u00efve \u2014 \u00fcber \u65e5\u672c\nsecond line\n");

}  // namespace

TEST_F(IngestText, Utf8WithoutBomIsDecodedAndHashed) {
    const QByteArray bytes = kSample.toUtf8();
    const QString path = write("plain.txt", bytes);
    const IngestedDocument doc = ingest_file(path);
    EXPECT_EQ(doc.text, kSample);
    EXPECT_EQ(doc.encoding, "UTF-8");
    EXPECT_TRUE(doc.notes.isEmpty()) << doc.notes.join("; ").toStdString();
    EXPECT_EQ(doc.title, "plain");
    EXPECT_EQ(doc.path, path);
    EXPECT_EQ(doc.pages, 0);
    EXPECT_TRUE(doc.page_offsets.isEmpty());
    EXPECT_EQ(doc.content_hash, QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
    EXPECT_EQ(doc.content_hash.size(), 64);
}

TEST_F(IngestText, Utf8BomIsStripped) {
    const IngestedDocument doc = ingest_file(write("bom.txt", QByteArray("\xEF\xBB\xBF") + kSample.toUtf8()));
    EXPECT_EQ(doc.text, kSample);
    EXPECT_EQ(doc.encoding, "UTF-8");
}

TEST_F(IngestText, Utf16LittleEndianWithBom) {
    const IngestedDocument doc = ingest_file(write("le.txt", utf16(kSample, true)));
    EXPECT_EQ(doc.text, kSample);
    EXPECT_EQ(doc.encoding, "UTF-16LE");
}

TEST_F(IngestText, Utf16BigEndianWithBom) {
    const IngestedDocument doc = ingest_file(write("be.txt", utf16(kSample, false)));
    EXPECT_EQ(doc.text, kSample);
    EXPECT_EQ(doc.encoding, "UTF-16BE");
}

TEST_F(IngestText, InvalidUtf8FallsBackToLatin1AndSaysSo) {
    const IngestedDocument doc = ingest_file(write("latin1.txt", QByteArray("caf\xE9 cr\xE8me br\xFBl\xE9\xE9\n")));
    EXPECT_EQ(doc.text, QStringLiteral("caf\u00e9 cr\u00e8me br\u00fbl\u00e9\u00e9\n"));
    EXPECT_EQ(doc.encoding, "Latin-1 (fallback)");
    ASSERT_EQ(doc.notes.size(), 1);
    EXPECT_TRUE(doc.notes[0].contains("Latin-1")) << doc.notes[0].toStdString();
    EXPECT_TRUE(doc.notes[0].contains("not valid UTF-8"));
}

TEST_F(IngestText, WindowsQuotesFallBackToWindows1252) {
    const IngestedDocument doc = ingest_file(write("cp1252.txt", QByteArray("\x93quoted\x94 \x96 caf\xE9")));
    EXPECT_EQ(doc.text, QStringLiteral("\u201Cquoted\u201D \u2013 caf\u00e9"));
    EXPECT_EQ(doc.encoding, "Windows-1252 (fallback)");
    ASSERT_EQ(doc.notes.size(), 1);
}

TEST_F(IngestText, TruncatedUtf8SequenceAtEndIsNotValidUtf8) {
    const IngestedDocument doc = ingest_file(write("cut.txt", QByteArray("abc \xC3")));
    EXPECT_EQ(doc.encoding, "Latin-1 (fallback)");
}

TEST_F(IngestText, CrlfAndLoneCrBecomeLf) {
    const IngestedDocument doc = ingest_file(write("crlf.txt", QByteArray("one\r\ntwo\r\n\r\nthree\rfour\r\n")));
    EXPECT_EQ(doc.text, "one\ntwo\n\nthree\nfour\n");
}

TEST_F(IngestText, MarkdownTitleIsItsFirstHeading) {
    const IngestedDocument doc =
        ingest_file(write("notes.md", QByteArray("Some preface.\n\n## Quarterly results ##\n\nBody text.\n")));
    EXPECT_EQ(doc.title, "Quarterly results");
    EXPECT_TRUE(doc.text.contains("Body text."));
}

TEST_F(IngestText, MarkdownWithoutHeadingIsTitledByFileName) {
    EXPECT_EQ(ingest_file(write("My Notes.markdown", QByteArray("just text\n"))).title, "My Notes");
}

TEST_F(IngestText, ExtensionIsCaseInsensitive) {
    EXPECT_EQ(ingest_file(write("UPPER.TXT", QByteArray("hello"))).text, "hello");
}

TEST_F(IngestText, EmptyFileIsEmptyError) {
    const QString msg = expect_error(write("empty.txt", QByteArray()), IngestErrorKind::Empty);
    EXPECT_TRUE(msg.contains("empty.txt")) << msg.toStdString();
}

TEST_F(IngestText, WhitespaceOnlyFileIsEmptyError) {
    expect_error(write("blank.md", QByteArray(" \r\n\t\n  \n")), IngestErrorKind::Empty);
    expect_error(write("blank16.txt", utf16(QStringLiteral("  \n "), true)), IngestErrorKind::Empty);
}

TEST_F(IngestText, MissingFileIsNotFoundNamingTheFile) {
    const QString path = dir_.filePath("nowhere/missing.txt");
    const QString msg = expect_error(path, IngestErrorKind::NotFound);
    EXPECT_TRUE(msg.contains(QDir::toNativeSeparators(path))) << msg.toStdString();
    EXPECT_TRUE(msg.contains("does not exist"));
}

TEST_F(IngestText, UnsupportedExtensionIsRefused) {
    const QString msg = expect_error(write("report.docx", QByteArray("PK\x03\x04")), IngestErrorKind::Unsupported);
    EXPECT_TRUE(msg.contains("report.docx")) << msg.toStdString();
    EXPECT_TRUE(msg.contains(".docx"));
    expect_error(write("noext", QByteArray("text")), IngestErrorKind::Unsupported);
}

TEST_F(IngestText, BinaryContentInTextFileIsRefused) {
    expect_error(write("binary.txt", QByteArray("abc\0\x01\x02" "def", 9)), IngestErrorKind::Unsupported);
}

TEST_F(IngestText, FolderIsUnreadable) {
    ASSERT_TRUE(QDir(dir_.path()).mkdir("folder.txt"));
    expect_error(dir_.filePath("folder.txt"), IngestErrorKind::Unreadable);
}

TEST_F(IngestText, FileOverTheSizeLimitIsTooLarge) {
    IngestOptions opts;
    opts.max_bytes = 10;
    const QString msg = expect_error(write("big.txt", QByteArray(11, 'a')), IngestErrorKind::TooLarge, opts);
    EXPECT_TRUE(msg.contains("too large")) << msg.toStdString();
    opts.max_bytes = 11;
    EXPECT_EQ(ingest_file(dir_.filePath("big.txt"), opts).text.size(), 11);
}

TEST(IngestSupport, SupportedExtensions) {
    EXPECT_TRUE(is_supported_document("a/b/report.pdf"));
    EXPECT_TRUE(is_supported_document("REPORT.PDF"));
    EXPECT_TRUE(is_supported_document("notes.txt"));
    EXPECT_TRUE(is_supported_document("notes.text"));
    EXPECT_TRUE(is_supported_document("readme.md"));
    EXPECT_TRUE(is_supported_document("readme.markdown"));
    EXPECT_FALSE(is_supported_document("image.png"));
    EXPECT_FALSE(is_supported_document("archive.tar.gz"));
    EXPECT_FALSE(is_supported_document("Makefile"));
    EXPECT_FALSE(is_supported_document("pdf"));
}

TEST(IngestErrorKinds, HaveStableNames) {
    EXPECT_STREQ(ingest_error_kind_name(IngestErrorKind::Encrypted), "encrypted");
    EXPECT_STREQ(ingest_error_kind_name(IngestErrorKind::NoTextLayer), "no_text_layer");
}
