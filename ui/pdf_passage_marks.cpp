#include "ui/pdf_passage_marks.h"

#include <QRegularExpression>

#include <algorithm>

namespace precis::ui {

namespace {

// Words of the passage that must agree before a place on the page counts as its start:
// enough that a common word ("the") elsewhere on the page does not win.
constexpr int kAnchorWords = 4;
// A continuation may start after this many page words (a running header, a page number).
constexpr int kContinuationSlack = 40;
// Inside a passage, page words the ingested text lacks (a footnote mark, a page number
// in the margin) are skipped, but only a few in a row.
constexpr int kSkippableWords = 2;

QString normalized(const QString& word) {
    QString out;
    out.reserve(word.size());
    // NFKC: fonts set "fl", "fi", "ffi" as single ligature glyphs, and Poppler reports them
    // as U+FB01..U+FB04; the ingested text may hold either form.
    for (const QChar c : word.normalized(QString::NormalizationForm_KC))
        if (c.isLetterOrNumber()) out += c.toLower();
    return out;
}

struct NormalizedPage {
    QStringList words;
    QVector<QRectF> boxes;
};

NormalizedPage normalize(const QVector<PageWord>& page) {
    NormalizedPage n;
    for (const PageWord& w : page) {
        const QString t = normalized(w.text);
        if (t.isEmpty()) continue;  // a dash or bullet alone: invisible to the passage too
        n.words << t;
        n.boxes << w.box;
    }
    return n;
}

// How many page words starting at `at` spell `word`: one, or several when a word was
// hyphenated across a line break ("exam-" "ple") and ingestion joined it. 0: no match.
int consume(const QStringList& page, int at, const QString& word) {
    QString built;
    for (int i = at; i < page.size() && built.size() < word.size(); ++i) {
        built += page[i];
        if (!word.startsWith(built)) return 0;
        if (built == word) return i - at + 1;
    }
    return 0;
}

// Page word indices matched by words[from...] when the match starts at page word `at`,
// stopping at the first word that cannot be found within kSkippableWords.
QVector<int> follow(const QStringList& page, int at, const QStringList& words, int from, int* matched) {
    QVector<int> used;
    int p = at;
    int w = from;
    for (; w < words.size() && p < page.size(); ++w) {
        int taken = 0, skipped = 0;
        for (; skipped <= kSkippableWords && p + skipped < page.size(); ++skipped) {
            taken = consume(page, p + skipped, words[w]);
            if (taken > 0) break;
            if (w == from) break;  // the first word must be where the match starts
        }
        if (taken == 0) break;
        p += skipped;
        for (int i = 0; i < taken; ++i) used << p + i;
        p += taken;
    }
    *matched = w - from;
    return used;
}

// Merges the boxes of words on one printed line: consecutive boxes whose vertical extents
// overlap by half the smaller height.
QVector<QRectF> line_rectangles(const QVector<QRectF>& boxes) {
    QVector<QRectF> lines;
    for (const QRectF& b : boxes) {
        if (!lines.isEmpty()) {
            QRectF& last = lines.last();
            const double overlap = std::min(last.bottom(), b.bottom()) - std::max(last.top(), b.top());
            if (overlap >= 0.5 * std::min(last.height(), b.height()) && b.left() >= last.left()) {
                last = last.united(b);
                continue;
            }
        }
        lines << b;
    }
    return lines;
}

}  // namespace

QStringList passage_words(const QString& passage) {
    QStringList out;
    for (const QString& w : passage.split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts)) {
        const QString t = normalized(w);
        if (!t.isEmpty()) out << t;
    }
    return out;
}

PassageMarks mark_passage(const QVector<PageWord>& page_words, const QStringList& words, int from, const QStringList& before) {
    PassageMarks marks;
    if (from < 0 || from >= words.size()) return marks;
    const NormalizedPage page = normalize(page_words);
    const int remaining = int(words.size()) - from;
    const int anchor = std::min(kAnchorWords, remaining);
    const int last_start = from == 0 ? int(page.words.size()) : std::min<int>(kContinuationSlack, page.words.size());
    // How many of the words before the passage also stand just before page word `start`.
    const auto context_agreeing = [&](int start) {
        int n = 0;
        for (int i = 1; i <= before.size() && start - i >= 0; ++i, ++n)
            if (page.words[start - i] != before[before.size() - i]) break;
        return n;
    };
    // Every place is tried, not only the first: a heading that repeats the passage's opening
    // words would otherwise take the highlight from the sentence itself.
    QVector<int> best_used;
    int best_matched = 0, best_context = -1;
    for (int start = 0; start < last_start; ++start) {
        int matched = 0;
        const QVector<int> used = follow(page.words, start, words, from, &matched);
        // Near the bottom of a page, fewer than `anchor` words may be left: take what is
        // there if it reaches the page's end (the passage goes on overleaf).
        const bool runs_off_page = !used.isEmpty() && used.last() == page.words.size() - 1;
        if (matched < anchor && !(runs_off_page && matched >= std::min(2, remaining))) continue;
        if (matched < best_matched) continue;
        const int context = context_agreeing(start);
        if (matched == best_matched && context <= best_context) continue;
        best_used = used;
        best_matched = matched;
        best_context = context;
        if (matched == remaining && context == before.size()) break;  // nothing can beat it
    }
    if (best_used.isEmpty()) return marks;
    QVector<QRectF> boxes;
    for (int i : best_used) boxes << page.boxes[i];
    marks.lines = line_rectangles(boxes);
    marks.matched = best_matched;
    return marks;
}

}  // namespace precis::ui
