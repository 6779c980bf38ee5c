#pragma once
// The two GPT-2 "byte-level" pieces that surround BPE: the pre-tokenizer regex that
// cuts text into words, and the byte <-> printable-character map that lets BPE
// work on any byte sequence with a vocabulary of printable strings.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace precis {

// GPT-2's bytes_to_unicode(): bytes 0x21-0x7E, 0xA1-0xAC and 0xAE-0xFF map to
// themselves, the other 68 bytes in increasing order to U+0100, U+0101, ...
class ByteUnicodeMap {
public:
    ByteUnicodeMap();
    static const ByteUnicodeMap& instance();

    // UTF-8 encoding of the code point byte `b` maps to.
    const std::string& encode_byte(uint8_t b) const { return byte_to_utf8_[b]; }
    // Maps every byte of `bytes` and concatenates (the vocabulary's form of a piece).
    std::string encode(std::string_view bytes) const;
    // Inverse map applied to a vocabulary string. Characters outside the map (as in
    // "<s>") are kept as their own UTF-8 bytes, like HF's ByteLevel decoder does.
    std::string decode(std::string_view token) const;

private:
    std::array<std::string, 256> byte_to_utf8_;
    std::array<int16_t, 0x144> cp_to_byte_;  // every mapped code point is < U+0144; -1 = none
};

// GPT-2's pre-tokenizer: matches of
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// taken left to right, with Unicode classes (PCRE2 in UTF + UCP mode, JIT compiled).
// The compiled pattern is immutable and shared; each call uses its own match data,
// so one instance may be used from many threads.
class ByteLevelPreTokenizer {
public:
    ByteLevelPreTokenizer();
    ~ByteLevelPreTokenizer();
    ByteLevelPreTokenizer(const ByteLevelPreTokenizer&) = delete;
    ByteLevelPreTokenizer& operator=(const ByteLevelPreTokenizer&) = delete;

    // Appends the matches of `text` (valid UTF-8) to `out`; the views point into `text`.
    void split(std::string_view text, std::vector<std::string_view>& out) const;

private:
    void* code_ = nullptr;  // pcre2_code_8*, kept opaque so that pcre2.h stays out of headers
};

}  // namespace precis
