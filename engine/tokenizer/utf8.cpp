#include "engine/tokenizer/utf8.h"

namespace precis::utf8 {

void append(std::string& out, char32_t cp) {
    if (cp < 0x80) {
        out += char(cp);
    } else if (cp < 0x800) {
        out += char(0xC0 | (cp >> 6));
        out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += char(0xE0 | (cp >> 12));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    } else {
        out += char(0xF0 | (cp >> 18));
        out += char(0x80 | ((cp >> 12) & 0x3F));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    }
}

namespace {

// Length of the well-formed sequence starting at s[i], or 0 if it is ill-formed.
// In that case `*maximal` is set to the length of the maximal subpart (>= 1): the
// longest prefix that could still have started a valid sequence. Table 3-7 of the
// Unicode standard gives the allowed range of the second byte per lead byte.
size_t sequence_length(std::string_view s, size_t i, size_t* maximal) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    *maximal = 1;
    if (b0 < 0x80) return 1;
    size_t need;
    unsigned char lo = 0x80, hi = 0xBF;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
        need = 1;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
        need = 2;
        if (b0 == 0xE0) lo = 0xA0;
        if (b0 == 0xED) hi = 0x9F;  // excludes the surrogates U+D800..U+DFFF
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        need = 3;
        if (b0 == 0xF0) lo = 0x90;
        if (b0 == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
    } else {
        return 0;  // stray continuation byte, C0, C1 or F5..FF
    }
    for (size_t k = 1; k <= need; ++k) {
        if (i + k >= s.size()) return 0;
        const auto b = static_cast<unsigned char>(s[i + k]);
        const bool ok = (k == 1) ? (b >= lo && b <= hi) : (b >= 0x80 && b <= 0xBF);
        if (!ok) return 0;
        *maximal = k + 1;
    }
    return need + 1;
}

}  // namespace

std::string replace_invalid(std::string_view bytes) {
    std::string out;
    out.reserve(bytes.size());
    size_t i = 0;
    while (i < bytes.size()) {
        size_t maximal;
        const size_t n = sequence_length(bytes, i, &maximal);
        if (n) {
            out.append(bytes.substr(i, n));
            i += n;
        } else {
            out += "\xEF\xBF\xBD";  // U+FFFD
            i += maximal;
        }
    }
    return out;
}

bool is_valid(std::string_view bytes) {
    size_t i = 0;
    while (i < bytes.size()) {
        size_t maximal;
        const size_t n = sequence_length(bytes, i, &maximal);
        if (!n) return false;
        i += n;
    }
    return true;
}

bool is_white_space(char32_t cp) {
    if (cp <= 0x7F) return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20;
    switch (cp) {
        case 0x85: case 0xA0: case 0x1680: case 0x2028: case 0x2029:
        case 0x202F: case 0x205F: case 0x3000:
            return true;
        default:
            return cp >= 0x2000 && cp <= 0x200A;
    }
}

namespace {

char32_t decode_at(std::string_view s, size_t i, size_t n) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    if (n == 1) return b0;
    char32_t cp = b0 & (0x7F >> n);
    for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    return cp;
}

}  // namespace

size_t trailing_white_space(std::string_view s) {
    size_t end = s.size();
    while (end > 0) {
        size_t start = end - 1;
        while (start > 0 && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80 && end - start < 4) --start;
        if (!is_white_space(decode_at(s, start, end - start))) break;
        end = start;
    }
    return s.size() - end;
}

size_t leading_white_space(std::string_view s) {
    size_t i = 0;
    while (i < s.size()) {
        size_t maximal;
        const size_t n = sequence_length(s, i, &maximal);
        if (!n || !is_white_space(decode_at(s, i, n))) break;
        i += n;
    }
    return i;
}

}  // namespace precis::utf8
