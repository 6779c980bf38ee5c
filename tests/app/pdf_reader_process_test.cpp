// PDFs read in the precis-pdf-reader process (app/ingest/pdf_reader_process.h): it reads
// what Poppler reads in-process; a reader that stops making progress, crashes, garbles its
// reply or whose run is cancelled is ended (killed and reaped: no process is left), and
// ingestion says so naming the file, or falls back to reading in-process when there is no
// reader to run. Stand-in readers are small shell scripts.
#include <gtest/gtest.h>
#include <signal.h>

#include <QFile>
#include <QGuiApplication>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QTemporaryDir>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "app/ingest/ingest.h"
#include "app/ingest/pdf_reader_process.h"
#include "engine/core/error.h"

namespace precis::test {
namespace {

using namespace std::chrono_literals;
using Ending = PdfReaderOutcome::Ending;
using Clock = std::chrono::steady_clock;

const std::string kReader = std::string(PRECIS_BINARY_DIR_FOR_TESTS) + "/bin/precis-pdf-reader";

QByteArray two_page_pdf() {
    QByteArray bytes;
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("two.pdf"));
        QPdfWriter writer(path);
        writer.setPageSize(QPageSize(QPageSize::A4));
        writer.setResolution(72);
        writer.setTitle(QStringLiteral("Two Pages"));
        QPainter painter(&writer);
        painter.drawText(60, 100, QStringLiteral("Rivers shape their valleys slowly."));
        painter.drawText(60, 114, QStringLiteral("Grain by grain, season after season."));
        writer.newPage();
        painter.drawText(60, 100, QStringLiteral("The delta keeps growing."));
        painter.end();
        QFile f(path);
        EXPECT_TRUE(f.open(QIODevice::ReadOnly));
        bytes = f.readAll();
    }
    return bytes;
}

class PdfReaderProcess : public ::testing::Test {
protected:
    void TearDown() override { unsetenv("PRECIS_PDF_READER"); }

    // An executable shell script standing in for the reader.
    std::string script(const char* name, const QString& body) {
        const QString path = dir_.filePath(QString::fromLatin1(name));
        QFile f(path);
        EXPECT_TRUE(f.open(QIODevice::WriteOnly));
        f.write(("#!/bin/sh\n" + body + "\n").toUtf8());
        f.close();
        f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        return path.toStdString();
    }
    // A reader that writes its process id to a file, then never answers.
    std::string silent_reader() { return script("silent.sh", QStringLiteral("echo $$ > '%1'\nexec sleep 600").arg(pid_file())); }
    QString pid_file() const { return dir_.filePath(QStringLiteral("reader.pid")); }
    pid_t reader_pid() const {
        QFile f(pid_file());
        return f.open(QIODevice::ReadOnly) ? pid_t(f.readAll().trimmed().toInt()) : 0;
    }
    static bool process_is_gone(pid_t pid) { return pid > 0 && ::kill(pid, 0) == -1 && errno == ESRCH; }

    QString write_pdf(const char* name, const QByteArray& bytes) {
        const QString path = dir_.filePath(QString::fromLatin1(name));
        QFile f(path);
        EXPECT_TRUE(f.open(QIODevice::WriteOnly));
        f.write(bytes);
        return path;
    }

    QTemporaryDir dir_;
};

TEST_F(PdfReaderProcess, ReadsWhatPopplerReadsInProcess) {
    const QByteArray bytes = two_page_pdf();
    PdfPagesCollector here;
    ASSERT_EQ(read_pdf_pages(bytes, {}, here), PdfOpenFailure::None);
    const PdfReaderOutcome r = read_pdf_in_reader_process(kReader, bytes, {}, 30s, {});
    ASSERT_EQ(r.ending, Ending::Finished) << r.detail;
    EXPECT_EQ(r.pages.failure, PdfOpenFailure::None);
    EXPECT_EQ(r.steps, 4);  // opened, two pages, the title
    const PdfPages& want = here.result();
    ASSERT_EQ(r.pages.pages.size(), want.pages.size());
    for (qsizetype p = 0; p < want.pages.size(); ++p) {
        ASSERT_EQ(r.pages.pages[p].lines.size(), want.pages[p].lines.size()) << "page " << p;
        for (qsizetype l = 0; l < want.pages[p].lines.size(); ++l) {
            EXPECT_EQ(r.pages.pages[p].lines[l].text, want.pages[p].lines[l].text);
            EXPECT_EQ(r.pages.pages[p].lines[l].box, want.pages[p].lines[l].box);
        }
    }
    EXPECT_EQ(r.pages.pages[1].lines[0].text, "The delta keeps growing.");
    EXPECT_EQ(r.pages.title, "Two Pages");
}

TEST_F(PdfReaderProcess, SaysWhyAFileDidNotOpen) {
    const PdfReaderOutcome r = read_pdf_in_reader_process(kReader, QByteArray("not a PDF at all"), {}, 30s, {});
    ASSERT_EQ(r.ending, Ending::Finished) << r.detail;
    EXPECT_EQ(r.pages.failure, PdfOpenFailure::NotAPdf);
}

