#pragma once
// The messages between Precis and its PDF reader process (pdf_reader_process.h): one
// request (password and file bytes) in, then one frame per step out: opened, each page,
// the outline (only when the file has one: a reader that predates outlines still speaks
// the protocol), the title; or why the file did not open. A frame is a 4-byte big-endian
// length and a QDataStream payload. The parent checks every frame it decodes: the reader
// parses a hostile file, so what it sends is not trusted further than its shape.
#include <QByteArray>
#include <QString>
#include <QVector>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "app/ingest/pdf_pages.h"

namespace precis {

// A frame larger than this is refused (a page of text is far smaller; the request is
// bounded by IngestOptions::max_bytes, which is below it).
inline constexpr uint32_t kMaxPdfWireFrame = 512u * 1024 * 1024;

// Each encoder returns a whole frame, its length prefix written in place: the request
// carries the file, which is not copied again to be framed.
QByteArray encode_pdf_request(const QString& password, const QByteArray& bytes);
QByteArray encode_pdf_opened(int page_count);
QByteArray encode_pdf_page(int index, const PdfPageLines* lines);
QByteArray encode_pdf_outline(const QVector<OutlineEntry>& entries);  // title, level, page of each
QByteArray encode_pdf_title(const QString& title);
QByteArray encode_pdf_failure(PdfOpenFailure failure);

// A frame of any payload (a malformed one, in tests).
QByteArray frame(const QByteArray& payload);
// The payload length a frame's 4-byte prefix gives.
uint32_t frame_length(const char* prefix);

// The request's payload (the frame without its length prefix).
bool decode_pdf_request(const QByteArray& payload, QString* password, QByteArray* bytes);

// Splits a byte stream into frame payloads.
class FrameSplitter {
public:
    void feed(const char* data, size_t size) { buffer_.append(data, qsizetype(size)); }
    // The next whole payload, if one has arrived. Sets *malformed for a length over the limit.
    std::optional<QByteArray> next(bool* malformed);

private:
    QByteArray buffer_;
};

// Applies one frame from the reader to `sink`. Returns false for a frame that is not one
// of the five messages, is out of order, names a page that does not exist, or holds an
// outline past the limits of pdf_pages.h.
class PdfFrameApplier {
public:
    explicit PdfFrameApplier(PdfPageSink& sink) : sink_(sink) {}
    bool apply(const QByteArray& payload);
    PdfOpenFailure failure() const { return failure_; }
    bool finished() const { return finished_; }  // a title or a failure came: the reader is done

private:
    PdfPageSink& sink_;
    int page_count_ = -1;
    int next_page_ = 0;
    bool outline_seen_ = false;
    PdfOpenFailure failure_ = PdfOpenFailure::None;
    bool finished_ = false;
};

}  // namespace precis
