#include "app/ingest/pdf_wire.h"

#include <QDataStream>
#include <QIODevice>
#include <QRectF>

namespace precis {

namespace {

constexpr quint32 kRequestMagic = 0x50524543;  // "PREC"
constexpr int kMaxPages = 1'000'000;

enum Message : quint8 { kOpened = 'O', kPage = 'P', kOutline = 'L', kTitle = 'T', kFailure = 'F' };

// Both ends pin the stream format, so a newer Qt on one side cannot change it.
void pin_version(QDataStream& s) { s.setVersion(QDataStream::Qt_6_0); }

void put_length(char* at, quint32 n) {
    at[0] = char(n >> 24), at[1] = char(n >> 16), at[2] = char(n >> 8), at[3] = char(n);
}

// A frame whose payload `fill` writes after a length prefix, which is filled in last.
template <typename Fill>
QByteArray framed(Fill fill) {
    QByteArray out(4, '\0');
    {
        QDataStream s(&out, QIODevice::WriteOnly | QIODevice::Append);
        pin_version(s);
        fill(s);
    }
    put_length(out.data(), quint32(out.size() - 4));
    return out;
}

}  // namespace

QByteArray frame(const QByteArray& payload) {
    QByteArray out(4, '\0');
    put_length(out.data(), quint32(payload.size()));
    return out + payload;
}

QByteArray encode_pdf_request(const QString& password, const QByteArray& bytes) {
    return framed([&](QDataStream& s) { s << kRequestMagic << password << bytes; });
}

bool decode_pdf_request(const QByteArray& payload, QString* password, QByteArray* bytes) {
    QDataStream s(payload);
    pin_version(s);
    quint32 magic = 0;
    s >> magic >> *password >> *bytes;
    return magic == kRequestMagic && s.status() == QDataStream::Ok;
}

QByteArray encode_pdf_opened(int page_count) {
    return framed([&](QDataStream& s) { s << quint8(kOpened) << qint32(page_count); });
}

QByteArray encode_pdf_page(int index, const PdfPageLines* lines) {
    return framed([&](QDataStream& s) {
        s << quint8(kPage) << qint32(index) << bool(lines != nullptr);
        if (!lines) return;
        s << qint32(lines->lines.size());
        for (const PdfLine& line : lines->lines) s << line.text << line.box;
    });
}

QByteArray encode_pdf_outline(const QVector<OutlineEntry>& entries) {
    return framed([&](QDataStream& s) {
        s << quint8(kOutline) << qint32(entries.size());
        for (const OutlineEntry& e : entries) s << e.title << qint32(e.level) << qint32(e.page);
    });
}

QByteArray encode_pdf_title(const QString& title) {
    return framed([&](QDataStream& s) { s << quint8(kTitle) << title; });
}

QByteArray encode_pdf_failure(PdfOpenFailure failure) {
    return framed([&](QDataStream& s) { s << quint8(kFailure) << qint32(failure); });
}

uint32_t frame_length(const char* prefix) {
    const auto* b = reinterpret_cast<const unsigned char*>(prefix);
    return (uint32_t(b[0]) << 24) | (uint32_t(b[1]) << 16) | (uint32_t(b[2]) << 8) | uint32_t(b[3]);
}

std::optional<QByteArray> FrameSplitter::next(bool* malformed) {
    if (buffer_.size() < 4) return std::nullopt;
    const uint32_t n = frame_length(buffer_.constData());
    if (n > kMaxPdfWireFrame) {
        *malformed = true;
        return std::nullopt;
    }
    if (buffer_.size() < qsizetype(n) + 4) return std::nullopt;
    QByteArray out = buffer_.mid(4, qsizetype(n));
    buffer_.remove(0, qsizetype(n) + 4);
    return out;
}

bool PdfFrameApplier::apply(const QByteArray& payload) {
    if (finished_) return false;
    QDataStream s(payload);
    pin_version(s);
    quint8 type = 0;
    s >> type;
    switch (type) {
        case kOpened: {
            qint32 pages = 0;
            s >> pages;
            if (s.status() != QDataStream::Ok || page_count_ >= 0 || pages <= 0 || pages > kMaxPages) return false;
            page_count_ = pages;
            sink_.opened(pages);
            return true;
        }
        case kPage: {
            qint32 index = -1;
            bool readable = false;
            s >> index >> readable;
            if (page_count_ < 0 || index != next_page_) return false;
            if (!readable) {
                if (s.status() != QDataStream::Ok) return false;
                sink_.page(index, nullptr);
            } else {
                qint32 count = 0;
                s >> count;
                if (count < 0) return false;
                PdfPageLines lines;
                for (qint32 i = 0; i < count && s.status() == QDataStream::Ok; ++i) {
                    PdfLine line;
                    s >> line.text >> line.box;
                    lines.lines.push_back(std::move(line));
                }
                if (s.status() != QDataStream::Ok) return false;
                sink_.page(index, &lines);
            }
            ++next_page_;
            return true;
        }
        case kOutline: {
            // Once, after the last page and before the title; within the reader's own limits.
            qint32 count = 0;
            s >> count;
            if (page_count_ < 0 || next_page_ != page_count_ || outline_seen_ || count < 0 ||
                count > kMaxOutlineEntries)
                return false;
            QVector<OutlineEntry> entries;
            entries.reserve(count);
            for (qint32 i = 0; i < count && s.status() == QDataStream::Ok; ++i) {
                OutlineEntry e;
                qint32 level = 0, page = -1;
                s >> e.title >> level >> page;
                if (level < 0 || level >= kMaxOutlineDepth || page < -1 || page >= page_count_ ||
                    e.title.size() > kMaxOutlineTitle)
                    return false;
                e.level = level;
                e.page = page;
                entries.push_back(std::move(e));
            }
            if (s.status() != QDataStream::Ok) return false;
            outline_seen_ = true;
            sink_.outline(entries);
            return true;
        }
        case kTitle: {
            QString title;
            s >> title;
            if (s.status() != QDataStream::Ok || page_count_ < 0 || next_page_ != page_count_) return false;
            sink_.title(title);
            finished_ = true;
            return true;
        }
        case kFailure: {
            qint32 code = 0;
            s >> code;
            if (s.status() != QDataStream::Ok || page_count_ >= 0 || code < int(PdfOpenFailure::NotAPdf) ||
                code > int(PdfOpenFailure::NoPages))
                return false;
            failure_ = PdfOpenFailure(code);
            finished_ = true;
            return true;
        }
        default: return false;
    }
}

}  // namespace precis
