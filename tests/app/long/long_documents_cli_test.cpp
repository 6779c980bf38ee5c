// Long documents on the command line: `precis summarize` of a document longer than the
// model reads says how it was read (--long), prints the outline under the summary and gives
// `sections` in its JSON, with a PDF's bookmarks and pages; `precis batch` stores the
// outline in the library, where `library show` and `export` find it.
#include <gtest/gtest.h>

#include <QStringList>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/app/in_process_cli.h"
#include "tests/support/fixtures.h"
#include "tests/support/simple_pdf.h"

namespace precis::test {
namespace {

namespace fs = std::filesystem;

// Chapters of varied prose, well past the test model's 128 tokens.
std::string book(int chapters) {
    static const char* const kSentences[] = {
        "The river rose in the night and the mill stood silent.",
        "Martha counted the coins twice before she spoke to the miller.",
        "No one in the village had seen such a winter since the old king died.",
        "A letter came from the city asking for the rent of three years.",
    };
    std::string text;
    for (int c = 1; c <= chapters; ++c) {
        text += "CHAPTER " + std::to_string(c) + ".\n\n";
        for (int p = 0; p < 3; ++p) {
            text += "Day " + std::to_string(c * 10 + p) + " began.";
            for (int i = 0; i < 3; ++i) text += std::string(" ") + kSentences[(c + p + i) % 4];
            text += "\n\n";
        }
    }
    return text;
}

class LongDocumentsCli : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = scratch_dir("long-cli");
        // The section store and the library go under the test's folder.
        setenv("XDG_CACHE_HOME", (dir_ / "cache").c_str(), 1);
        setenv("XDG_DATA_HOME", (dir_ / "data").c_str(), 1);
        model_ = (fixtures_dir() / "models/bart-tiny-realvocab").string();
    }

    CliResult summarize(const std::string& file, std::vector<std::string> extra = {}) {
        std::vector<std::string> words = {"summarize", "--model", model_, "--max-new-tokens", "10", file};
        words.insert(words.end(), extra.begin(), extra.end());
        return run_cli_in_process(words);
    }

    fs::path dir_;
    std::string model_;
};

TEST_F(LongDocumentsCli, ABookIsSummarizedInSectionsGivenInItsJsonAndPrintedUnderTheSummary) {
    const fs::path file = dir_ / "book.txt";
    std::ofstream(file) << book(6);
    const CliResult json = summarize(file.string(), {"--json"});
    ASSERT_EQ(json.code, 0) << json.err;
    const nlohmann::json o = nlohmann::json::parse(json.out);
    EXPECT_EQ(o["long"], "sections");
    EXPECT_EQ(o["truncated"], false);
    EXPECT_EQ(o["tokens_read"], o["input_tokens"]);
    ASSERT_GE(o["sections"].size(), 6u);
    EXPECT_TRUE(contains(json.err, "in " + std::to_string(o["sections"].size()) + " sections")) << json.err;
    int covered = 0;
    for (const auto& s : o["sections"]) {
        EXPECT_FALSE(s["summary"].get<std::string>().empty());
        EXPECT_TRUE(s["pages"].is_null());
        EXPECT_GT(s["tokens"].get<int>(), 0);
        covered += s["end"].get<int>() - s["start"].get<int>();
    }
    EXPECT_EQ(covered, int(QString::fromStdString(book(6)).size()));
    EXPECT_EQ(o["sections"][0]["title"].get<std::string>().rfind("CHAPTER 1.", 0), 0u) << o["sections"][0]["title"];

    const CliResult text = summarize(file.string());
    ASSERT_EQ(text.code, 0) << text.err;
    EXPECT_TRUE(contains(text.out, "\nSections:\n[1] CHAPTER 1.")) << text.out;
    EXPECT_TRUE(contains(text.err, "sections kept from an earlier run")) << "the second run reuses the first's sections";
}

TEST_F(LongDocumentsCli, WithoutAModelALongDocumentGetsTheSameOutlineWithItsOwnSentences) {
    const fs::path file = dir_ / "book.txt";
    const std::string text = book(150);  // some 18,000 words: windows of 3,000
    std::ofstream(file) << text;
    const CliResult r = run_cli_in_process({"summarize", "--method", "extractive", "--json", file.string()});
    ASSERT_EQ(r.code, 0) << r.err;
    const nlohmann::json o = nlohmann::json::parse(r.out);
    ASSERT_GE(o["sections"].size(), 3u);
    EXPECT_EQ(o["sections"][0]["title"].get<std::string>().rfind("CHAPTER 1.", 0), 0u) << o["sections"][0]["title"];
    for (const auto& s : o["sections"]) {
        const std::string summary = s["summary"];
        ASSERT_FALSE(summary.empty());
        // Its sentences are the document's own, from inside the section.
        const std::string first = summary.substr(0, summary.find('\n'));
        const size_t at = text.find(first, size_t(s["start"].get<int>()));
        EXPECT_NE(at, std::string::npos) << first;
        EXPECT_LT(at, size_t(s["end"].get<int>())) << first;
    }
}

TEST_F(LongDocumentsCli, TruncateReadsTheFirstTokensAndSaysTheRestWasNotSummarized) {
    const fs::path file = dir_ / "book.txt";
    std::ofstream(file) << book(6);
    const CliResult r = summarize(file.string(), {"--json", "--long", "truncate"});
    ASSERT_EQ(r.code, 0) << r.err;
    const nlohmann::json o = nlohmann::json::parse(r.out);
    EXPECT_EQ(o["long"], "truncated");
    EXPECT_EQ(o["tokens_read"], 128);
    EXPECT_TRUE(o["sections"].empty());
    EXPECT_TRUE(contains(r.err, "read the first 128 of")) << r.err;
    EXPECT_TRUE(contains(r.err, "the rest was not summarized")) << r.err;
}

