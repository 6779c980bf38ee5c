// precis-pdf-reader: reads one PDF with Poppler for Precis, in a process of its own
// (app/ingest/pdf_reader_process.h). Precis writes one request frame (password and file
// bytes) to standard input and reads one frame per step from standard output. Poppler
// parses hostile files: here a crash or an endless loop costs this process only, which
// Precis kills when it stops making progress or the user cancels.
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>

#include "app/ingest/pdf_pages.h"
#include "app/ingest/pdf_wire.h"

namespace {

bool read_exactly(int fd, char* out, size_t n) {
    while (n > 0) {
        const ssize_t got = ::read(fd, out, n);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;
        out += got;
        n -= size_t(got);
    }
    return true;
}

bool write_all(int fd, const QByteArray& bytes) {
    const char* p = bytes.constData();
    size_t n = size_t(bytes.size());
    while (n > 0) {
        const ssize_t put = ::write(fd, p, n);
        if (put < 0 && errno == EINTR) continue;
        if (put <= 0) return false;
        p += put;
        n -= size_t(put);
    }
    return true;
}

// Every step goes out at once: it is also the beat that tells Precis the reader is alive.
class FrameWriter : public precis::PdfPageSink {
public:
    void opened(int page_count) override { send(precis::encode_pdf_opened(page_count)); }
    void page(int index, const precis::PdfPageLines* lines) override { send(precis::encode_pdf_page(index, lines)); }
    void outline(const QVector<precis::OutlineEntry>& entries) override {
        send(precis::encode_pdf_outline(entries));
    }
    void title(const QString& title) override { send(precis::encode_pdf_title(title)); }
    void send(const QByteArray& frame) {
        if (!write_all(STDOUT_FILENO, frame)) _exit(3);  // Precis has gone
    }
};

}  // namespace

int main(int argc, char**) {
    // Precis put this process in a group of its own, so a terminal's Ctrl-C does not reach
    // it; if Precis itself is killed, this goes too instead of reading on for nobody.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1) return 2;  // Precis was gone before that took hold
    if (argc != 1 || isatty(STDIN_FILENO)) {
        std::fputs("precis-pdf-reader is run by Precis, which sends it a PDF on standard input.\n", stderr);
        return 2;
    }
    char prefix[4];
    if (!read_exactly(STDIN_FILENO, prefix, 4)) return 2;
    const uint32_t n = precis::frame_length(prefix);
    if (n > precis::kMaxPdfWireFrame) return 2;
    QByteArray request(qsizetype(n), Qt::Uninitialized);
    if (!read_exactly(STDIN_FILENO, request.data(), n)) return 2;
    QString password;
    QByteArray bytes;
    if (!precis::decode_pdf_request(request, &password, &bytes)) return 2;
    request = QByteArray();

    FrameWriter out;
    const precis::PdfOpenFailure failure = precis::read_pdf_pages(bytes, password, out);
    if (failure != precis::PdfOpenFailure::None) out.send(precis::encode_pdf_failure(failure));
    return 0;
}
