// A sentencepiece model whose precompiled normalization map is damaged is refused with one
// error before sentencepiece reads it: the library follows the map's trie and offsets
// unchecked, and tests/fuzz/sentencepiece_fuzz made it read freed memory that way.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>

#include <sentencepiece_trainer.h>

#include "engine/core/error.h"
#include "engine/tokenizer/sentencepiece_charsmap.h"
#include "engine/tokenizer/sentencepiece_tokenizer.h"
#include "tests/support/fixtures.h"

namespace precis {
namespace {

namespace fs = std::filesystem;

// A small unigram model trained here, with sentencepiece's default NFKC map; its bytes.
std::string trained_model(const fs::path& dir) {
    const fs::path corpus = dir / "corpus.txt";
    {
        std::ofstream out(corpus);
        for (int i = 0; i < 20; ++i)
            out << "Rivers carve valleys and floods spread silt over the plain, year " << i << ".\n"
                << "Ｆｕｌｌｗｉｄｔｈ letters and ﬁ ligatures are normalized by NFKC.\n";
    }
    const std::string args = "--input=" + corpus.string() + " --model_prefix=" + (dir / "m").string() +
                             " --vocab_size=60 --hard_vocab_limit=false --num_threads=1 --minloglevel=2";
    EXPECT_TRUE(sentencepiece::SentencePieceTrainer::Train(args).ok());
    std::ifstream in(dir / "m.model", std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The trie units of the model's first map, as a writable range of its bytes.
struct TrieUnits {
    char* first;
    size_t count;
    uint32_t get(size_t i) const {
        uint32_t u;
        std::memcpy(&u, first + 4 * i, 4);
        return u;
    }
    void set(size_t i, uint32_t u) { std::memcpy(first + 4 * i, &u, 4); }
};

TrieUnits trie_of(std::string& model) {
    const auto maps = sentencepiece_charsmaps(model);
    EXPECT_FALSE(maps.empty());
    char* map = model.data() + (maps.front().data() - model.data());
    uint32_t trie_bytes;
    std::memcpy(&trie_bytes, map, 4);
    return {map + 4, trie_bytes / 4};
}

fs::path write_model(const fs::path& dir, const std::string& bytes) {
    const fs::path file = dir / "sentencepiece.bpe.model";
    std::ofstream(file, std::ios::binary) << bytes;
    return file;
}

void expect_refused(const fs::path& file) {
    try {
        SentencePieceTokenizer tok(file);
        ADD_FAILURE() << "a damaged normalization map was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("damaged normalization map"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
    }
}

TEST(SentencePieceCharsmap, TrainedModelsMapPassesAndTheModelNormalizes) {
    const fs::path dir = test::scratch_dir("spm-charsmap-ok");
    const std::string model = trained_model(dir);
    ASSERT_EQ(sentencepiece_charsmaps(model).size(), 1u);
    EXPECT_NO_THROW(check_sentencepiece_charsmaps(model, "model"));
    const SentencePieceTokenizer tok(write_model(dir, model));
    EXPECT_EQ(tok.decode(tok.encode("\xEF\xBC\xA6ull", false)), "Full");  // U+FF26 folded by the map
}

TEST(SentencePieceCharsmap, ValueOutsideTheReplacementStringsIsRefused) {
    const fs::path dir = test::scratch_dir("spm-charsmap-value");
    std::string model = trained_model(dir);
    TrieUnits trie = trie_of(model);
    int changed = 0;
    for (size_t i = 0; i < trie.count; ++i)
        if (trie.get(i) >> 31) trie.set(i, 0xFFFFFFF0u), ++changed;  // value 0x7FFFFFF0: far past the map
    ASSERT_GT(changed, 0);
    expect_refused(write_model(dir, model));
}

TEST(SentencePieceCharsmap, NodeWhoseChildrenLieOutsideTheTrieIsRefused) {
    const fs::path dir = test::scratch_dir("spm-charsmap-node");
    std::string model = trained_model(dir);
    TrieUnits trie = trie_of(model);
    // The root's offset field (bits 10..30) set so its children lie far beyond the trie.
    trie.set(0, (trie.get(0) & 0x3FFu) | (0x1FFFFFu << 10));
    expect_refused(write_model(dir, model));
}

TEST(SentencePieceCharsmap, RootThatIsAValueUnitStillHasItsChildrenChecked) {
    // sentencepiece starts every lookup at the root, whatever kind of unit it is.
    const fs::path dir = test::scratch_dir("spm-charsmap-root");
    std::string model = trained_model(dir);
    trie_of(model).set(0, 0xFFFFFC00u);
    expect_refused(write_model(dir, model));
}

TEST(SentencePieceCharsmap, MalformedProtobufFramingFindsNoMapAndThrowsNothing) {
    EXPECT_TRUE(sentencepiece_charsmaps(std::string("\x1a\xff\xff\xff\xff\x0f", 6)).empty());
    EXPECT_TRUE(sentencepiece_charsmaps(std::string()).empty());
    EXPECT_NO_THROW(check_sentencepiece_charsmaps(std::string("\x1a\x02\x12\x00", 4), "model"));
}

}  // namespace
}  // namespace precis
