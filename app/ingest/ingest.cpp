#include "app/ingest/ingest.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStringDecoder>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>

#include "app/file_names.h"
#include "app/ingest/pdf_layout.h"
#include "app/ingest/pdf_pages.h"
#include "app/ingest/pdf_reader_process.h"
#include "app/ingest/stall_guard.h"
#include "engine/core/error.h"
#include "engine/io/regular_file.h"

namespace precis {
namespace {

QString shown(const QString& path) { return QStringLiteral("\"%1\"").arg(path_for_display(path)); }

[[noreturn]] void fail(IngestErrorKind kind, const QString& path, const QString& message) {
    throw IngestError(kind, path, message);
}

QString mib(qint64 bytes) { return QString::number(double(bytes) / (1024.0 * 1024.0), 'f', bytes < 10 * 1024 * 1024 ? 1 : 0); }

// Windows-1252 code points for bytes 0x80..0x9F (0 = undefined there, kept as the C1 control).
constexpr char16_t kCp1252High[32] = {
    0x20AC, 0,      0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
    0x2039, 0x0152, 0,      0x017D, 0,      0,      0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
    0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0,      0x017E, 0x0178};

QString normalize_newlines(QString s) {
    s.replace(QStringLiteral("\r\n"), QStringLiteral("\n"));
    s.replace(QLatin1Char('\r'), QLatin1Char('\n'));
    return s;
}

QString markdown_title(const QString& text) {
    static const QRegularExpression atx(QStringLiteral("^ {0,3}#{1,6}[ \\t]+(.+?)[ \\t#]*$"),
                                        QRegularExpression::MultilineOption);
    const QRegularExpressionMatch m = atx.match(text);
    return m.hasMatch() ? m.captured(1).trimmed() : QString();
}

IngestedDocument ingest_text(const QString& path, const QByteArray& bytes) {
    IngestedDocument doc;
    DecodedText decoded = decode_text_bytes(bytes);
    if (decoded.has_nul)
        fail(IngestErrorKind::Unsupported, path,
             QStringLiteral("File %1 does not look like a text file: it contains binary data.").arg(shown(path)));
    if (decoded.text.trimmed().isEmpty())
        fail(IngestErrorKind::Empty, path, QStringLiteral("File %1 contains only whitespace, no text.").arg(shown(path)));
    doc.text = std::move(decoded.text);
    doc.encoding = decoded.encoding;
    doc.notes = decoded.notes;
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("md") || suffix == QLatin1String("markdown")) doc.title = markdown_title(doc.text);
    return doc;
}

QString page_list(const QVector<int>& pages) {
    QStringList parts;
    for (int p : pages) parts << QString::number(p);
    if (parts.size() > 10) {
        const qsizetype more = parts.size() - 10;
        parts = parts.mid(0, 10);
        parts << QStringLiteral("and %1 more").arg(more);
    }
    return parts.join(QStringLiteral(", "));
}

QString seconds_text(std::chrono::milliseconds ms) { return QString::number(double(ms.count()) / 1000.0, 'g', 3); }

// "opening it", "reading its page 3": where a reader that gave no more steps was.
QString where_it_stopped(int steps) {
    return steps == 0 ? QStringLiteral("opening it") : QStringLiteral("reading its page %1").arg(steps);
}

[[noreturn]] void fail_open(PdfOpenFailure failure, const QString& path) {
    switch (failure) {
        case PdfOpenFailure::NeedsPassword:
            fail(IngestErrorKind::Encrypted, path,
                 QStringLiteral("File %1 is password-protected; give its password to open it.").arg(shown(path)));
        case PdfOpenFailure::WrongPassword:
            fail(IngestErrorKind::Encrypted, path, QStringLiteral("The password given for %1 is wrong.").arg(shown(path)));
        case PdfOpenFailure::NoPages:
            fail(IngestErrorKind::Corrupt, path,
                 QStringLiteral("File %1 is damaged or is not a valid PDF: it has no readable pages.").arg(shown(path)));
        case PdfOpenFailure::NotAPdf:
        case PdfOpenFailure::None: break;
    }
    fail(IngestErrorKind::Corrupt, path, QStringLiteral("File %1 is damaged or is not a valid PDF.").arg(shown(path)));
}

[[noreturn]] void fail_stalled(const QString& path, int steps, std::chrono::milliseconds limit) {
    fail(IngestErrorKind::Corrupt, path,
         QStringLiteral("File %1 is damaged: %2 did not finish within %3 s, so it was given up.")
             .arg(shown(path), where_it_stopped(steps), seconds_text(limit)));
}

// Collects the pages and beats after each step (the stall guard's sign of progress).
class BeatingCollector : public PdfPagesCollector {
public:
    explicit BeatingCollector(const std::function<void()>& beat) : beat_(beat) {}
    void opened(int page_count) override {
        PdfPagesCollector::opened(page_count);
        beat_();
    }
    void page(int index, const PdfPageLines* lines) override {
        PdfPagesCollector::page(index, lines);
        beat_();
    }

private:
    const std::function<void()>& beat_;
};

// Poppler on a thread of its own, given up on if it stops making progress (stall_guard.h);
// the thread shares only what it owns.
PdfPages read_pdf_here(const QString& path, const QByteArray& bytes, const IngestOptions& opts) {
    auto read = std::make_shared<PdfPages>();
    const StallReport report = run_with_stall_limit(
        [read, bytes, password = opts.password](const std::function<void()>& beat) {
            BeatingCollector sink(beat);
            const PdfOpenFailure failure = read_pdf_pages(bytes, password, sink);
            *read = std::move(sink.result());
            read->failure = failure;
        },
        opts.pdf_stall_limit, opts.should_abort);
    if (report.cancelled) throw Cancelled();
    if (report.stalled) fail_stalled(path, report.beats, opts.pdf_stall_limit);
    return std::move(*read);
}

// The PDF's pages from the reader process when it is installed (pdf_reader_process.h),
// else from read_pdf_here(); a reader that cannot start is said in `notes`.
PdfPages read_pdf(const QString& path, const QByteArray& bytes, const IngestOptions& opts, QStringList* notes) {
    const std::string reader = opts.pdf_in_process ? std::string() : find_pdf_reader();
    if (reader.empty()) return read_pdf_here(path, bytes, opts);
    PdfReaderOutcome r = read_pdf_in_reader_process(reader, bytes, opts.password, opts.pdf_stall_limit, opts.should_abort);
    switch (r.ending) {
        case PdfReaderOutcome::Ending::Finished: return std::move(r.pages);
        case PdfReaderOutcome::Ending::Cancelled: throw Cancelled();
        case PdfReaderOutcome::Ending::Stalled: fail_stalled(path, r.steps, opts.pdf_stall_limit);
        case PdfReaderOutcome::Ending::Crashed:
            fail(IngestErrorKind::Corrupt, path,
                 QStringLiteral("File %1 is damaged: Poppler failed while %2 (%3).")
                     .arg(shown(path), where_it_stopped(r.steps), QString::fromStdString(r.detail)));
        case PdfReaderOutcome::Ending::CouldNotStart: break;
    }
    *notes << QStringLiteral("read inside Precis because its PDF reader could not start (%1)")
                  .arg(QString::fromStdString(r.detail));
    return read_pdf_here(path, bytes, opts);
}

// Where an outline entry's heading is looked for: the first words of its title, on the
// first characters of its page (a page holds a few thousand; the bound keeps a hostile
// outline, 10,000 entries on one huge page, cheap).
constexpr qsizetype kOutlineTitleChars = 40;
constexpr qsizetype kOutlineSearchChars = 20'000;

// Where in `page` (the text of one page) the line holding the heading `title` starts; 0
// (the page's start) when the title is not there. A line that begins with the title, perhaps
// after a section number ("2.1 Methods"), wins over a mention of it inside running text.
qsizetype heading_start(const QString& page, const QString& title) {
    QStringList words = title.simplified().left(kOutlineTitleChars).split(QLatin1Char(' '), Qt::SkipEmptyParts);
    if (words.isEmpty()) return 0;
    for (QString& w : words) w = QRegularExpression::escape(w);
    const QString pattern = words.join(QStringLiteral("\\s+"));  // any whitespace between words, newlines too
    const QRegularExpression at_line_start(QStringLiteral("^(?:\\d+(?:\\.\\d+)*\\.?\\s+)?") + pattern,
                                           QRegularExpression::CaseInsensitiveOption |
                                               QRegularExpression::MultilineOption);
    if (const QRegularExpressionMatch m = at_line_start.match(page); m.hasMatch()) return m.capturedStart();
    const QRegularExpression anywhere(pattern, QRegularExpression::CaseInsensitiveOption);
    const QRegularExpressionMatch m = anywhere.match(page);
    if (!m.hasMatch()) return 0;
    return page.lastIndexOf(QLatin1Char('\n'), m.capturedStart()) + 1;  // 0 when no newline precedes it
}

// Fills in each entry's offset in `text`; an entry whose page the text does not have gets
// page and offset -1 (it keeps its place, so the outline's order and nesting stay whole).
void locate_outline(QVector<OutlineEntry>& outline, const QString& text, const QVector<int>& page_offsets) {
    for (OutlineEntry& e : outline) {
        if (e.page < 0 || e.page >= page_offsets.size()) {
            e.page = e.offset = -1;
            continue;
        }
        const int start = page_offsets[e.page];
        const int end = e.page + 1 < page_offsets.size() ? page_offsets[e.page + 1] : int(text.size());
        const QString page = text.mid(start, std::min<qsizetype>(std::max(0, end - start), kOutlineSearchChars));
        e.offset = start + int(heading_start(page, e.title));
    }
}

IngestedDocument ingest_pdf(const QString& path, const QByteArray& bytes, const IngestOptions& opts) {
    QStringList reader_notes;
    const PdfPages read = read_pdf(path, bytes, opts, &reader_notes);
    if (read.failure != PdfOpenFailure::None) fail_open(read.failure, path);
    const int page_count = int(read.pages.size());
    const QVector<PdfPageLines>& pages = read.pages;
    const QVector<int>& unreadable_pages = read.unreadable_pages;

    PdfText assembled = assemble_pdf_text(pages);
    if (assembled.text.trimmed().isEmpty()) {
        if (unreadable_pages.size() == page_count)
            fail(IngestErrorKind::Corrupt, path,
                 QStringLiteral("File %1 is damaged: none of its pages can be read.").arg(shown(path)));
        fail(IngestErrorKind::NoTextLayer, path,
             QStringLiteral("File %1 has no text layer (its pages are images, perhaps a scan); run OCR on it first.")
                 .arg(shown(path)));
    }

    IngestedDocument doc;
    doc.text = std::move(assembled.text);
    doc.page_offsets = assembled.page_offsets;
    doc.pages = page_count;
    doc.outline = read.outline;
    locate_outline(doc.outline, doc.text, doc.page_offsets);
    doc.encoding = QStringLiteral("PDF");
    doc.notes = reader_notes;
    QString title = read.title;
    if (title.startsWith(QLatin1String("Microsoft Word - "))) title = title.mid(17);
    doc.title = title;
    if (assembled.header_footer_lines_removed > 0)
        doc.notes << QStringLiteral("%1 repeated header/footer line%2 removed")
                         .arg(assembled.header_footer_lines_removed)
                         .arg(assembled.header_footer_lines_removed == 1 ? "" : "s");
    QVector<int> textless;
    for (int p : assembled.pages_without_text)
        if (!unreadable_pages.contains(p)) textless.push_back(p);
    if (!textless.isEmpty())
        doc.notes << QStringLiteral("%1 %2 %3 no text layer (images only)")
                         .arg(textless.size() == 1 ? QStringLiteral("page") : QStringLiteral("pages"), page_list(textless),
                              textless.size() == 1 ? QStringLiteral("has") : QStringLiteral("have"));
    if (!unreadable_pages.isEmpty())
        doc.notes << QStringLiteral("%1 %2 could not be read")
                         .arg(unreadable_pages.size() == 1 ? QStringLiteral("page") : QStringLiteral("pages"),
                              page_list(unreadable_pages));
    return doc;
}

}  // namespace

