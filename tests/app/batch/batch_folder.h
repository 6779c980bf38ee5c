#pragma once
// A batch folder for the shard, merge and cluster tests: text files and real PDFs with
// distinct sentences (so every summary differs), and optionally one damaged PDF.
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/simple_pdf.h"

namespace precis::test {

struct BatchFolder {
    int texts = 0, pdfs = 0;
    bool damaged = false;
    int good() const { return texts + pdfs; }
};

// `sentences` per document; more makes a document slower to summarize.
inline BatchFolder make_batch_folder(const std::filesystem::path& dir, int texts, int pdfs, bool damaged,
                                     int sentences = 6) {
    std::filesystem::create_directories(dir);
    auto sentence = [](int doc, int i) {
        return "Document " + std::to_string(doc) + " reports finding " + std::to_string(i) + " about river " +
               std::to_string(doc * 31 + i) + " and its valley in season " + std::to_string(i % 4) + ".";
    };
    for (int d = 0; d < texts; ++d) {
        std::ofstream out(dir / ("note-" + std::to_string(d) + ".txt"));
        for (int i = 0; i < sentences; ++i) out << sentence(d, i) << (i % 3 == 2 ? "\n\n" : " ");
    }
    for (int d = texts; d < texts + pdfs; ++d) {
        std::vector<std::string> lines;
        for (int i = 0; i < std::min(sentences, 40); ++i) lines.push_back(sentence(d, i));
        write_simple_pdf(dir / ("paper-" + std::to_string(d) + ".pdf"), lines);
    }
    if (damaged) std::ofstream(dir / "damaged.pdf") << "%PDF-1.4\nthis file was cut off in transfer";
    return {texts, pdfs, damaged};
}

}  // namespace precis::test
