// What a batch folder holds is what a batch job lists: file names that are not UTF-8 are
// listed exactly (two names differing in one bad byte stay two items, stored and read back
// byte for byte), and unreadable files and entries that are not regular files are listed
// too, so the run reports them as FAILED instead of dropping them unseen.
#include <gtest/gtest.h>

#include <QTemporaryDir>

#include <algorithm>

#include "app/batch/batch_runner.h"
#include "app/file_names.h"
#include "app/library/library.h"
#include "tests/support/hostile_inputs.h"

namespace fs = std::filesystem;
using namespace precis;
using namespace precis::test;

namespace {

std::vector<std::string> natives(const QStringList& paths) {
    std::vector<std::string> out;
    for (const QString& p : paths) out.push_back(path_to_native(p).toStdString());
    return out;
}

}  // namespace

TEST(BatchHostileEntries, ListingKeepsNonUtf8NamesFifosAndDevicesButNotHiddenOrOtherFiles) {
    QTemporaryDir tmp;
    const fs::path dir = fs::path(tmp.path().toStdString()) / "docs";
    fs::create_directories(dir / "sub");
    fs::create_directories(dir / ".hidden");
    write_file(dir / "a\xFE.txt", "one");
    write_file(dir / "a\xFF.txt", "two");
    write_file(dir / "sub/caf\xE9.md", "three");
    write_file(dir / ".hidden/skip.txt", "hidden");
    write_file(dir / ".dotfile.txt", "hidden");
    write_file(dir / "image.png", "not a document");
    make_fifo(dir / "pipe.txt");
    fs::create_symlink("/dev/zero", dir / "zero.txt");

    const QString root = path_from_native(dir.string());
    EXPECT_EQ(natives(list_documents(root, false)),
              (std::vector<std::string>{(dir / "a\xFE.txt").string(), (dir / "a\xFF.txt").string(),
                                        (dir / "pipe.txt").string(), (dir / "zero.txt").string()}));
    const std::vector<std::string> all = natives(list_documents(root, true));
    ASSERT_EQ(all.size(), 5u);
    EXPECT_NE(std::find(all.begin(), all.end(), (dir / "sub/caf\xE9.md").string()), all.end());
}

TEST(BatchHostileEntries, LibraryStoresEveryNonUtf8ItemAndReturnsItsExactBytes) {
    QTemporaryDir tmp;
    Library library(tmp.filePath("lib.sqlite"));
    const fs::path dir = fs::path(tmp.path().toStdString());
    const QStringList files{path_from_native((dir / "a\xFE.txt").string()), path_from_native((dir / "a\xFF.txt").string()),
                            path_from_native((dir / "b.txt").string())};
    BatchJobStart job = library.start_or_resume_job(path_from_native(dir.string()), files);
    EXPECT_EQ(natives(job.pending), natives(files));
    library.mark_item_failed(job.job_id, files[0], "a reason");
    BatchJobStart again = library.start_or_resume_job(path_from_native(dir.string()), files);
    EXPECT_TRUE(again.resumed);
    EXPECT_EQ(again.failed, 1);
    EXPECT_EQ(natives(again.pending), natives({files[1], files[2]}));
}