IngestError::IngestError(IngestErrorKind kind, QString path, const QString& message)
    : std::runtime_error(message.toStdString()), kind_(kind), path_(std::move(path)) {}

const char* ingest_error_kind_name(IngestErrorKind kind) {
    switch (kind) {
        case IngestErrorKind::NotFound: return "not_found";
        case IngestErrorKind::Unreadable: return "unreadable";
        case IngestErrorKind::Unsupported: return "unsupported";
        case IngestErrorKind::Empty: return "empty";
        case IngestErrorKind::TooLarge: return "too_large";
        case IngestErrorKind::Encrypted: return "encrypted";
        case IngestErrorKind::Corrupt: return "corrupt";
        case IngestErrorKind::NoTextLayer: return "no_text_layer";
    }
    return "unknown";
}

bool is_supported_document(const QString& path) {
    static const QStringList kSuffixes = {QStringLiteral("pdf"), QStringLiteral("txt"), QStringLiteral("text"),
                                          QStringLiteral("md"), QStringLiteral("markdown")};
    return kSuffixes.contains(QFileInfo(path).suffix().toLower());
}

DecodedText decode_text_bytes(const QByteArray& bytes) {
    DecodedText out;
    const auto* b = reinterpret_cast<const unsigned char*>(bytes.constData());
    const qsizetype n = bytes.size();
    QString text;
    if (n >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF) {
        QStringDecoder dec(QStringConverter::Utf8, QStringConverter::Flag::Stateless);
        text = dec.decode(QByteArrayView(bytes).sliced(3));
        out.encoding = QStringLiteral("UTF-8");
        if (dec.hasError()) out.notes << QStringLiteral("some bytes are not valid UTF-8 and were replaced");
        out.has_nul = bytes.contains('\0');
    } else if (n >= 2 && ((b[0] == 0xFF && b[1] == 0xFE) || (b[0] == 0xFE && b[1] == 0xFF))) {
        const bool le = b[0] == 0xFF;
        QStringDecoder dec(le ? QStringConverter::Utf16LE : QStringConverter::Utf16BE, QStringConverter::Flag::Stateless);
        text = dec.decode(QByteArrayView(bytes).sliced(2));
        out.encoding = le ? QStringLiteral("UTF-16LE") : QStringLiteral("UTF-16BE");
        if (dec.hasError() || (n % 2) != 0)
            out.notes << QStringLiteral("some bytes are not valid UTF-16 and were replaced");
        out.has_nul = text.contains(QChar(0));
    } else {
        QStringDecoder dec(QStringConverter::Utf8, QStringConverter::Flag::Stateless);
        text = dec.decode(bytes);
        out.has_nul = bytes.contains('\0');
        if (!dec.hasError()) {
            out.encoding = QStringLiteral("UTF-8");
        } else {
            bool cp1252 = false;
            for (qsizetype i = 0; i < n && !cp1252; ++i) cp1252 = b[i] >= 0x80 && b[i] <= 0x9F && kCp1252High[b[i] - 0x80];
            if (cp1252) {
                text.clear();
                text.reserve(n);
                for (qsizetype i = 0; i < n; ++i) {
                    const unsigned char c = b[i];
                    text += (c >= 0x80 && c <= 0x9F && kCp1252High[c - 0x80]) ? QChar(kCp1252High[c - 0x80]) : QChar(c);
                }
                out.encoding = QStringLiteral("Windows-1252 (fallback)");
                out.notes << QStringLiteral("decoded as Windows-1252 because the file is not valid UTF-8");
            } else {
                text = QString::fromLatin1(bytes);
                out.encoding = QStringLiteral("Latin-1 (fallback)");
                out.notes << QStringLiteral("decoded as Latin-1 because the file is not valid UTF-8");
            }
        }
    }
    out.text = normalize_newlines(std::move(text));
    return out;
}

