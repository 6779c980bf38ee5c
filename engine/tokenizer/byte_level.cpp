#include "engine/tokenizer/byte_level.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>
#include <memory>

#include "engine/core/error.h"
#include "engine/tokenizer/utf8.h"

namespace precis {

ByteUnicodeMap::ByteUnicodeMap() {
    cp_to_byte_.fill(-1);
    char32_t next = 0x100;
    for (int b = 0; b < 256; ++b) {
        const bool printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
        const char32_t cp = printable ? char32_t(b) : next++;
        utf8::append(byte_to_utf8_[b], cp);
        cp_to_byte_[cp] = int16_t(b);
    }
}

const ByteUnicodeMap& ByteUnicodeMap::instance() {
    static const ByteUnicodeMap map;
    return map;
}

std::string ByteUnicodeMap::encode(std::string_view bytes) const {
    std::string out;
    out.reserve(bytes.size() * 2);
    for (unsigned char b : bytes) out += byte_to_utf8_[b];
    return out;
}

std::string ByteUnicodeMap::decode(std::string_view token) const {
    std::string out;
    out.reserve(token.size());
    size_t i = 0;
    while (i < token.size()) {
        const auto b0 = static_cast<unsigned char>(token[i]);
        // Mapped code points are at most U+0143, i.e. one or two UTF-8 bytes.
        char32_t cp = b0;
        size_t n = 1;
        if ((b0 & 0xE0) == 0xC0 && i + 1 < token.size()) {
            cp = (char32_t(b0 & 0x1F) << 6) | (static_cast<unsigned char>(token[i + 1]) & 0x3F);
            n = 2;
        } else if (b0 >= 0x80) {
            // Longer sequence: never a mapped character; copy the whole character.
            n = (b0 >= 0xF0) ? 4 : (b0 >= 0xE0) ? 3 : 1;
            n = std::min(n, token.size() - i);
            out.append(token.substr(i, n));
            i += n;
            continue;
        }
        if (cp < cp_to_byte_.size() && cp_to_byte_[cp] >= 0) {
            out += char(cp_to_byte_[cp]);
        } else {
            out.append(token.substr(i, n));
        }
        i += n;
    }
    return out;
}

namespace {

// \s, \S are spelled out as Unicode White_Space rather than left to PCRE2: with UCP,
// PCRE2's \s also matches U+180E (it keeps it in \h), while the reference (Python's
// `regex` module) follows White_Space, which dropped U+180E in Unicode 6.3.
// White_Space = \p{Z} plus TAB..CR and U+0085. NBSP (Zs) is in; U+200B (Cf) is not.
constexpr const char* kPattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\t-\r\x{85}\p{Z}\p{L}\p{N}]+)"
    R"(|[\t-\r\x{85}\p{Z}]+(?![^\t-\r\x{85}\p{Z}])|[\t-\r\x{85}\p{Z}]+)";

pcre2_code* as_code(void* p) { return static_cast<pcre2_code*>(p); }

}  // namespace

ByteLevelPreTokenizer::ByteLevelPreTokenizer() {
    int err = 0;
    PCRE2_SIZE offset = 0;
    pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(kPattern), PCRE2_ZERO_TERMINATED,
                                     PCRE2_UTF | PCRE2_UCP, &err, &offset, nullptr);
    if (!code) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(err, msg, sizeof msg);
        throw Error("the byte-level pre-tokenizer regex does not compile at offset " + std::to_string(offset) +
                    ": " + reinterpret_cast<const char*>(msg));
    }
    // JIT is several times faster; without JIT support the interpreter still works.
    pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);
    code_ = code;
}

ByteLevelPreTokenizer::~ByteLevelPreTokenizer() { pcre2_code_free(as_code(code_)); }

void ByteLevelPreTokenizer::split(std::string_view text, std::vector<std::string_view>& out) const {
    if (text.empty()) return;
    std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> md(
        pcre2_match_data_create_from_pattern(as_code(code_), nullptr), &pcre2_match_data_free);
    const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
    size_t pos = 0;
    while (pos < text.size()) {
        // The caller guarantees valid UTF-8 (checked once per text), so skip PCRE2's
        // per-call check: it would rescan the whole remainder each time.
        const int rc = pcre2_match(as_code(code_), subject, text.size(), pos, PCRE2_NO_UTF_CHECK, md.get(), nullptr);
        if (rc == PCRE2_ERROR_NOMATCH) break;  // cannot happen: the alternatives cover every character
        if (rc < 0) {
            PCRE2_UCHAR msg[256];
            pcre2_get_error_message(rc, msg, sizeof msg);
            throw Error(std::string("the byte-level pre-tokenizer failed: ") + reinterpret_cast<const char*>(msg));
        }
        const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md.get());
        if (ov[1] == ov[0]) {  // empty match: not possible with this pattern, but never loop forever
            ++pos;
            continue;
        }
        out.emplace_back(text.substr(ov[0], ov[1] - ov[0]));
        pos = ov[1];
    }
}

}  // namespace precis
