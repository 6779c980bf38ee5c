// SentencePieceTokenizer on tiny models trained at test time with the
// sentencepiece trainer: BART-style ids (<s>=0 <pad>=1 </s>=2 <unk>=3) and the
// fairseq layout of sentencepiece's default ids (mBART, XLM-R).
#include <gtest/gtest.h>

#include <fstream>

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include "engine/core/error.h"
#include "engine/tokenizer/sentencepiece_tokenizer.h"
#include "engine/tokenizer/tokenizer.h"
#include "tests/support/fixtures.h"

namespace precis {
namespace {

namespace fs = std::filesystem;

const char* const kCorpus[] = {
    "The quick brown fox jumps over the lazy dog.",
    "A summary keeps the main points of a long document.",
    "Long documents need attention that scales to many tokens.",
    "The model reads the text and writes a short summary.",
    "Local, sparse and global attention read long inputs.",
    "Each block of tokens attends to its neighbours and to global tokens.",
    "The encoder turns text into vectors; the decoder writes words.",
    "Beam search keeps several candidate summaries at each step.",
    "Tokenizers split text into pieces with ids from a vocabulary.",
    "Numbers like 12, 345 and 2024 appear in reports.",
    "She said the results were good, but the paper was very long.",
    "We tested the program on short and long texts alike.",
    "Questions? Answers! Lists: one, two, three.",
    "The library stores documents, summaries and their settings.",
    "A quick test of the tokenizer round trip on simple words.",
};

// Trains a model from kCorpus into dir/name with the extra trainer flags; the
// model's folder is returned.
fs::path train(const std::string& scratch, const std::string& name, const std::string& flags) {
    const fs::path dir = test::scratch_dir(scratch);
    const fs::path corpus = dir / "corpus.txt";
    {
        std::ofstream out(corpus);
        for (int rep = 0; rep < 4; ++rep)
            for (const char* line : kCorpus) out << line << "\n";
    }
    const fs::path prefix = dir / name;
    const std::string args = "--input=" + corpus.string() + " --model_prefix=" + prefix.string() +
                             " --vocab_size=200 --hard_vocab_limit=false --character_coverage=1.0"
                             " --num_threads=1 --minloglevel=2 " + flags;
    const auto status = sentencepiece::SentencePieceTrainer::Train(args);
    EXPECT_TRUE(status.ok()) << status.ToString();
    fs::remove(corpus);
    fs::remove(dir / (name + ".vocab"));
    return dir;
}

// BART layout, BPE, under the name mBART/XLM-R folders use.
const fs::path& bart_style_dir() {
    static const fs::path dir = train("spm-bart", "sentencepiece.bpe",
                                      "--model_type=bpe --bos_id=0 --pad_id=1 --eos_id=2 --unk_id=3"
                                      " --user_defined_symbols=<mask>");
    return dir;
}

// sentencepiece's default ids (<unk>=0 <s>=1 </s>=2, no pad), unigram, unconventional name.
const fs::path& fairseq_dir() {
    static const fs::path dir = train("spm-fairseq", "custom", "--model_type=unigram");
    return dir;
}

std::vector<int64_t> ids(std::initializer_list<int64_t> v) { return v; }

TEST(TokenizerSentencepiece, LoadsFromFolderWithBartStyleSpecialIds) {
    const auto tok = load_tokenizer(bart_style_dir());
    EXPECT_EQ(tok->kind(), "sentencepiece");
    EXPECT_EQ(tok->bos_id(), 0);
    EXPECT_EQ(tok->pad_id(), 1);
    EXPECT_EQ(tok->eos_id(), 2);
    EXPECT_EQ(tok->unk_id(), 3);
    EXPECT_EQ(tok->mask_id(), 4);  // the user-defined symbol comes right after the reserved ids
    EXPECT_EQ(tok->token_to_id("<mask>"), 4);
    EXPECT_EQ(tok->id_to_token(0), "<s>");
    EXPECT_EQ(tok->id_to_token(2), "</s>");
    EXPECT_EQ(tok->token_to_id("no-such-piece"), -1);
    EXPECT_EQ(tok->id_to_token(tok->vocab_size()), "");
    EXPECT_GT(tok->vocab_size(), 100);
}

TEST(TokenizerSentencepiece, EncodeFramesWithBosAndEosAndMatchesTheProcessor) {
    const auto tok = load_tokenizer(bart_style_dir());
    sentencepiece::SentencePieceProcessor sp;
    ASSERT_TRUE(sp.Load((bart_style_dir() / "sentencepiece.bpe.model").string()).ok());
    const std::string text = "The quick brown fox reads a long document.";
    std::vector<int> raw;
    ASSERT_TRUE(sp.Encode(text, &raw).ok());
    std::vector<int64_t> expected{0};
    expected.insert(expected.end(), raw.begin(), raw.end());
    expected.push_back(2);
    EXPECT_EQ(tok->encode(text), expected);
    EXPECT_EQ(tok->encode(text, false), std::vector<int64_t>(expected.begin() + 1, expected.end() - 1));
    EXPECT_EQ(tok->encode(""), ids({0, 2}));
}

TEST(TokenizerSentencepiece, RoundTripsText) {
    const auto tok = load_tokenizer(bart_style_dir());
    for (const char* line : kCorpus) {
        EXPECT_EQ(tok->decode(tok->encode(line), true), line);
        EXPECT_EQ(tok->decode(tok->encode(line, false)), line);
    }
    EXPECT_EQ(tok->decode(tok->encode("the summary of the test"), true), "the summary of the test");
}

TEST(TokenizerSentencepiece, DecodeKeepsSpecialTokensUnlessSkipped) {
    const auto tok = load_tokenizer(bart_style_dir());
    const auto encoded = tok->encode("the quick fox");
    EXPECT_EQ(tok->decode(encoded), "<s>the quick fox</s>");
    EXPECT_EQ(tok->decode(encoded, true), "the quick fox");
    std::vector<int64_t> padded = encoded;
    padded.push_back(1);
    EXPECT_EQ(tok->decode(padded, true), "the quick fox");
}

TEST(TokenizerSentencepiece, MaskInTextBecomesMaskIdAndSwallowsSpaceBefore) {
    const auto tok = load_tokenizer(bart_style_dir());
    const auto encoded = tok->encode("the quick <mask> fox");
    std::vector<int64_t> expected{0};
    for (int64_t id : tok->encode("the quick", false)) expected.push_back(id);
    expected.push_back(4);
    for (int64_t id : tok->encode(" fox", false)) expected.push_back(id);
    expected.push_back(2);
    EXPECT_EQ(encoded, expected);
    EXPECT_EQ(tok->decode(encoded), "<s>the quick<mask> fox</s>");
    EXPECT_EQ(tok->decode(encoded, true), "the quick fox");
}

TEST(TokenizerSentencepiece, UnknownCharactersBecomeUnk) {
    const auto tok = load_tokenizer(bart_style_dir());
    const auto encoded = tok->encode("\u03a9", false);  // Ω never occurs in the corpus
    ASSERT_FALSE(encoded.empty());
    EXPECT_EQ(encoded.back(), 3);
}

TEST(TokenizerSentencepiece, DefaultIdsUseFairseqLayoutShiftedByOne) {
    const auto tok = load_tokenizer(fairseq_dir());  // found as the folder's only *.model
    auto* spm = dynamic_cast<SentencePieceTokenizer*>(tok.get());
    ASSERT_NE(spm, nullptr);
    EXPECT_EQ(spm->id_offset(), 1);
    sentencepiece::SentencePieceProcessor sp;
    ASSERT_TRUE(sp.Load((fairseq_dir() / "custom.model").string()).ok());
    const int n = sp.GetPieceSize();

    EXPECT_EQ(tok->bos_id(), 0);
    EXPECT_EQ(tok->pad_id(), 1);
    EXPECT_EQ(tok->eos_id(), 2);
    EXPECT_EQ(tok->unk_id(), 3);
    EXPECT_EQ(tok->mask_id(), n + 1);  // appended after the last piece, as fairseq does
    EXPECT_EQ(tok->vocab_size(), n + 2);
    EXPECT_EQ(tok->id_to_token(n + 1), "<mask>");
    EXPECT_EQ(tok->id_to_token(4), sp.IdToPiece(3));

    const std::string text = "Beam search keeps the summary short.";
    std::vector<int> raw;
    ASSERT_TRUE(sp.Encode(text, &raw).ok());
    std::vector<int64_t> expected{0};
    for (int id : raw) expected.push_back(id + 1);
    expected.push_back(2);
    EXPECT_EQ(tok->encode(text), expected);
    EXPECT_EQ(tok->decode(expected, true), text);
    EXPECT_EQ(tok->encode("short \u03a9", false).back(), 3);  // spm's <unk> (0) maps to 3
    EXPECT_EQ(tok->encode("short <mask>", false).back(), n + 1);
}

// A serialized ModelProto with these pieces (type 1 normal, 2 unknown, 3 control), by hand.
std::string model_with_pieces(const std::vector<std::pair<std::string, int>>& pieces) {
    std::string model;
    for (const auto& [text, type] : pieces) {
        std::string piece = "\x0a" + std::string(1, char(text.size())) + text;  // piece
        piece += std::string("\x15\x00\x00\x80\xbf", 5);                      // score -1
        piece += "\x18" + std::string(1, char(type));                            // type
        model += "\x0a" + std::string(1, char(piece.size())) + piece;            // ModelProto.pieces
    }
    return model;
}

TEST(SentencePieceTokenizer, PieceThatIsANulByteIsOneClearErrorNotAnAbort) {
    // sentencepiece's trie builder throws its own exception type for a key starting with NUL
    // (found by tests/fuzz/sentencepiece_fuzz); it must come out as precis::Error.
    const fs::path dir = test::scratch_dir("spm-nul-piece");
    const fs::path file = dir / "sentencepiece.bpe.model";
    std::ofstream(file, std::ios::binary)
        << model_with_pieces({{"<unk>", 2}, {"<s>", 3}, {"</s>", 3}, {std::string(1, '\0'), 1}, {"a", 1}});
    try {
        SentencePieceTokenizer tok(file);
        ADD_FAILURE() << "a model with a NUL piece was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(file.string() + " cannot be loaded"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace precis