namespace {

// "txt" for "/a/b.TXT" (as written), "" without one; on the name alone, never the disk.
QString suffix_of(const QString& path) {
    const QString name = path.mid(path.lastIndexOf(QLatin1Char('/')) + 1);
    const qsizetype dot = name.lastIndexOf(QLatin1Char('.'));
    return dot <= 0 ? QString() : name.mid(dot + 1);
}

QString base_name_of(const QString& path) {
    const QString name = path.mid(path.lastIndexOf(QLatin1Char('/')) + 1);
    const qsizetype dot = name.lastIndexOf(QLatin1Char('.'));
    return dot <= 0 ? name : name.left(dot);
}

// "3000", "35.2 million"
QString character_count(qsizetype n) {
    return n < 1000000 ? QString::number(n) : QStringLiteral("%1 million").arg(double(n) / 1e6, 0, 'f', 1);
}

QString errno_text(int e) { return QString::fromLocal8Bit(std::strerror(e)).toLower(); }

// What to do with a document past the limits: its parts fit (a batch over a folder of parts
// gives one summary per part, searchable together in the library).
const char* const kSplitAdvice =
    " Split it into parts (a text file: split -C 40M FILE part-) and summarize those, or give Batch their folder.";

[[noreturn]] void fail_too_large(const QString& path, qint64 size, qint64 limit) {
    fail(IngestErrorKind::TooLarge, path,
         QStringLiteral("File %1 is too large (%2 MiB; the limit is %3 MiB).").arg(shown(path), mib(size), mib(limit)) +
             QLatin1String(kSplitAdvice));
}

// The file's bytes, read through the native (byte) name. Only a regular file is opened:
// a FIFO would block forever and a device such as /dev/zero never ends. The descriptor
// is opened non-blocking and checked again, so a FIFO swapped in meanwhile is refused too.
QByteArray read_document_bytes(const QString& path, const std::filesystem::path& native, const IngestOptions& opts) {
    const int fd = ::open(native.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        fail(IngestErrorKind::Unreadable, path, QStringLiteral("File %1 cannot be read: %2.").arg(shown(path), errno_text(errno)));
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        fail(IngestErrorKind::Unreadable, path,
             QStringLiteral("File %1 is not a regular file; Precis reads only regular files.").arg(shown(path)));
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    if (st.st_size > opts.max_bytes) {
        ::close(fd);
        fail_too_large(path, st.st_size, opts.max_bytes);
    }
    QByteArray bytes;
    bytes.resize(qsizetype(st.st_size));
    qsizetype got = 0;
    while (true) {
        if (got == bytes.size()) {  // grown since fstat: read on, but never past the limit
            if (bytes.size() > opts.max_bytes) break;
            bytes.resize(std::min<qsizetype>(qsizetype(opts.max_bytes) + 1, bytes.size() + 65536));
        }
        const ssize_t n = ::read(fd, bytes.data() + got, size_t(bytes.size() - got));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int e = errno;
            ::close(fd);
            fail(IngestErrorKind::Unreadable, path, QStringLiteral("File %1 cannot be read: %2.").arg(shown(path), errno_text(e)));
        }
        if (n == 0) break;
        got += n;
    }
    ::close(fd);
    bytes.resize(got);
    if (bytes.size() > opts.max_bytes) fail_too_large(path, bytes.size(), opts.max_bytes);
    return bytes;
}

}  // namespace

