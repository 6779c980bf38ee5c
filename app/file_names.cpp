#include "app/file_names.h"

#include <string>

#include "engine/tokenizer/utf8.h"

namespace precis {

namespace {

constexpr char16_t kEscapeBase = 0xDC00;  // byte b (0x80..0xFF) <-> U+DC00 + b

// Length of the valid UTF-8 sequence starting at s[i] (1-4), or 0 when the byte there
// does not start one (stray continuation, overlong form, surrogate, beyond U+10FFFF).
size_t utf8_sequence(std::string_view s, size_t i, char32_t& cp) {
    const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
    const unsigned char c = b(0);
    if (c < 0x80) {
        cp = c;
        return 1;
    }
    size_t n = 0;
    char32_t min = 0;
    if ((c & 0xE0) == 0xC0) n = 2, cp = c & 0x1F, min = 0x80;
    else if ((c & 0xF0) == 0xE0) n = 3, cp = c & 0x0F, min = 0x800;
    else if ((c & 0xF8) == 0xF0) n = 4, cp = c & 0x07, min = 0x10000;
    else return 0;
    if (i + n > s.size()) return 0;
    for (size_t k = 1; k < n; ++k) {
        if ((b(k) & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (b(k) & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return n;
}

void append_utf8(QByteArray& out, char32_t cp) {
    std::string bytes;
    utf8::append(bytes, cp);
    out.append(bytes.data(), qsizetype(bytes.size()));
}

bool is_escaped_byte(char16_t u) { return u >= kEscapeBase + 0x80 && u <= kEscapeBase + 0xFF; }

}  // namespace

QString path_from_native(std::string_view bytes) {
    QString out;
    out.reserve(qsizetype(bytes.size()));
    for (size_t i = 0; i < bytes.size();) {
        char32_t cp = 0;
        if (const size_t n = utf8_sequence(bytes, i, cp)) {
            if (cp < 0x10000) {
                out += QChar(char16_t(cp));
            } else {
                out += QChar(QChar::highSurrogate(cp));
                out += QChar(QChar::lowSurrogate(cp));
            }
            i += n;
        } else {
            out += QChar(char16_t(kEscapeBase + static_cast<unsigned char>(bytes[i])));
            ++i;
        }
    }
    return out;
}

QByteArray path_to_native(const QString& path) {
    QByteArray out;
    out.reserve(path.size());
    const qsizetype n = path.size();
    for (qsizetype i = 0; i < n; ++i) {
        const char16_t u = path.at(i).unicode();
        if (QChar::isHighSurrogate(u) && i + 1 < n && QChar::isLowSurrogate(path.at(i + 1).unicode())) {
            append_utf8(out, QChar::surrogateToUcs4(u, path.at(i + 1).unicode()));
            ++i;
        } else if (is_escaped_byte(u)) {
            out += char(u - kEscapeBase);
        } else if (QChar::isSurrogate(u)) {
            append_utf8(out, 0xFFFD);  // a lone surrogate that no file name produced
        } else {
            append_utf8(out, u);
        }
    }
    return out;
}

QString absolute_clean_path(const QString& path) {
    std::filesystem::path p = std::filesystem::absolute(native_path(path)).lexically_normal();
    std::string s = p.native();
    while (s.size() > 1 && s.back() == '/') s.pop_back();
    return path_from_native(s);
}

QString path_for_display(const QString& path) {
    static const char* hex = "0123456789abcdef";
    QString out;
    out.reserve(path.size());
    for (qsizetype i = 0; i < path.size(); ++i) {
        const char16_t u = path.at(i).unicode();
        int byte = -1;
        if (is_escaped_byte(u)) byte = u - kEscapeBase;
        else if (u < 0x20 || u == 0x7F) byte = u;
        if (byte < 0) {
            out += path.at(i);
            continue;
        }
        out += QLatin1String("\\x");
        out += QLatin1Char(hex[byte >> 4]);
        out += QLatin1Char(hex[byte & 15]);
    }
    return out;
}

}  // namespace precis
