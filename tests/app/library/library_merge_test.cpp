// precis library merge (app/library/library_merge.h): shard libraries made by real sharded
// batch runs merge into one library with every document and summary once; merging again
// changes nothing; the same document under two names in two shards stays one; other
// settings stay separate summaries; and a truncated, newer or foreign input is refused with
// one sentence naming it while OUT stays byte for byte as it was. Summaries copied bring
// their sections (a long document's outline) along.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <QCryptographicHash>
#include <QFile>

#include <filesystem>
#include <fstream>

#include "app/batch/batch_runner.h"
#include "app/ingest/ingest.h"
#include "app/library/library.h"
#include "app/library/library_merge.h"
#include "tests/app/batch/batch_folder.h"
#include "tests/app/in_process_cli.h"
#include "tests/support/fixtures.h"

namespace precis::test {
namespace {

namespace fs = std::filesystem;

QString q(const fs::path& p) { return QString::fromStdString(p.string()); }

BatchReport run_shard(const fs::path& folder, const fs::path& library, ShardSpec shard, int sentences = 2) {
    Library lib(q(library));
    BatchOptions opts;
    opts.root = q(folder);
    opts.extractive = true;
    opts.extractive_options.budget = {extractive::BudgetUnit::Sentences, double(sentences)};
    opts.shard = shard;
    return run_batch(lib, nullptr, opts, {});
}

QByteArray file_digest(const fs::path& p) {
    QFile f(q(p));
    f.open(QIODevice::ReadOnly);
    return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256);
}

int summary_count(const Library& lib) {
    int n = 0;
    for (const DocumentListItem& d : lib.documents()) n += d.summary_count;
    return n;
}

class LibraryMergeTest : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = scratch_dir("library-merge");
        folder_ = dir_ / "docs";
        made_ = make_batch_folder(folder_, 14, 4, true);
        for (int i = 0; i < 3; ++i) {
            shards_.push_back(dir_ / ("shard-" + std::to_string(i) + ".db"));
            run_shard(folder_, shards_.back(), {i, 3});
        }
        out_ = dir_ / "merged.db";
    }
    QStringList shard_list() const {
        QStringList l;
        for (const fs::path& s : shards_) l << q(s);
        return l;
    }
    fs::path dir_, folder_, out_;
    BatchFolder made_;
    std::vector<fs::path> shards_;
};

TEST_F(LibraryMergeTest, ShardsMergeIntoOneLibraryWithEveryDocumentAndFailureOnce) {
    const MergeCounts c = merge_libraries(q(out_), shard_list());
    EXPECT_EQ(c.documents_added, made_.good());
    EXPECT_EQ(c.summaries_added, made_.good());
    EXPECT_EQ(c.jobs_added, 3);
    Library merged(q(out_));
    ASSERT_EQ(merged.documents().size(), made_.good());
    for (const DocumentListItem& d : merged.documents()) EXPECT_EQ(d.summary_count, 1) << d.document.path.toStdString();
    const QVector<FailedBatchFile> failed = merged.failed_batch_files();
    ASSERT_EQ(failed.size(), 1);
    EXPECT_TRUE(failed[0].path.endsWith("damaged.pdf"));
    EXPECT_FALSE(failed[0].error.isEmpty());
    // What the desktop does with a merged record: search, passages, export.
    EXPECT_FALSE(merged.search("valley").isEmpty());
    const qint64 doc = merged.documents().front().document.id;
    const SummaryRecord s = merged.summaries_for(doc).front();
    EXPECT_TRUE(s.passages.has_value() && !s.passages->isEmpty());
    EXPECT_FALSE(merged.export_summary(s.id, ExportFormat::Markdown).isEmpty());
    for (const BatchJobInfo& j : merged.batch_jobs()) EXPECT_EQ(j.pending, 0);
}

TEST_F(LibraryMergeTest, MergingTheSameShardAgainChangesNothing) {
    merge_libraries(q(out_), shard_list());
    const MergeCounts again = merge_libraries(q(out_), shard_list());
    EXPECT_EQ(again.documents_added, 0);
    EXPECT_EQ(again.summaries_added, 0);
    EXPECT_EQ(again.classifications_added, 0);
    EXPECT_EQ(again.jobs_added, 0);
    EXPECT_EQ(again.items_added_or_updated, 0);
    EXPECT_EQ(again.summaries_known, made_.good());
    Library merged(q(out_));
    EXPECT_EQ(summary_count(merged), made_.good());
}