IngestedDocument ingest_file(const QString& path, const IngestOptions& opts) {
    // Names are bytes (app/file_names.h): every look at the disk goes through the native name.
    const std::filesystem::path native = native_path(path);
    struct stat st {};
    if (::stat(native.c_str(), &st) != 0) {
        const int e = errno;
        if (e == ENOENT || e == ENOTDIR)
            fail(IngestErrorKind::NotFound, path, QStringLiteral("File %1 does not exist.").arg(shown(path)));
        fail(IngestErrorKind::Unreadable, path, QStringLiteral("File %1 cannot be read: %2.").arg(shown(path), errno_text(e)));
    }
    if (S_ISDIR(st.st_mode))
        fail(IngestErrorKind::Unreadable, path, QStringLiteral("%1 is a folder, not a document.").arg(shown(path)));
    const QString suffix = suffix_of(path);
    if (!is_supported_document(path)) {
        const QString what = suffix.isEmpty() ? QStringLiteral("no extension") : QStringLiteral("\".%1\"").arg(suffix);
        fail(IngestErrorKind::Unsupported, path,
             QStringLiteral("File %1 is not a supported document (%2); Precis reads PDF, plain text and Markdown files.")
                 .arg(shown(path), what));
    }
    if (const std::string kind = non_regular_kind(native); !kind.empty())
        fail(IngestErrorKind::Unreadable, path,
             QStringLiteral("File %1 is %2, not a regular file; Precis reads only regular files.")
                 .arg(shown(path), QString::fromStdString(kind)));
    if (st.st_size > opts.max_bytes) fail_too_large(path, st.st_size, opts.max_bytes);

    const QByteArray bytes = read_document_bytes(path, native, opts);
    if (bytes.isEmpty()) fail(IngestErrorKind::Empty, path, QStringLiteral("File %1 is empty.").arg(shown(path)));

    const bool is_pdf = suffix.compare(QLatin1String("pdf"), Qt::CaseInsensitive) == 0;
    IngestedDocument doc = is_pdf ? ingest_pdf(path, bytes, opts) : ingest_text(path, bytes);
    if (doc.text.size() > opts.max_text_chars)
        fail(IngestErrorKind::TooLarge, path,
             QStringLiteral("File %1 holds %2 characters of text; the limit is %3 (about %4 pages).")
                     .arg(shown(path), character_count(doc.text.size()), character_count(opts.max_text_chars),
                          character_count(opts.max_text_chars / 3000)) +
                 QLatin1String(kSplitAdvice));
    doc.path = absolute_clean_path(path);
    if (doc.title.isEmpty()) doc.title = path_for_display(base_name_of(path));
    doc.content_hash = QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
    return doc;
}

}  // namespace precis
