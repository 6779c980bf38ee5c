// Byte-level BPE against the reference ids in fixtures/tokenizer/bart/cases.jsonl
// (README section 3), loaded both from tokenizer.json and from vocab.json + merges.txt.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <climits>
#include <fstream>
#include <map>
#include <random>
#include <thread>

#include <nlohmann/json.hpp>

#include "engine/tokenizer/byte_level.h"
#include "engine/tokenizer/byte_level_bpe.h"
#include "engine/tokenizer/tokenizer.h"
#include "engine/tokenizer/utf8.h"
#include "tests/support/fixtures.h"

namespace precis {
namespace {

namespace fs = std::filesystem;

fs::path bart_dir() { return test::fixtures_dir() / "tokenizer" / "bart"; }

struct Case {
    std::string text;
    std::vector<int64_t> ids;
    std::string decoded;
    std::vector<std::vector<std::string>> pretokens;  // per text segment
};

const std::vector<Case>& cases() {
    static const std::vector<Case> all = [] {
        std::vector<Case> out;
        std::ifstream in(bart_dir() / "cases.jsonl");
        std::string line;
        while (std::getline(in, line)) {
            if (line.empty()) continue;
            const auto j = nlohmann::json::parse(line);
            Case c{j["text"], j["ids"].get<std::vector<int64_t>>(), j["decoded"], {}};
            for (const auto& seg : j["segments"])
                if (seg.contains("pretokens")) c.pretokens.push_back(seg["pretokens"].get<std::vector<std::string>>());
            out.push_back(std::move(c));
        }
        return out;
    }();
    return all;
}

// Loading parses a 3.5 MB JSON file, so the suite shares one tokenizer per source.
const Tokenizer& from_tokenizer_json() {
    static const auto tok = load_tokenizer(bart_dir());
    return *tok;
}

std::unique_ptr<Tokenizer> load_from_vocab_and_merges() {
    const fs::path dir = test::scratch_dir("bpe-vocab-merges");
    fs::copy_file(bart_dir() / "vocab.json", dir / "vocab.json");
    fs::copy_file(bart_dir() / "merges.txt", dir / "merges.txt");
    return load_tokenizer(dir);
}

std::string printable(const std::string& s) { return s.size() > 60 ? s.substr(0, 60) + "..." : s; }

void expect_all_cases(const Tokenizer& tok) {
    ASSERT_EQ(cases().size(), 63u);
    for (const Case& c : cases()) {
        SCOPED_TRACE("text: " + printable(c.text));
        const auto ids = tok.encode(c.text);
        EXPECT_EQ(ids, c.ids);
        const std::vector<int64_t> inner(c.ids.begin() + 1, c.ids.end() - 1);
        EXPECT_EQ(tok.decode(inner), c.decoded);
    }
}

TEST(TokenizerBpe, FixtureCasesMatchIdsAndDecodeFromTokenizerJson) {
    const Tokenizer& tok = from_tokenizer_json();
    EXPECT_EQ(tok.kind(), "byte-level BPE");
    expect_all_cases(tok);
}

TEST(TokenizerBpe, FixtureCasesMatchIdsAndDecodeFromVocabAndMerges) {
    const auto tok = load_from_vocab_and_merges();
    EXPECT_EQ(tok->kind(), "byte-level BPE");
    EXPECT_EQ(tok->vocab_size(), 50265);
    EXPECT_EQ(tok->mask_id(), 50264);
    expect_all_cases(*tok);
}

TEST(TokenizerBpe, PreTokenizerMatchesFixtureSegments) {
    ByteLevelPreTokenizer pre;
    for (const Case& c : cases()) {
        SCOPED_TRACE("text: " + printable(c.text));
        // The text segments are what remains between added tokens; rebuild them
        // from the pretokens (which concatenate back to the segment).
        for (const auto& expected : c.pretokens) {
            std::string segment;
            for (const auto& p : expected) segment += p;
            std::vector<std::string_view> got;
            pre.split(segment, got);
            EXPECT_EQ(std::vector<std::string>(got.begin(), got.end()), expected);
        }
    }
}

std::vector<std::string> pre_split(std::string_view text) {
    static const ByteLevelPreTokenizer pre;
    std::vector<std::string_view> got;
    pre.split(text, got);
    return {got.begin(), got.end()};
}

TEST(TokenizerBpe, PreTokenizerTreatsNbspAsWhitespaceButNotZeroWidthSpace) {
    // NBSP is \s: it cannot join the punctuation run, so it splits off.
    EXPECT_EQ(pre_split("\u00a0\u00a0!"), (std::vector<std::string>{"\u00a0", "\u00a0", "!"}));
    EXPECT_EQ(pre_split("x\u00a0"), (std::vector<std::string>{"x", "\u00a0"}));
    // U+200B is not \s (nor a letter): it belongs to the [^\s\p{L}\p{N}] run.
    EXPECT_EQ(pre_split("\u200b\u200b!"), (std::vector<std::string>{"\u200b\u200b!"}));
    // U+180E left White_Space in Unicode 6.3; Python's `regex` agrees, PCRE2's \s would not.
    EXPECT_EQ(pre_split("\u180e!"), (std::vector<std::string>{"\u180e!"}));
    // U+0085 (NEL) is White_Space.
    EXPECT_EQ(pre_split("a\u0085"), (std::vector<std::string>{"a", "\u0085"}));
}

TEST(TokenizerBpe, PreTokenizerContractionsAreLowercaseOnly) {
    EXPECT_EQ(pre_split("it's"), (std::vector<std::string>{"it", "'s"}));
    EXPECT_EQ(pre_split("I'M"), (std::vector<std::string>{"I", "'", "M"}));
    EXPECT_EQ(pre_split("a  b"), (std::vector<std::string>{"a", " ", " b"}));
}

TEST(TokenizerBpe, SpecialIdsAndVocabularyLookups) {
    const Tokenizer& tok = from_tokenizer_json();
    EXPECT_EQ(tok.vocab_size(), 50265);
    EXPECT_EQ(tok.bos_id(), 0);
    EXPECT_EQ(tok.pad_id(), 1);
    EXPECT_EQ(tok.eos_id(), 2);
    EXPECT_EQ(tok.unk_id(), 3);
    EXPECT_EQ(tok.mask_id(), 50264);
    EXPECT_EQ(tok.token_to_id("\u0120world"), 232);  // "Ġworld"
    EXPECT_EQ(tok.id_to_token(232), "\u0120world");
    EXPECT_EQ(tok.token_to_id("<mask>"), 50264);
    EXPECT_EQ(tok.id_to_token(50264), "<mask>");
    EXPECT_EQ(tok.token_to_id("not a token at all"), -1);
    EXPECT_EQ(tok.id_to_token(-1), "");
    EXPECT_EQ(tok.id_to_token(50265), "");
}

TEST(TokenizerBpe, EncodeWithoutSpecialTokensHasNoFrame) {
    const Tokenizer& tok = from_tokenizer_json();
    EXPECT_EQ(tok.encode("Hello world", false), (std::vector<int64_t>{31414, 232}));
    EXPECT_TRUE(tok.encode("", false).empty());
}

TEST(TokenizerBpe, DecodeSkipsSpecialTokensOnRequest) {
    const Tokenizer& tok = from_tokenizer_json();
    const auto ids = tok.encode("Paris is the <mask> of France.");
    EXPECT_EQ(tok.decode(ids), "<s>Paris is the<mask> of France.</s>");
    EXPECT_EQ(tok.decode(ids, true), "Paris is the of France.");
    EXPECT_EQ(tok.decode({0, 31414, 232, 2, 1, 1}, true), "Hello world");
    // Ids outside the vocabulary contribute nothing instead of failing.
    EXPECT_EQ(tok.decode({31414, 999999, -5, 232}), "Hello world");
}

TEST(TokenizerBpe, DecodeReplacesSplitCharactersWithReplacementCharacter) {
    const Tokenizer& tok = from_tokenizer_json();
    const auto ids = tok.encode("\xF0\x9F\x98\x80", false);  // one emoji, several byte tokens
    ASSERT_GT(ids.size(), 1u);
    EXPECT_EQ(tok.decode(ids), "\xF0\x9F\x98\x80");
    // A prefix of the emoji's bytes is one truncated sequence: one U+FFFD, as in Python.
    EXPECT_EQ(tok.decode({ids.front()}), "\uFFFD");
}

TEST(TokenizerBpe, Utf8RepairFollowsPythonMaximalSubparts) {
    // Expected values are Python's bytes.decode("utf-8", "replace").
    EXPECT_EQ(utf8::replace_invalid("\xE0\x80"), "\uFFFD\uFFFD");
    EXPECT_EQ(utf8::replace_invalid("\xED\xA0\x80"), "\uFFFD\uFFFD\uFFFD");
    EXPECT_EQ(utf8::replace_invalid("\xF0\x9F\x98"), "\uFFFD");
    EXPECT_EQ(utf8::replace_invalid("\x80" "abc"), "\uFFFD" "abc");
    EXPECT_EQ(utf8::replace_invalid("\xC3("), "\uFFFD(");
    EXPECT_EQ(utf8::replace_invalid("\xF4\x90\x80\x80"), "\uFFFD\uFFFD\uFFFD\uFFFD");
    EXPECT_EQ(utf8::replace_invalid("\xC0\xAF"), "\uFFFD\uFFFD");
    EXPECT_EQ(utf8::replace_invalid("caf\xC3\xA9 \xF0\x9F\x98\x80"), "caf\u00e9 \U0001F600");
}

TEST(TokenizerBpe, InvalidUtf8InputIsRepairedNotRejected) {
    const Tokenizer& tok = from_tokenizer_json();
    EXPECT_EQ(tok.encode("a\xFF" "b"), tok.encode("a\uFFFD" "b"));
}

TEST(TokenizerBpe, SharedTokenizerGivesSameIdsFromManyThreads) {
    const auto tok = load_from_vocab_and_merges();  // fresh, so threads race on an empty word cache
    std::vector<int> failures(4, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
            for (int round = 0; round < 3; ++round)
                for (const Case& c : cases())
                    if (tok->encode(c.text) != c.ids) ++failures[size_t(t)];
        });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(failures, std::vector<int>(4, 0));
}

// The README's BPE loop written the obvious way, on strings, as an independent
// check of the tokenizer's heap-based merging on words the fixtures do not cover.
class ReferenceBpe {
public:
    ReferenceBpe() {
        std::ifstream vin(bart_dir() / "vocab.json");
        const auto vocab = nlohmann::json::parse(vin);
        for (auto& [k, v] : vocab.items()) vocab_[k] = v.get<int64_t>();
        std::ifstream min(bart_dir() / "merges.txt");
        std::string line;
        std::getline(min, line);  // "#version: 0.2"
        for (int rank = 0; std::getline(min, line); ++rank) {
            const size_t sp = line.find(' ');
            ranks_[{line.substr(0, sp), line.substr(sp + 1)}] = rank;
        }
    }
    std::vector<int64_t> encode(const std::string& text) const {
        std::vector<int64_t> out;
        for (const std::string& piece : pre_split(text)) {
            std::vector<std::string> w;
            for (unsigned char b : piece) w.push_back(ByteUnicodeMap::instance().encode_byte(b));
            for (;;) {
                int best = INT32_MAX;
                std::pair<std::string, std::string> pair;
                for (size_t i = 0; i + 1 < w.size(); ++i) {
                    auto it = ranks_.find({w[i], w[i + 1]});
                    if (it != ranks_.end() && it->second < best) best = it->second, pair = it->first;
                }
                if (best == INT32_MAX) break;
                std::vector<std::string> merged;
                for (size_t i = 0; i < w.size();) {
                    if (i + 1 < w.size() && w[i] == pair.first && w[i + 1] == pair.second) {
                        merged.push_back(w[i] + w[i + 1]);
                        i += 2;
                    } else {
                        merged.push_back(w[i++]);
                    }
                }
                w.swap(merged);
            }
            for (const auto& s : w) out.push_back(vocab_.at(s));
        }
        return out;
    }

private:
    std::map<std::string, int64_t> vocab_;
    std::map<std::pair<std::string, std::string>, int> ranks_;
};

TEST(TokenizerBpe, MergingMatchesTheReferenceLoopOnRandomText) {
    const ReferenceBpe reference;
    const Tokenizer& tok = from_tokenizer_json();
    std::mt19937 rng(11);
    // Letters, repeated letters (overlapping pairs such as "aaa"), digits, punctuation,
    // spaces and a few multi-byte characters, in words up to 300 characters long.
    const std::vector<std::string> alphabet = {"a", "e", "s", "t", "n", "r", "o", "l", "x", "q", "A", "Z", "1", "0",
                                               "!", "-", ".", " ", "\u00e9", "\u4e2d", "\U0001F600", "\u00a0", "\n"};
    for (int round = 0; round < 300; ++round) {
        std::string text;
        const int len = 1 + int(rng() % (round < 250 ? 40 : 300));
        for (int i = 0; i < len; ++i) text += alphabet[rng() % (round % 2 ? 4 : alphabet.size())];
        SCOPED_TRACE("text: " + text);
        ASSERT_EQ(tok.encode(text, false), reference.encode(text));
    }
}

double milliseconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

TEST(TokenizerBpe, EncodesThe3000WordCaseInMilliseconds) {
    const auto tok = load_from_vocab_and_merges();  // empty word cache: the cold time counts
    const Case& big = cases().back();
    auto start = std::chrono::steady_clock::now();
    const auto ids = tok->encode(big.text);
    const double cold = milliseconds_since(start);
    start = std::chrono::steady_clock::now();
    const auto again = tok->encode(big.text);
    const double warm = milliseconds_since(start);
    EXPECT_EQ(ids, big.ids);
    EXPECT_EQ(again, big.ids);
    std::printf("3000-word case (%zu ids): %.2f ms cold cache, %.2f ms warm cache\n", ids.size(), cold, warm);
    // Generous bounds: the machine is shared; a regression to seconds still fails.
    EXPECT_LT(cold, 250.0);
    EXPECT_LT(warm, 100.0);
}

TEST(TokenizerBpe, Encodes16kTokenDocumentWellUnderASecond) {
    const auto tok = load_from_vocab_and_merges();
    // Made-up words defeat the word cache and produce several tokens each.
    std::mt19937 rng(7);
    std::string doc;
    while (doc.size() < 60000) {
        doc += ' ';
        const int len = 3 + int(rng() % 9);
        for (int i = 0; i < len; ++i) doc += char('a' + rng() % 26);
        if (rng() % 10 == 0) doc += ".\n";
    }
    const auto start = std::chrono::steady_clock::now();
    const auto ids = tok->encode(doc);
    const double ms = milliseconds_since(start);
    std::printf("random-word document: %zu bytes -> %zu ids in %.2f ms\n", doc.size(), ids.size(), ms);
    EXPECT_GT(ids.size(), 16000u);
    EXPECT_EQ(tok->decode(ids, true), doc);
    EXPECT_LT(ms, 500.0);
}

TEST(TokenizerBpe, LongUnbrokenWordIsNotQuadratic) {
    const Tokenizer& tok = from_tokenizer_json();
    std::mt19937 rng(5);
    std::string word;  // one 100k-letter pre-token, as in text extracted without spaces
    for (int i = 0; i < 100000; ++i) word += char('a' + rng() % 26);
    const auto start = std::chrono::steady_clock::now();
    const auto ids = tok.encode(word);
    const double ms = milliseconds_since(start);
    std::printf("one 100000-letter word -> %zu ids in %.2f ms\n", ids.size(), ms);
    EXPECT_EQ(tok.decode(ids, true), word);
    EXPECT_LT(ms, 1000.0);
}

}  // namespace
}  // namespace precis