TEST_F(LibraryMergeTest, ATaskRunAgainUpdatesItsItemsWithoutDoublingSummaries) {
    // Shard 0 merged while half done, then finished and merged again.
    const fs::path partial = dir_ / "partial.db";
    {
        Library lib(q(partial));
        BatchOptions opts;
        opts.root = q(folder_);
        opts.extractive = true;
        opts.extractive_options.budget = {extractive::BudgetUnit::Sentences, 2.0};
        opts.shard = ShardSpec{0, 1};
        int finished = 0;
        BatchCallbacks cb;
        cb.on_file_finished = [&](const QString&, bool, const QString&) { ++finished; };
        cb.run.should_abort = [&] { return finished >= 5; };
        run_batch(lib, nullptr, opts, cb);
    }
    const MergeCounts half = merge_libraries(q(out_), {q(partial)});
    EXPECT_GE(half.summaries_added, 4);  // 5 files finished, one of them perhaps the damaged one
    run_shard(folder_, partial, {0, 1});
    const MergeCounts c = merge_libraries(q(out_), {q(partial)});
    EXPECT_EQ(c.summaries_added, made_.good() - half.summaries_added);
    EXPECT_EQ(c.summaries_known, half.summaries_added);
    Library merged(q(out_));
    EXPECT_EQ(summary_count(merged), made_.good());
    ASSERT_EQ(merged.batch_jobs().size(), 1);
    EXPECT_EQ(merged.batch_jobs()[0].pending, 0);
    EXPECT_EQ(merged.batch_jobs()[0].done, made_.good());
}

TEST(LibraryMerge, TheSameDocumentSeenByTwoShardsIsKeptOnce) {
    const fs::path dir = scratch_dir("merge-same-doc"), folder = dir / "docs";
    fs::create_directories(folder);
    // Two names for one content, in different shards of 2.
    std::string second;
    for (int k = 0; second.empty(); ++k)
        if (shard_of("copy-" + std::to_string(k) + ".txt", 2) != shard_of("original.txt", 2)) second = "copy-" + std::to_string(k) + ".txt";
    for (const std::string& name : {std::string("original.txt"), second})
        std::ofstream(folder / name) << "The harbour was rebuilt after the storm. Ships returned within a year. "
                                        "Trade grew again as the new piers opened.";
    run_shard(folder, dir / "a.db", {0, 2});
    run_shard(folder, dir / "b.db", {1, 2});
    const MergeCounts c = merge_libraries(q(dir / "out.db"), {q(dir / "a.db"), q(dir / "b.db")});
    EXPECT_EQ(c.documents_added, 1);
    EXPECT_EQ(c.documents_known, 1);
    EXPECT_EQ(c.summaries_added, 1);
    Library merged(q(dir / "out.db"));
    ASSERT_EQ(merged.documents().size(), 1);
    EXPECT_EQ(merged.documents()[0].summary_count, 1);
    int done = 0;
    for (const BatchJobInfo& j : merged.batch_jobs()) done += j.done;
    EXPECT_EQ(done, 2);  // both files count as summarized
}

TEST_F(LibraryMergeTest, TheSameDocumentWithOtherSettingsKeepsBothSummaries) {
    const fs::path longer = dir_ / "longer.db";
    run_shard(folder_, longer, {0, 1}, 3);
    QStringList all = shard_list();
    all << q(longer);
    const MergeCounts c = merge_libraries(q(out_), all);
    EXPECT_EQ(c.documents_added, made_.good());
    EXPECT_EQ(c.summaries_added, 2 * made_.good());
    Library merged(q(out_));
    for (const DocumentListItem& d : merged.documents()) EXPECT_EQ(d.summary_count, 2);
}

IngestedDocument text_document(const QString& name, const QString& text) {
    IngestedDocument d;
    d.path = "/docs/" + name;
    d.title = name;
    d.text = text;
    d.encoding = QStringLiteral("UTF-8");
    d.content_hash = QCryptographicHash::hash(text.toUtf8(), QCryptographicHash::Sha256).toHex();
    return d;
}

SummaryRecord summary_with(qint64 doc, const QString& text, int beams, const DocumentOutline& sections = {}) {
    SummaryRecord s;
    s.document_id = doc;
    s.model_name = QStringLiteral("lsg-bart-base");
    s.parameters = QJsonObject{{"num_beams", beams}};
    s.summary = text;
    s.sections = sections;
    return s;
}

