#include "app/text/hard_wraps.h"

#include <algorithm>
#include <vector>

namespace precis::text {
namespace {

struct Line {
    int begin = 0, end = 0;  // [begin, end) without the line break; trailing spaces excluded
    int indent = 0;          // leading spaces and tabs
    bool blank() const { return end - begin == indent; }
    int width() const { return end - begin; }
};

std::vector<Line> lines_of(const QString& text) {
    std::vector<Line> lines;
    int begin = 0;
    const int n = int(text.size());
    while (begin <= n) {
        int end = int(text.indexOf(QLatin1Char('\n'), begin));
        if (end < 0) end = n;
        Line line{begin, end, 0};
        while (line.end > line.begin && text[line.end - 1].isSpace()) --line.end;  // '\r' too
        while (line.begin + line.indent < line.end && (text[line.begin + line.indent] == QLatin1Char(' ') ||
                                                       text[line.begin + line.indent] == QLatin1Char('\t')))
            ++line.indent;
        if (line.blank()) line.end = line.begin + line.indent;
        lines.push_back(line);
        begin = end + 1;
    }
    return lines;
}

// A line that starts something of its own: a list item or a numbered line.
bool starts_item(const QString& text, const Line& line) {
    const int at = line.begin + line.indent;
    if (at >= line.end) return false;
    const QChar c = text[at];
    if (c == QChar(0x2022) || ((c == QLatin1Char('-') || c == QLatin1Char('*') || c == QLatin1Char('+')) &&
                               at + 1 < line.end && text[at + 1] == QLatin1Char(' ')))
        return true;
    int digits = at;
    while (digits < line.end && text[digits].isDigit()) ++digits;
    return digits > at && digits - at <= 3 && digits + 1 < line.end &&
           (text[digits] == QLatin1Char('.') || text[digits] == QLatin1Char(')')) && text[digits + 1] == QLatin1Char(' ');
}

// Verse starts every line with a capital letter; wrapped prose only now and then.
bool starts_capitalized(const QString& text, const Line& line) {
    for (int at = line.begin + line.indent; at < line.end; ++at) {
        const QChar c = text[at];
        if (c.isLetter()) return c.isUpper();
        if (c.isDigit()) return false;  // opening quotes and brackets are passed over
    }
    return false;
}

// Wrapped lines are at least this share of the wrap width: a shorter line ended for a reason.
constexpr double kFullLine = 0.72;
// Lines as wide as this or wider are not wrapped by hand (a paragraph per line).
constexpr int kWidestWrap = 132;
// The narrowest margin taken for hand wrapping (narrower columns are tables or verse).
constexpr int kNarrowestWrap = 40;

}  // namespace

int hard_wrap_width(const QString& text) {
    std::vector<int> widths;
    for (const Line& l : lines_of(text))
        if (!l.blank()) widths.push_back(l.width());
    if (widths.size() < 8) return 0;  // too few lines to tell a margin from chance
    std::sort(widths.begin(), widths.end());
    // The margin: the width that 95 % of the lines stay within (a few longer lines, a URL or
    // a table row, do not move it).
    const int margin = widths[size_t(double(widths.size() - 1) * 0.95)];
    if (margin < kNarrowestWrap || margin > kWidestWrap) return 0;
    // Wrapped text fills most lines up to near the margin; a text of short lines (verse,
    // code, a list) does not.
    const auto full = std::count_if(widths.begin(), widths.end(), [&](int w) { return w >= kFullLine * margin && w <= margin + 8; });
    return double(full) >= 0.5 * double(widths.size()) ? margin : 0;
}

QString join_hard_wrapped_lines(const QString& text) {
    const int margin = hard_wrap_width(text);
    if (margin == 0) return text;
    const std::vector<Line> lines = lines_of(text);
    const auto full = [&](const Line& l) { return l.width() >= kFullLine * margin; };
    QString out = text;
    // A paragraph (lines between blank ones) is cut at list items; a part is joined only
    // when every line but its last is full and not every line starts with a capital, so
    // verse and addresses, whose lines end where they mean to, keep all their breaks.
    size_t i = 0;
    while (i < lines.size()) {
        if (lines[i].blank()) {
            ++i;
            continue;
        }
        size_t end = i + 1;
        while (end < lines.size() && !lines[end].blank() && !starts_item(text, lines[end])) ++end;
        bool wrapped = true, verse = end - i > 1;
        for (size_t k = i; k + 1 < end && wrapped; ++k) wrapped = full(lines[k]);
        for (size_t k = i + 1; k < end && verse; ++k) verse = starts_capitalized(text, lines[k]);
        wrapped = wrapped && !verse;
        if (wrapped)
            for (size_t k = i; k + 1 < end; ++k)
                for (int c = lines[k].end; c < lines[k + 1].begin; ++c) out[c] = QLatin1Char(' ');  // '\r' included
        i = end;
    }
    return out;
}

}  // namespace precis::text
