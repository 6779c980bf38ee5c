#include "engine/tokenizer/tokenizer.h"

#include <algorithm>

#include "engine/core/error.h"
#include "engine/io/regular_file.h"
#include "engine/tokenizer/byte_level_bpe.h"
#include "engine/tokenizer/sentencepiece_tokenizer.h"

namespace precis {

namespace fs = std::filesystem;

namespace {

// True for a tokenizer file that is there; one that is there but is not a regular file
// (a FIFO, a device, a folder) is an error naming it rather than a file to skip.
bool is_file(const fs::path& p) {
    std::error_code ec;
    if (!fs::exists(p, ec)) return false;
    require_regular_file(p, "the tokenizer file " + p.string());
    return true;
}

// The folder's sentencepiece model: a conventional name first, else the only *.model.
fs::path find_sentencepiece_model(const fs::path& dir) {
    for (const char* name : {"sentencepiece.bpe.model", "spm.model", "tokenizer.model"})
        if (is_file(dir / name)) return dir / name;
    std::vector<fs::path> models;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec))
        if (entry.path().extension() == ".model" && is_file(entry.path())) models.push_back(entry.path());
    if (models.size() > 1) {
        std::sort(models.begin(), models.end());
        std::string names;
        for (const auto& m : models) names += (names.empty() ? "" : ", ") + m.filename().string();
        throw Error("the model folder " + dir.string() + " has several sentencepiece models (" + names +
                    ") and none has a standard name, so the tokenizer is ambiguous.");
    }
    return models.empty() ? fs::path() : models.front();
}

}  // namespace

bool has_tokenizer_files(const fs::path& dir) {
    if (is_file(dir / "tokenizer.json") || is_file(dir / "vocab.json") || is_file(dir / "merges.txt")) return true;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))
        if (e.path().extension() == ".model") return true;
    return false;
}

std::unique_ptr<Tokenizer> load_tokenizer(const fs::path& dir) {
    std::error_code ec;
    if (!fs::exists(dir, ec)) throw Error("the model folder " + dir.string() + " does not exist.");
    if (!fs::is_directory(dir, ec)) throw Error("the model path " + dir.string() + " is not a folder.");

    if (is_file(dir / "tokenizer.json")) return ByteLevelBpeTokenizer::from_tokenizer_json(dir / "tokenizer.json");

    const bool has_vocab = is_file(dir / "vocab.json"), has_merges = is_file(dir / "merges.txt");
    if (has_vocab && has_merges)
        return ByteLevelBpeTokenizer::from_vocab_and_merges(dir / "vocab.json", dir / "merges.txt");

    if (fs::path model = find_sentencepiece_model(dir); !model.empty())
        return std::make_unique<SentencePieceTokenizer>(model);

    if (has_vocab != has_merges)
        throw Error("the model folder " + dir.string() + " has " + (has_vocab ? "vocab.json" : "merges.txt") +
                    " but no " + (has_vocab ? "merges.txt" : "vocab.json") + ", so its BPE tokenizer is incomplete.");
    throw Error("the model folder " + dir.string() +
                " has no tokenizer (expected tokenizer.json, vocab.json + merges.txt, or a sentencepiece .model file).");
}

}  // namespace precis
