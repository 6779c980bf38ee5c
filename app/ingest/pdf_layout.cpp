#include "app/ingest/pdf_layout.h"

#include <QHash>
#include <QSet>
#include <algorithm>
#include <cmath>

namespace precis {
namespace {

constexpr int kEdgeLines = 2;  // lines at the top and at the bottom of a page checked for headers/footers

// Key under which running headers/footers are compared: case and digits ignored, so
// "Page 3 of 10" and "Page 4 of 10" are the same line.
QString edge_key(const QString& line) {
    QString key;
    key.reserve(line.size());
    bool in_digits = false;
    bool in_space = false;
    for (QChar c : line.trimmed()) {
        if (c.isDigit()) {
            if (!in_digits) key += QLatin1Char('#');
            in_digits = true;
            in_space = false;
            continue;
        }
        in_digits = false;
        if (c.isSpace()) {
            if (!in_space) key += QLatin1Char(' ');
            in_space = true;
            continue;
        }
        in_space = false;
        key += c.toLower();
    }
    return key;
}

bool is_hyphen(QChar c) { return c == QLatin1Char('-') || c == QChar(0x2010); }

bool ends_sentence(const QString& s) {
    int i = int(s.size()) - 1;
    static const QString closers = QStringLiteral(")]\"'\u201D\u2019\u00BB");
    while (i >= 0 && closers.contains(s[i])) --i;
    if (i < 0) return false;
    static const QString stops = QStringLiteral(".!?:;\u2026");
    return stops.contains(s[i]);
}

bool starts_lowercase(const QString& s) { return !s.isEmpty() && s[0].isLower(); }

bool starts_list_item(const QString& s) {
    if (s.size() < 2) return false;
    static const QString bullets = QStringLiteral("\u2022\u25E6\u25AA\u2023\u2013\u2014-*\u00B7");
    return bullets.contains(s[0]) && s[1].isSpace();
}

bool font_size_changes(double ha, double hb) { return std::abs(ha - hb) > 0.2 * std::max(ha, hb); }

// Line `a` ends early on purpose: it does not end in a sentence's punctuation or a comma, the
// next line starts with a capital, and that line's first word would have fitted, with
// `slack` to spare, in the room `a` leaves before `right` (the paragraph's right edge), so
// it was not wrapped for want of room. "END" closing a code example before "The notation
// to access..." is such a line; "...the second paragraph" before "which also wraps" is not
// (lowercase), nor a line cut before a long word such as an identifier or a URL, nor a
// bullet that Poppler put on a line of its own.
bool ends_before_room(const PdfLine& a, const PdfLine& b, double right, double slack) {
    const QString next = b.text.trimmed(), line = a.text.trimmed();
    if (next.isEmpty() || !next[0].isUpper() || ends_sentence(line) || line.endsWith(u',')) return false;
    if (std::none_of(line.begin(), line.end(), [](QChar c) { return c.isLetterOrNumber(); }))
        return false;  // a bullet standing alone: its item follows
    qsizetype word = next.indexOf(u' ');
    if (word < 0) word = next.size();
    const double word_width = b.box.width() * double(word + 1) / double(next.size());  // a share of the line
    return right - a.box.right() > word_width + slack;
}

QString clean_line(const QString& raw) {
    QString s = raw;
    // Latin ligatures that some fonts map to single code points.
    static const std::pair<char16_t, const char*> ligatures[] = {
        {0xFB00, "ff"}, {0xFB01, "fi"}, {0xFB02, "fl"}, {0xFB03, "ffi"}, {0xFB04, "ffl"}, {0xFB05, "st"}, {0xFB06, "st"}};
    for (const auto& [cp, rep] : ligatures) s.replace(QChar(cp), QLatin1String(rep));
    return s.simplified();
}

// In place, so that joining page after page stays linear in the document length.
void append_wrapped(QString& acc, const QString& next) {
    if (next.isEmpty()) return;
    if (acc.isEmpty()) {
        acc = next;
        return;
    }
    const QChar last = acc.back();
    if (last == QChar(0x00AD)) {  // soft hyphen: always a break hyphen
        acc.chop(1);
    } else if (is_hyphen(last) && acc.size() >= 2 && acc[acc.size() - 2].isLetter() && starts_lowercase(next)) {
        acc.chop(1);
    } else {
        acc += QLatin1Char(' ');
    }
    acc += next;
}

double median(QVector<double> v) {
    if (v.isEmpty()) return 0.0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// Paragraphs of one page (header/footer lines already removed).
QStringList page_paragraphs(const QVector<PdfLine>& lines) {
    QStringList paragraphs;
    if (lines.isEmpty()) return paragraphs;

    QVector<double> heights;
    double left = 1e9, right = -1e9;
    for (const PdfLine& l : lines) {
        heights.push_back(l.box.height());
        left = std::min(left, l.box.left());
        right = std::max(right, l.box.right());
    }
    const double h = std::max(1.0, median(heights));
    // The usual distance from one line to the next, as a multiple of the lines' height: the
    // leading grows with the font, so a page that mixes body text with smaller code or table
    // lines (most of its lines, maybe) still measures each pair of lines by its own size.
    QVector<double> spacings;
    for (int i = 1; i < lines.size(); ++i) {
        const double ha = lines[i - 1].box.height(), hb = lines[i].box.height();
        const double hl = std::min(ha, hb);  // not raised by a bullet or a superscript
        const double dy = lines[i].box.top() - lines[i - 1].box.top();
        if (hl > 0 && !font_size_changes(ha, hb) && dy > 0.5 * hl && dy < 3.0 * hl) spacings.push_back(dy / hl);
    }
    double spacing = median(spacings);
    if (spacing <= 0 || spacing > 1.6) spacing = 1.25;  // mostly gaps between paragraphs: assume plain leading
    const double width = right - left;

    QString current;
    double current_right = 0;  // the right edge of the current paragraph's widest line
    for (int i = 0; i < lines.size(); ++i) {
        const QString text = clean_line(lines[i].text);
        if (text.isEmpty()) continue;
        if (current.isEmpty()) {
            current = text;
            current_right = lines[i].box.right();
            continue;
        }
        const PdfLine& a = lines[i - 1];
        const PdfLine& b = lines[i];
        const double dy = b.box.top() - a.box.top();
        const double ha = a.box.height(), hb = b.box.height();
        bool hard_break = false;
        if (dy > spacing * std::min(ha, hb) * 1.4 + 0.5) hard_break = true;                  // vertical gap
        if (font_size_changes(ha, hb)) hard_break = true;                                    // font size change
        if (width > 4 * h && ends_sentence(a.text) && a.box.right() < right - 0.2 * width)   // short last line
            hard_break = true;
        if (width > 4 * h && ends_before_room(a, b, std::max(current_right, b.box.right()), 0.2 * width))
            hard_break = true;  // a heading, a label or a code line before a new paragraph
        if (b.box.left() - left > 1.5 * h && a.box.left() - left < 0.5 * h) hard_break = true;  // first-line indent
        if (starts_list_item(text)) hard_break = true;
        if (dy < -0.5 * h && (ends_sentence(current) || !starts_lowercase(text)))          // next column
            hard_break = true;
        if (hard_break) {
            paragraphs.push_back(current);
            current = text;
            current_right = b.box.right();
        } else {
            append_wrapped(current, text);
            current_right = std::max(current_right, b.box.right());
        }
    }
    if (!current.isEmpty()) paragraphs.push_back(current);
    return paragraphs;
}

}  // namespace

QString join_wrapped_lines(const QString& first, const QString& second) {
    QString out = first;
    append_wrapped(out, second);
    return out;
}

PdfText assemble_pdf_text(const QVector<PdfPageLines>& pages) {
    PdfText out;

    // 1. Running headers and footers: lines among the first/last few of a page whose
    //    key repeats at the same edge on at least half of the pages that have text.
    int pages_with_text = 0;
    QHash<QString, int> top_count, bottom_count;
    for (const PdfPageLines& p : pages) {
        if (p.lines.isEmpty()) continue;
        ++pages_with_text;
        QSet<QString> top, bottom;
        const int n = int(p.lines.size());
        for (int i = 0; i < std::min(kEdgeLines, n); ++i) top.insert(edge_key(p.lines[i].text));
        for (int i = std::max(0, n - kEdgeLines); i < n; ++i) bottom.insert(edge_key(p.lines[i].text));
        for (const QString& k : top) ++top_count[k];
        for (const QString& k : bottom) ++bottom_count[k];
    }
    const int threshold = std::max(2, (pages_with_text + 1) / 2);
    auto repeated = [&](const QHash<QString, int>& counts, const QString& key) {
        return pages_with_text >= 2 && !key.isEmpty() && counts.value(key) >= threshold;
    };

    QString prev_last_line;  // last body line of the previous page with text
    for (int pi = 0; pi < pages.size(); ++pi) {
        const PdfPageLines& p = pages[pi];
        QVector<PdfLine> body;
        const int n = int(p.lines.size());
        for (int i = 0; i < n; ++i) {
            const QString key = edge_key(p.lines[i].text);
            const bool at_top = i < kEdgeLines, at_bottom = i >= n - kEdgeLines;
            if ((at_top && repeated(top_count, key)) || (at_bottom && repeated(bottom_count, key))) {
                ++out.header_footer_lines_removed;
                continue;
            }
            body.push_back(p.lines[i]);
        }
        if (n == 0) out.pages_without_text.push_back(pi + 1);

        const QStringList paragraphs = page_paragraphs(body);
        if (paragraphs.isEmpty()) {
            out.page_offsets.push_back(int(out.text.size()));
            continue;
        }
        QString page_text = paragraphs.join(QStringLiteral("\n\n"));
        if (out.text.isEmpty()) {
            out.page_offsets.push_back(0);
            out.text = page_text;
        } else if (!ends_sentence(prev_last_line) && starts_lowercase(page_text)) {
            // A paragraph running across the page break.
            append_wrapped(out.text, page_text);
            out.page_offsets.push_back(int(out.text.size() - page_text.size()));
        } else {
            out.text += QStringLiteral("\n\n");
            out.page_offsets.push_back(int(out.text.size()));
            out.text += page_text;
        }
        prev_last_line = clean_line(body.back().text);
    }
    return out;
}

}  // namespace precis
