#pragma once
// Document ingestion: a file on disk -> normalized text with page offsets.
//
// PDFs are read with Poppler, in a process of its own (text per page, hyphenated line
// breaks joined, lines inside a paragraph unwrapped, repeated headers/footers and page
// numbers dropped);
// .txt/.md files are decoded (UTF-8, UTF-16 with BOM, else a reported single-byte
// fallback) with line endings normalized. Every failure is an IngestError whose
// message is one sentence naming the file and the problem.
#include <QByteArray>
#include <QString>
#include <QStringList>
#include <QVector>
#include <chrono>
#include <functional>
#include <stdexcept>

namespace precis {

struct IngestOptions {
    QString password;                       // for encrypted PDFs; empty = none
    qint64 max_bytes = 200LL * 1024 * 1024;  // larger files are refused (TooLarge)
    qsizetype max_text_chars = 80'000'000;    // so is more text than this (about 13 million words)
    // A PDF whose opening or any one page takes longer than this is given up as damaged
    // (Poppler can loop for hours on a broken object graph: pdf_reader_process.h).
    std::chrono::milliseconds pdf_stall_limit{30'000};
    // Reading a PDF stops soon after this returns true, by throwing Cancelled.
    std::function<bool()> should_abort;
    // PDFs are read in the precis-pdf-reader process when it is installed, else in-process.
    // The fuzz target reads in-process: it fuzzes the reading, not the process around it.
    bool pdf_in_process = false;
};

// One entry of a PDF's outline (its bookmarks), in document order.
struct OutlineEntry {
    QString title;
    int level = 0;     // 0 = top level
    int page = -1;     // 0-based page it points to; -1 when it points nowhere readable
    int offset = -1;   // index in IngestedDocument::text where it starts: the start of the title's first line on that page when it is found there, else the page's start; -1 with page -1
};

struct IngestedDocument {
    QString path;                // absolute path of the file read
    QString title;               // PDF metadata title, first Markdown heading, else file base name
    QString text;                // normalized: '\n' line ends, paragraphs separated by "\n\n"
    QVector<int> page_offsets;   // PDF: index in `text` where each page starts (size == pages); empty for text files
    int pages = 0;               // PDF page count; 0 for text files
    QString encoding;            // "UTF-8", "UTF-16LE", "UTF-16BE", "Latin-1 (fallback)", "Windows-1252 (fallback)", "PDF"
    QStringList notes;           // user-facing remarks about what ingestion did or could not do
    QByteArray content_hash;     // sha256 of the file bytes, lowercase hex
    QVector<OutlineEntry> outline;  // PDF bookmarks (3 levels, 10,000 entries at most); empty for text files
};

enum class IngestErrorKind {
    NotFound,
    Unreadable,
    Unsupported,
    Empty,
    TooLarge,
    Encrypted,   // needs a password, or the one given is wrong
    Corrupt,
    NoTextLayer, // PDF whose pages are images only (a scan without OCR)
};

class IngestError : public std::runtime_error {
public:
    IngestError(IngestErrorKind kind, QString path, const QString& message);
    IngestErrorKind kind() const { return kind_; }
    const QString& path() const { return path_; }
    QString message() const { return QString::fromUtf8(what()); }

private:
    IngestErrorKind kind_;
    QString path_;
};

// Stable lowercase name for logs and JSON ("not_found", "encrypted", ...).
const char* ingest_error_kind_name(IngestErrorKind kind);

// True for the extensions ingest_file() reads: .pdf, .txt, .text, .md, .markdown
// (case-insensitive). Looks at the name only.
bool is_supported_document(const QString& path);

// Reads and normalizes one document. `path` may hold a file name that is not UTF-8
// (app/file_names.h); only regular files are read (a FIFO or a device is Unreadable).
// Throws IngestError.
IngestedDocument ingest_file(const QString& path, const IngestOptions& opts = {});

// The decoding step for text files, exposed for tests and for text pasted or piped in.
// Fills text, encoding and notes; throws nothing (bytes always decode to something).
struct DecodedText {
    QString text;
    QString encoding;
    QStringList notes;
    bool has_nul = false;  // the bytes contained NUL characters (likely a binary file)
};
DecodedText decode_text_bytes(const QByteArray& bytes);

}  // namespace precis
