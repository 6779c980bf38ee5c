// Ingestion refuses what is not a regular file before opening it (a FIFO would block, a
// symlink to /dev/zero would be read until memory runs out), reports read failures as
// Unreadable, caps the text it keeps, and opens file names that are not UTF-8.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <QTemporaryDir>

#include "app/file_names.h"
#include "app/ingest/ingest.h"
#include "tests/support/hostile_inputs.h"

namespace fs = std::filesystem;
using namespace precis;
using namespace precis::test;

namespace {

class IngestHostileFiles : public ::testing::Test {
protected:
    QTemporaryDir tmp_;
    fs::path dir() const { return fs::path(tmp_.path().toStdString()); }

    // Runs ingest_file on the native name, expecting an IngestError of `kind`.
    std::string expect_error(const std::string& native_name, IngestErrorKind kind, const IngestOptions& opts = {},
                             const fs::path& fifo = {}) {
        const QString path = path_from_native(native_name);
        IngestErrorKind got = IngestErrorKind::Corrupt;
        bool threw = false;
        const std::string msg = error_within(
            [&] {
                try {
                    ingest_file(path, opts);
                } catch (const IngestError& e) {
                    threw = true;
                    got = e.kind();
                    EXPECT_EQ(e.path(), path);
                    throw;
                }
            },
            fifo);
        EXPECT_TRUE(threw) << msg;
        EXPECT_EQ(ingest_error_kind_name(got), ingest_error_kind_name(kind)) << msg;
        return msg;
    }
};

void expect_contains(const std::string& msg, const std::string& what) {
    EXPECT_NE(msg.find(what), std::string::npos) << "missing '" << what << "' in: " << msg;
}

}  // namespace

TEST_F(IngestHostileFiles, FifoIsRefusedWithoutBlocking) {
    const fs::path fifo = dir() / "pipe.txt";
    make_fifo(fifo);
    const std::string msg = expect_error(fifo.string(), IngestErrorKind::Unreadable, {}, fifo);
    expect_contains(msg, "pipe.txt");
    expect_contains(msg, "is a named pipe (FIFO), not a regular file");
}

TEST_F(IngestHostileFiles, SymlinkToDevZeroIsRefusedWithoutReading) {
    fs::create_symlink("/dev/zero", dir() / "zero.txt");
    const std::string msg = expect_error((dir() / "zero.txt").string(), IngestErrorKind::Unreadable);
    expect_contains(msg, "zero.txt\" is a character device, not a regular file");
}

TEST_F(IngestHostileFiles, ReadErrorIsUnreadableWithTheReason) {
    // /proc/self/mem is a regular file whose first page cannot be read (EIO), for root too.
    fs::create_symlink("/proc/self/mem", dir() / "mem.txt");
    const std::string msg = expect_error((dir() / "mem.txt").string(), IngestErrorKind::Unreadable);
    expect_contains(msg, "mem.txt\" cannot be read: input/output error.");
}

TEST_F(IngestHostileFiles, PermissionDeniedIsUnreadable) {
    if (::geteuid() == 0) GTEST_SKIP() << "running as root, which may read a chmod 000 file (ReadErrorIsUnreadable covers the read failure)";
    const fs::path file = dir() / "secret.txt";
    write_file(file, "hidden text");
    ::chmod(file.c_str(), 0);
    expect_contains(expect_error(file.string(), IngestErrorKind::Unreadable), "secret.txt\" cannot be read: permission denied.");
}

TEST_F(IngestHostileFiles, TextBeyondTheCharacterLimitIsTooLarge) {
    const fs::path file = dir() / "long.txt";
    write_file(file, std::string(3000, 'a'));
    IngestOptions opts;
    opts.max_text_chars = 2000;
    const std::string why = expect_error(file.string(), IngestErrorKind::TooLarge, opts);
    expect_contains(why, "long.txt\" holds 3000 characters of text; the limit is 2000");
    expect_contains(why, "Split it into parts");  // and what to do instead
    opts.max_text_chars = 3000;
    EXPECT_NO_THROW(ingest_file(path_from_native(file.string()), opts));
}

TEST_F(IngestHostileFiles, NonUtf8FileNameIsOpenedAndKeptExactly) {
    const std::string name = (dir() / "caf\xE9 notes.txt").string();
    write_file(name, "A short note about rivers.");
    const IngestedDocument doc = ingest_file(path_from_native(name));
    EXPECT_EQ(path_to_native(doc.path).toStdString(), name);
    EXPECT_EQ(doc.title, QString("caf\\xe9 notes"));
    EXPECT_EQ(doc.text, QString("A short note about rivers."));
    // Errors show the name with the odd byte escaped, as valid UTF-8.
    const std::string missing = (dir() / "gone\xFF.txt").string();
    const std::string msg = expect_error(missing, IngestErrorKind::NotFound);
    expect_contains(msg, "gone\\xff.txt\" does not exist.");
}