TEST_F(PdfReaderProcess, AReaderThatStopsMakingProgressIsKilledAtTheLimit) {
    const auto started = Clock::now();
    const PdfReaderOutcome r = read_pdf_in_reader_process(silent_reader(), two_page_pdf(), {}, 300ms, {});
    const auto waited = Clock::now() - started;
    EXPECT_EQ(r.ending, Ending::Stalled);
    EXPECT_EQ(r.steps, 0);
    EXPECT_GE(waited, 300ms);
    EXPECT_LT(waited, 10s);
    EXPECT_TRUE(process_is_gone(reader_pid())) << "pid " << reader_pid();
}

TEST_F(PdfReaderProcess, ACancelKillsTheReaderWithoutWaitingForTheLimit) {
    const auto started = Clock::now();
    const PdfReaderOutcome r = read_pdf_in_reader_process(silent_reader(), two_page_pdf(), {}, 60s,
                                                          [started] { return Clock::now() - started > 200ms; });
    EXPECT_EQ(r.ending, Ending::Cancelled);
    EXPECT_LT(Clock::now() - started, 10s);
    EXPECT_TRUE(process_is_gone(reader_pid())) << "pid " << reader_pid();
}

TEST_F(PdfReaderProcess, AReaderThatCrashesIsReportedWithItsSignal) {
    const PdfReaderOutcome r =
        read_pdf_in_reader_process(script("crash.sh", QStringLiteral("kill -SEGV $$")), two_page_pdf(), {}, 30s, {});
    EXPECT_EQ(r.ending, Ending::Crashed);
    EXPECT_NE(r.detail.find("signal 11"), std::string::npos) << r.detail;
}

TEST_F(PdfReaderProcess, AGarbledReplyEndsTheReaderAtOnce) {
    const std::string garbling =
        script("garble.sh", QStringLiteral("echo $$ > '%1'\nprintf 'Zjunk not a frame'\nexec sleep 600").arg(pid_file()));
    const auto started = Clock::now();
    const PdfReaderOutcome r = read_pdf_in_reader_process(garbling, two_page_pdf(), {}, 60s, {});
    EXPECT_EQ(r.ending, Ending::Crashed);
    EXPECT_EQ(r.detail, "it sent a malformed reply");
    EXPECT_LT(Clock::now() - started, 10s);
    EXPECT_TRUE(process_is_gone(reader_pid())) << "pid " << reader_pid();
}

TEST_F(PdfReaderProcess, AReaderThatCannotStartSaysWhy) {
    const std::string missing = dir_.filePath(QStringLiteral("no-such-reader")).toStdString();
    const PdfReaderOutcome r = read_pdf_in_reader_process(missing, two_page_pdf(), {}, 30s, {});
    EXPECT_EQ(r.ending, Ending::CouldNotStart);
    EXPECT_NE(r.detail.find(missing), std::string::npos) << r.detail;
}

TEST_F(PdfReaderProcess, IngestionNamesTheFileAndThePageWhenTheReaderCrashes) {
    const QString file = write_pdf("crashing.pdf", two_page_pdf());
    setenv("PRECIS_PDF_READER", script("crash.sh", QStringLiteral("kill -SEGV $$")).c_str(), 1);
    try {
        ingest_file(file);
        FAIL() << "no error";
    } catch (const IngestError& e) {
        EXPECT_EQ(e.kind(), IngestErrorKind::Corrupt);
        EXPECT_TRUE(e.message().contains("crashing.pdf")) << e.message().toStdString();
        EXPECT_TRUE(e.message().contains("while opening it (signal 11")) << e.message().toStdString();
    }
}

TEST_F(PdfReaderProcess, IngestionThrowsCancelledWhenTheRunIsCancelled) {
    const QString file = write_pdf("slow.pdf", two_page_pdf());
    setenv("PRECIS_PDF_READER", silent_reader().c_str(), 1);
    IngestOptions opts;
    const auto started = Clock::now();
    opts.should_abort = [started] { return Clock::now() - started > 100ms; };
    EXPECT_THROW(ingest_file(file, opts), Cancelled);
    EXPECT_LT(Clock::now() - started, 10s);
    EXPECT_TRUE(process_is_gone(reader_pid())) << "pid " << reader_pid();
}

TEST_F(PdfReaderProcess, IngestionReadsInProcessWhenTheReaderCannotStartAndSaysSo) {
    const QString file = write_pdf("fine.pdf", two_page_pdf());
    setenv("PRECIS_PDF_READER", dir_.filePath(QStringLiteral("no-such-reader")).toLocal8Bit().constData(), 1);
    const IngestedDocument doc = ingest_file(file);
    EXPECT_TRUE(doc.text.contains("The delta keeps growing.")) << doc.text.toStdString();
    ASSERT_EQ(doc.notes.size(), 1);
    EXPECT_TRUE(doc.notes[0].startsWith("read inside Precis because its PDF reader could not start")) << doc.notes[0].toStdString();
}

TEST_F(PdfReaderProcess, TheEnvironmentNamesTheReaderAndATestProgramHasNoneBesideIt) {
    unsetenv("PRECIS_PDF_READER");
    // A test program lives in tests/, not beside bin/precis-pdf-reader: none is found for it.
    EXPECT_EQ(find_pdf_reader(), "");
    setenv("PRECIS_PDF_READER", kReader.c_str(), 1);
    EXPECT_EQ(find_pdf_reader(), kReader);
}

}  // namespace
}  // namespace precis::test

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    ::testing::InitGoogleTest(&argc, argv);
    QGuiApplication app(argc, argv);  // QPdfWriter and QPainter need fonts
    return RUN_ALL_TESTS();
}