TEST(LibraryMerge, CopiedSummariesCarryTheirSectionsAndAKeptSummaryKeepsItsOwn) {
    const fs::path dir = scratch_dir("merge-sections");
    const DocumentOutline four_beams = {{"Introduction", 0, 40, 0, 1, "Puffins nest in burrows.", 50},
                                        {"Results", 40, 90, 2, 4, "Burrow counts doubled since the rats went.", 70}};
    const DocumentOutline two_beams = {{"Whole", 0, 90, 0, 4, "Puffins recovered.", 120}};
    {
        Library shard(q(dir / "shard.db"));
        const qint64 puffins = shard.add_or_get_document(text_document("puffins.txt", "Puffins on the island."));
        shard.add_summary(summary_with(puffins, "Puffins recover.", 4, four_beams));
        shard.add_summary(summary_with(puffins, "Puffins, briefly.", 2, two_beams));
        const qint64 terns = shard.add_or_get_document(text_document("terns.txt", "Terns over the harbour."));
        shard.add_summary(summary_with(terns, "Terns, outlined in the shard.", 4, {{"All", 0, 23, -1, -1, "Terns dive.", 9}}));
    }
    {
        Library out(q(dir / "out.db"));  // already holds the terns summary, made in one pass
        const qint64 terns = out.add_or_get_document(text_document("terns.txt", "Terns over the harbour."));
        out.add_summary(summary_with(terns, "Terns, in one pass.", 4));
    }
    const MergeCounts c = merge_libraries(q(dir / "out.db"), {q(dir / "shard.db")});
    EXPECT_EQ(c.summaries_added, 2);
    EXPECT_EQ(c.summaries_known, 1);
    merge_libraries(q(dir / "out.db"), {q(dir / "shard.db")});  // again: nothing doubles

    Library merged(q(dir / "out.db"));
    for (const DocumentListItem& d : merged.documents()) {
        const QVector<SummaryRecord> summaries = merged.summaries_for(d.document.id);
        if (d.document.title == "terns.txt") {
            ASSERT_EQ(summaries.size(), 1);
            EXPECT_EQ(summaries[0].summary, "Terns, in one pass.");
            EXPECT_TRUE(summaries[0].sections.isEmpty());  // not the shard's outline of another text
            continue;
        }
        ASSERT_EQ(summaries.size(), 2);
        for (const SummaryRecord& s : summaries)
            EXPECT_EQ(s.sections, s.parameters.value("num_beams").toInt() == 4 ? four_beams : two_beams) << s.summary.toStdString();
    }
    ASSERT_EQ(merged.search("rats").size(), 1);  // the copied sections are in the search index
    EXPECT_TRUE(merged.search("dive").isEmpty());
}

void expect_refused(const fs::path& out, const QStringList& inputs, const fs::path& named, const std::string& what) {
    const bool out_existed = fs::exists(out);
    const QByteArray before = out_existed ? file_digest(out) : QByteArray();
    try {
        merge_libraries(q(out), inputs);
        ADD_FAILURE() << what << " was merged";
    } catch (const LibraryError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find(named.string()), std::string::npos) << msg;
        EXPECT_NE(msg.find(what), std::string::npos) << msg;
        EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
    EXPECT_EQ(fs::exists(out), out_existed);
    if (out_existed) EXPECT_EQ(file_digest(out), before) << "OUT changed";
}

TEST_F(LibraryMergeTest, ATruncatedShardIsRefusedAndOutStaysUnchanged) {
    merge_libraries(q(out_), {q(shards_[0])});
    const fs::path cut = dir_ / "cut.db";
    fs::copy_file(shards_[1], cut);  // closed: its WAL is checkpointed into the file
    fs::resize_file(cut, fs::file_size(cut) / 2);
    // Listed after a good one: nothing of the good one is merged either.
    expect_refused(out_, {q(shards_[2]), q(cut)}, cut, "damaged");
    Library merged(q(out_));
    EXPECT_EQ(merged.batch_jobs().size(), 1u);
}

TEST_F(LibraryMergeTest, ANewerSchemaAGarbageFileAndAMissingFileAreRefused) {
    merge_libraries(q(out_), {q(shards_[0])});
    const fs::path newer = dir_ / "newer.db";
    fs::copy_file(shards_[1], newer);
    sqlite3* db = nullptr;
    sqlite3_open(newer.c_str(), &db);
    sqlite3_exec(db, "PRAGMA user_version = 99", nullptr, nullptr, nullptr);
    sqlite3_close(db);
    expect_refused(out_, {q(newer)}, newer, "newer version of Precis");
    const fs::path garbage = dir_ / "garbage.db";
    std::ofstream(garbage) << std::string(8192, 'x');
    expect_refused(out_, {q(garbage)}, garbage, "damaged or is not a Precis library");
    expect_refused(out_, {q(dir_ / "absent.db")}, dir_ / "absent.db", "no such file");
    expect_refused(out_, {q(out_)}, out_, "into itself");
}

TEST_F(LibraryMergeTest, CommandLineMergesAndRefusesInOneSentence) {
    CliResult r = run_cli_in_process({"library", "merge", out_.string(), shards_[0].string(), shards_[1].string(),
                                      shards_[2].string()});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(contains(r.err, "merged 3 libraries")) << r.err;
    const fs::path cut = dir_ / "cut.db";
    fs::copy_file(shards_[1], cut);
    fs::resize_file(cut, 4096 * 2);
    r = run_cli_in_process({"library", "merge", out_.string(), cut.string()});
    EXPECT_EQ(r.code, 1);
    EXPECT_TRUE(contains(r.err, cut.string())) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

}  // namespace
}  // namespace precis::test