TEST_F(LongDocumentsCli, TokenizeWindowsPrintsTheWindowsSummarizeReads) {
    const fs::path file = dir_ / "book.txt";
    std::ofstream(file) << book(6);
    const std::string tokenizer = (fixtures_dir() / "tokenizer/bart").string();  // the test model keeps it apart
    const CliResult windows = run_cli_in_process({"tokenize", "--model", tokenizer, "--windows", file.string(), "--max-tokens", "128"});
    ASSERT_EQ(windows.code, 0) << windows.err;
    const CliResult summary = summarize(file.string(), {"--json"});
    ASSERT_EQ(summary.code, 0) << summary.err;
    const nlohmann::json sections = nlohmann::json::parse(summary.out)["sections"];
    std::istringstream lines(windows.out);
    size_t k = 0;
    for (std::string line; std::getline(lines, line); ++k) {
        const nlohmann::json w = nlohmann::json::parse(line);
        ASSERT_LT(k, sections.size());
        EXPECT_EQ(w["title"], sections[k]["title"]);
        EXPECT_EQ(w["start"], sections[k]["start"]);
        EXPECT_LE(w["ids"].size(), 128u);
        EXPECT_EQ(w["ids"].size(), w["tokens"].get<size_t>() + 2);
    }
    EXPECT_EQ(k, sections.size());
}

TEST_F(LongDocumentsCli, AnUnknownLongModeIsOneClearLine) {
    const fs::path file = dir_ / "short.txt";
    std::ofstream(file) << "A short note.\n";
    const CliResult r = summarize(file.string(), {"--long", "everything"});
    EXPECT_NE(r.code, 0);
    EXPECT_TRUE(contains(r.err, "--long takes auto, extend, sections or truncate, not 'everything'")) << r.err;
}

TEST_F(LongDocumentsCli, APdfsBookmarksNameItsSectionsWithTheirPages) {
    std::vector<std::vector<std::string>> pages;
    const std::string prose = book(1).substr(std::string("CHAPTER 1.\n\n").size());
    for (int p = 0; p < 6; ++p) {
        std::vector<std::string> lines;
        std::string line;
        for (char c : prose) {  // lines of about 70 characters, paragraphs apart
            if (c == '\n') {
                if (!line.empty()) lines.push_back(line);
                if (lines.empty() || !lines.back().empty()) lines.emplace_back();
                line.clear();
            } else if (c == ' ' && line.size() > 70) {
                lines.push_back(line);
                line.clear();
            } else {
                line += c;
            }
        }
        pages.push_back(lines);
    }
    const fs::path file = dir_ / "report.pdf";
    write_simple_pdf_pages(file, pages, {{"Opening", 0, {}}, {"Middle", 2, {}}, {"End", 4, {}}});
    const CliResult r = summarize(file.string(), {"--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const nlohmann::json o = nlohmann::json::parse(r.out);
    ASSERT_EQ(o["long"], "sections") << r.err;
    ASSERT_GE(o["sections"].size(), 3u);
    EXPECT_EQ(o["sections"][0]["title"].get<std::string>().rfind("Opening", 0), 0u);
    EXPECT_EQ(o["sections"][0]["pages"][0], 0);
    EXPECT_EQ(o["sections"].back()["title"].get<std::string>().rfind("End", 0), 0u);
    EXPECT_EQ(o["sections"].back()["pages"][1], 5);
    for (const auto& s : o["sections"]) EXPECT_LE(s["pages"][0].get<int>(), s["pages"][1].get<int>());
}

TEST_F(LongDocumentsCli, BatchStoresTheOutlineWhereLibraryShowAndExportFindIt) {
    const fs::path inbox = dir_ / "inbox";
    fs::create_directories(inbox);
    std::ofstream(inbox / "book.txt") << book(6);
    std::ofstream(inbox / "note.txt") << "A short note about the harbour and its boats.\n";
    const std::string library = (dir_ / "library.sqlite").string();
    const CliResult batch = run_cli_in_process(
        {"batch", inbox.string(), "--library", library, "--model", model_, "--max-new-tokens", "10"});
    ASSERT_EQ(batch.code, 0) << batch.err;
    const CliResult show = run_cli_in_process({"library", "show", "1", "--library", library});
    const CliResult shown2 = run_cli_in_process({"library", "show", "2", "--library", library});
    const std::string both = show.out + shown2.out;
    EXPECT_TRUE(contains(both, "CHAPTER 1.")) << both;
    const CliResult list = run_cli_in_process({"library", "list", "--library", library});
    ASSERT_EQ(list.code, 0) << list.err;
    bool exported_sections = false;
    for (const char* id : {"1", "2"}) {
        const CliResult e = run_cli_in_process({"library", "export", id, "--format", "json", "--library", library});
        if (e.code != 0) continue;
        const nlohmann::json j = nlohmann::json::parse(e.out, nullptr, false);
        if (j.is_discarded()) continue;
        ASSERT_TRUE(j.is_array()) << e.out;  // every summary of the document
        for (const auto& s : j)
            if (s.contains("sections") && s["sections"].size() >= 6) exported_sections = true;
    }
    EXPECT_TRUE(exported_sections);
}

}  // namespace
}  // namespace precis::test
