#include "app/text/sentence_segmenter.h"

#include "app/text/icu_text.h"
#include "app/text/stop_words.h"

#include <QRegularExpression>

#include <unicode/brkiter.h>
#include <unicode/filteredbrk.h>
#include <unicode/locid.h>
#include <unicode/utext.h>

#include <algorithm>
#include <memory>

namespace precis::text {

namespace {

// A line shorter than this share of its block's longest line ended early on purpose.
constexpr double kShortLineShare = 0.6;

bool is_blank(QStringView s) {
    return std::all_of(s.begin(), s.end(), [](QChar c) { return c.isSpace(); });
}

// "- item", "* item", "• item", "1. item", "12) item", "a) item", "(iv) item".
bool starts_list_item(QStringView line) {
    line = line.trimmed();
    if (line.size() < 2) return false;
    static const QString bullets = QStringLiteral("-*\u2022\u2023\u25E6\u00B7\u2013\u2014\u25AA\u25CF");
    if (bullets.contains(line[0]) && line[1].isSpace()) return true;
    qsizetype i = 0;
    const bool parenthesized = line[0] == u'(';
    if (parenthesized) ++i;
    const qsizetype first = i;
    while (i < line.size() && i - first < 4 && line[i].isLetterOrNumber()) ++i;
    if (i == first || i >= line.size() - 1) return false;
    const QStringView label = line.mid(first, i - first);
    const bool numeric = std::all_of(label.begin(), label.end(), [](QChar c) { return c.isDigit(); });
    const bool letter = label.size() == 1 && label[0].isLetter();
    const bool roman = std::all_of(label.begin(), label.end(), [](QChar c) { return QStringLiteral("ivxlIVXL").contains(c); });
    if (!numeric && !letter && !roman) return false;
    const QChar close = line[i];
    if (parenthesized ? close != u')' : (close != u'.' && close != u')')) return false;
    // "1." followed by a space starts an item; "a." is too ambiguous ("a. m."), so letters need ')'.
    if (!parenthesized && close == u'.' && !numeric) return false;
    return line[i + 1].isSpace();
}

// A row of a table or a table of contents ("I.       How the Black Sheep came forth",
// "Frost Dynevor     b. 1826       b. 1827"): a gap of three spaces or more inside the line.
// Prose puts at most two between sentences.
bool is_column_row(QStringView line) {
    line = line.trimmed();
    int spaces = 0;
    for (QChar c : line) {
        spaces = c == u' ' ? spaces + 1 : 0;
        if (spaces >= 3) return true;
    }
    return false;
}

// The line goes on on the next one although it ends early: it does not end in a sentence's
// (or a clause's) closing punctuation, and the next line starts with a lowercase letter
// ("...the list of\nliteral globs is sorted").
bool runs_on(QStringView line, QStringView next_line) {
    line = line.trimmed();
    next_line = next_line.trimmed();
    if (line.isEmpty() || next_line.isEmpty() || !next_line[0].isLower()) return false;
    static const QString closers = QStringLiteral(")]\"'\u201D\u2019\u00BB");
    static const QString stops = QStringLiteral(".!?:;\u2026");
    qsizetype i = line.size() - 1;
    while (i >= 0 && closers.contains(line[i])) --i;
    return i >= 0 && !stops.contains(line[i]);
}

struct LineSpan {
    qsizetype begin, end;  // [begin, end) without the '\n'
};

std::vector<LineSpan> split_lines(const QString& text) {
    std::vector<LineSpan> lines;
    qsizetype start = 0;
    for (qsizetype i = 0; i <= text.size(); ++i)
        if (i == text.size() || text[i] == u'\n') {
            lines.push_back({start, i});
            start = i + 1;
        }
    return lines;
}

// Abbreviations after which a sentence does not end, on top of ICU's English list (which
// lacks most titles): "Dr. Smith", "Gen. Lee", "Fig. 3", "Acme Corp. said".
constexpr const char* kAbbreviations[] = {
    "Dr.",   "Drs.",  "Prof.", "Gen.",  "Gov.",  "Sen.",   "Rep.",  "Rev.",   "St.",   "Sgt.",  "Lt.",   "Col.",
    "Capt.", "Cmdr.", "Adm.",  "Maj.",  "Hon.",  "Pres.",  "Supt.", "Jr.",    "Sr.",   "Messrs.", "Msgr.", "Fr.",
    "Mt.",   "Ft.",   "Ave.",  "Blvd.", "Rd.",   "Inc.",   "Corp.", "Co.",    "Ltd.",  "Bros.",
    "Vol.",  "Vols.", "pp.",   "Fig.",  "Figs.", "Eq.",    "Eqs.",  "Ch.",    "Sec.",  "Art.",  "cf.",   "vs.",
    "approx.", "ca.", "Jan.",  "Feb.",  "Mar.",  "Apr.",   "Jun.",  "Jul.",   "Aug.",  "Sep.",  "Sept.", "Oct.",
    "Nov.",  "Dec.",
};

// Number signs: an abbreviation only before a number ("No. 5", "Nos. 3 and 4"), else the
// answer "No." that ends a sentence.
constexpr const char* kNumberSigns[] = {"No.", "Nos.", "no.", "nos."};

std::unique_ptr<icu::BreakIterator> make_sentence_iterator() {
    UErrorCode status = U_ZERO_ERROR;
    std::unique_ptr<icu::FilteredBreakIteratorBuilder> builder(
        icu::FilteredBreakIteratorBuilder::createInstance(icu::Locale::getEnglish(), status));
    throw_if_icu_failed(status, "load the English abbreviations");
    for (const char* a : kAbbreviations) builder->suppressBreakAfter(icu::UnicodeString(a, -1, US_INV), status);
    throw_if_icu_failed(status, "add abbreviations");
    // "No." and "Nos." end a sentence ("No. Perhaps in an hour...") unless a number
    // follows ("No. 5"): that case is joined again after ICU (ends_with_number_sign).
    for (const char* a : kNumberSigns) {
        UErrorCode unsuppressed = U_ZERO_ERROR;  // not an error when ICU's list lacks it
        builder->unsuppressBreakAfter(icu::UnicodeString(a, -1, US_INV), unsuppressed);
    }
    icu::BreakIterator* base = icu::BreakIterator::createSentenceInstance(icu::Locale::getEnglish(), status);
    throw_if_icu_failed(status, "create a sentence break iterator");
    std::unique_ptr<icu::BreakIterator> filtered(builder->wrapIteratorWithFilter(base, status));
    throw_if_icu_failed(status, "filter the sentence breaks");
    return filtered;
}

// ICU's filter does not hold for initialisms ("the U.S. Congress"): a sentence that ends in
// one ("U.S.", "U.K.", "D.C.") continues when the next word is capitalized and is not a
// function word that opens sentences ("The", "But", "In", ...).
bool ends_with_initialism(QStringView s) {
    qsizetype i = s.size();
    int pairs = 0;
    while (i >= 2 && s[i - 1] == u'.' && s[i - 2].isUpper()) {
        i -= 2;
        ++pairs;
    }
    return pairs >= 2 && (i == 0 || s[i - 1].isSpace() || s[i - 1] == u'(');
}

// A personal initial ends the sentence ICU found: "By D." before "H. Lawrence", "George W."
// before "Bush". One capital letter after a space (or at the start) and a full stop.
bool ends_with_personal_initial(QStringView s) {
    const qsizetype n = s.size();
    return n >= 2 && s[n - 1] == u'.' && s[n - 2].isUpper() && (n == 2 || s[n - 3].isSpace() || s[n - 3] == u'(');
}

bool ends_with_number_sign(QStringView s) {
    for (const char* sign : kNumberSigns) {
        const QString a = QString::fromLatin1(sign);
        if (s.endsWith(a) && (s.size() == a.size() || !s[s.size() - a.size() - 1].isLetter())) return true;
    }
    return false;
}

bool starts_with_number(QStringView next) { return !next.isEmpty() && (next[0].isDigit() || next[0] == u'#'); }

bool continues_after_initialism(QStringView next) {
    if (next.isEmpty() || !next[0].isUpper()) return false;
    qsizetype end = 0;
    while (end < next.size() && next[end].isLetter()) ++end;
    return !is_stop_word(next.left(end).toString().toLower().toStdString());
}

// A word in capitals ("TOWN", "CONTENTS", "SELTZER,") or a number ("1921", "IV.") that may
// belong to a title or heading.
enum class WordKind { Capitals, Number, Other };

WordKind word_kind(QStringView word) {
    int letters = 0, upper = 0, digits = 0;
    for (QChar c : word) {
        if (c.isLetter()) {
            ++letters;
            upper += c.isUpper();
        } else if (c.isDigit()) {
            ++digits;
        }
    }
    if (letters >= 2 && upper == letters && digits == 0) return WordKind::Capitals;
    if (digits > 0 && letters == 0) return WordKind::Number;
    return WordKind::Other;
}

// "This", "Baby", "You": how an ordinary sentence or a title in mixed case opens.
bool opens_in_mixed_case(QStringView word) {
    qsizetype i = 0;
    while (i < word.size() && !word[i].isLetter()) ++i;
    if (i + 1 >= word.size() || !word[i].isUpper()) return false;
    return std::any_of(word.begin() + i + 1, word.end(), [](QChar c) { return c.isLower(); });
}

// Where a heading in capitals runs into the text around it without a line break: a PDF
// page whose title sits close above the first paragraph comes out as "TOWN GEOLOGY PREFACE
// This little book...", a title page as "By D. H. Lawrence NEW YORK THOMAS SELTZER 1921
// CONTENTS Baby Tortoise ...". A run of words in capitals (two or more, or one of four
// letters or more that opens the sentence) followed by a word in mixed case is cut off
// on both sides. The run must not end in a comma: "LONDON, England (CNN) --" is a dateline
// that stays with its sentence. Returns the cut positions, ascending, inside (begin, end).
std::vector<qsizetype> heading_run_cuts(QStringView p, qsizetype begin, qsizetype end) {
    struct Word {
        qsizetype begin, end;
        WordKind kind;
    };
    std::vector<Word> words;
    for (qsizetype i = begin; i < end;) {
        while (i < end && p[i].isSpace()) ++i;
        const qsizetype b = i;
        while (i < end && !p[i].isSpace()) ++i;
        if (i > b) words.push_back({b, i, word_kind(p.mid(b, i - b))});
    }
    std::vector<qsizetype> cuts;
    for (size_t w = 0; w < words.size();) {
        if (words[w].kind == WordKind::Other) {
            ++w;
            continue;
        }
        size_t last = w;  // the run: [w, last)
        int capitals = 0;
        qsizetype longest = 0;
        while (last < words.size() && words[last].kind != WordKind::Other) {
            if (words[last].kind == WordKind::Capitals) {
                ++capitals;
                longest = std::max(longest, words[last].end - words[last].begin);
            }
            ++last;
        }
        const bool long_enough = capitals >= 2 || (w == 0 && capitals == 1 && longest >= 4);
        const bool followed_by_text = last < words.size() && opens_in_mixed_case(p.mid(words[last].begin, words[last].end - words[last].begin));
        const QChar run_end = p[words[last - 1].end - 1];
        if (long_enough && followed_by_text && run_end != u',') {
            if (w > 0) cuts.push_back(words[w].begin);
            cuts.push_back(words[last].begin);
        }
        w = last;
    }
    return cuts;
}

// A news dateline that opens a paragraph: "Kabul, Afghanistan (CNN) -- ", "(AP) — ". It
// says where the story was filed, not what happened; it is cut off as a piece of its own.
// Returns where the story's first sentence starts, or `begin` when there is no dateline.
qsizetype dateline_end(QStringView p, qsizetype begin, qsizetype end) {
    if (begin > 0 && p[begin - 1] != u'\n') return begin;
    static const QRegularExpression dateline(
        QStringLiteral(R"(^[^()\n.!?]{0,60}\([A-Za-z][\w.]{1,15}\)\s*(?:--|\x{2014}|\x{2013})\s+)"));
    const QRegularExpressionMatch m = dateline.match(p.mid(begin, std::min<qsizetype>(end - begin, 120)).toString());
    if (!m.hasMatch() || m.capturedEnd() >= end - begin) return begin;
    return begin + m.capturedEnd();
}

}  // namespace

QString prepare_line_breaks(const QString& text) {
    QString out = text;
    const std::vector<LineSpan> lines = split_lines(text);
    size_t block_start = 0;
    while (block_start < lines.size()) {
        // A block: consecutive lines that are not blank.
        size_t block_end = block_start;
        qsizetype widest = 0;
        while (block_end < lines.size()) {
            const QStringView line = QStringView(text).mid(lines[block_end].begin, lines[block_end].end - lines[block_end].begin);
            if (is_blank(line)) break;
            widest = std::max(widest, line.trimmed().size());
            ++block_end;
        }
        for (size_t i = block_start; i + 1 < block_end; ++i) {
            const LineSpan& line = lines[i];
            const QStringView this_line = QStringView(text).mid(line.begin, line.end - line.begin);
            const QStringView next_line = QStringView(text).mid(lines[i + 1].begin, lines[i + 1].end - lines[i + 1].begin);
            const bool ends_early = double(this_line.trimmed().size()) < kShortLineShare * double(widest) &&
                                    !runs_on(this_line, next_line);
            if (ends_early || starts_list_item(next_line) || is_column_row(this_line) || is_column_row(next_line))
                continue;  // a hard break
            const qsizetype nl = line.end;  // the '\n'
            const bool hyphenated = nl >= 2 && text[nl - 1] == u'-' && text[nl - 2].isLetter() && nl + 1 < text.size() &&
                                    text[nl + 1].isLower();
            if (hyphenated) {
                out[nl - 1] = QChar(kSoftHyphen);
                out[nl] = QChar(kSoftHyphen);
            } else {
                out[nl] = u' ';
            }
        }
        block_start = block_end;
        while (block_start < lines.size() &&
               is_blank(QStringView(text).mid(lines[block_start].begin, lines[block_start].end - lines[block_start].begin)))
            ++block_start;
    }
    return out;
}

SegmentedText segment_sentences(const QString& text) {
    SegmentedText result;
    result.prepared = prepare_line_breaks(text);
    const QString& p = result.prepared;
    if (p.isEmpty()) return result;

    UErrorCode status = U_ZERO_ERROR;
    std::unique_ptr<icu::BreakIterator> breaks = make_sentence_iterator();
    std::unique_ptr<UText, decltype(&utext_close)> utext(
        utext_openUChars(nullptr, reinterpret_cast<const UChar*>(p.utf16()), p.size(), &status), &utext_close);
    throw_if_icu_failed(status, "open the text");
    breaks->setText(utext.get(), status);
    throw_if_icu_failed(status, "set the text");

    int paragraph = 0;
    qsizetype scanned = 0;  // paragraph breaks counted up to here
    auto count_paragraphs_to = [&](qsizetype pos) {
        for (; scanned < pos; ++scanned)
            if (p[scanned] == u'\n' && (scanned == 0 || p[scanned - 1] != u'\n')) ++paragraph;
    };
    // The rows of tables and contents pages, in order, to mark the sentences that start in one.
    std::vector<LineSpan> rows;
    for (const LineSpan& line : split_lines(text))
        if (is_column_row(QStringView(text).mid(line.begin, line.end - line.begin))) rows.push_back(line);
    size_t row = 0;  // sentences come in order: the first row that does not end before this one
    auto starts_in_row = [&](qsizetype begin) {
        while (row < rows.size() && rows[row].end <= begin) ++row;
        return row < rows.size() && rows[row].begin <= begin;
    };
    int glued_paragraphs = 0;  // heading runs cut off so far: each piece is a paragraph of its own
    auto add_sentence = [&](qsizetype b, qsizetype e) {
        std::vector<qsizetype> cuts;
        if (const qsizetype story = dateline_end(p, b, e); story != b) cuts.push_back(story);
        const std::vector<qsizetype> heading_cuts = heading_run_cuts(p, cuts.empty() ? b : cuts.back(), e);
        cuts.insert(cuts.end(), heading_cuts.begin(), heading_cuts.end());
        cuts.push_back(e);
        qsizetype from = b;
        for (qsizetype cut : cuts) {
            qsizetype to = cut;
            while (to > from && p[to - 1].isSpace()) --to;
            if (to > from) {
                TextSentence s;
                s.begin = int(from);
                s.end = int(to);
                s.paragraph = paragraph + glued_paragraphs;
                s.table_row = starts_in_row(from);
                result.sentences.push_back(s);
            }
            if (cut != e) ++glued_paragraphs;
            from = cut;
        }
    };
    for (int32_t start = breaks->first(), end = breaks->next(); end != icu::BreakIterator::DONE;
         start = end, end = breaks->next()) {
        qsizetype b = start, e = end;
        while (b < e && (p[b].isSpace() || p[b] == QChar(kSoftHyphen))) ++b;
        while (e > b && p[e - 1].isSpace()) --e;
        if (b == e) continue;
        const QStringView span = QStringView(p).mid(b, e - b);
        if (std::none_of(span.begin(), span.end(), [](QChar c) { return c.isLetterOrNumber(); })) continue;
        count_paragraphs_to(b);
        if (!result.sentences.empty()) {
            TextSentence& previous = result.sentences.back();
            const QStringView between = QStringView(p).mid(previous.end, b - previous.end);
            const bool same_line = !between.contains(u'\n');
            const QStringView previous_text = QStringView(p).mid(previous.begin, previous.end - previous.begin);
            if (same_line && (((ends_with_initialism(previous_text) || ends_with_personal_initial(previous_text)) &&
                               continues_after_initialism(span)) ||
                              (ends_with_number_sign(previous_text) && starts_with_number(span)))) {
                // Joined, then cut again at any heading run the whole now holds.
                const qsizetype joined_begin = previous.begin;
                result.sentences.pop_back();
                add_sentence(joined_begin, e);
                continue;
            }
        }
        add_sentence(b, e);
    }
    count_paragraphs_to(p.size());
    result.paragraphs = result.sentences.empty() ? 0 : result.sentences.back().paragraph + 1;
    return result;
}

QString sentence_text(const SegmentedText& segmented, const TextSentence& sentence) {
    QString out;
    out.reserve(sentence.end - sentence.begin);
    bool space = false;
    for (int i = sentence.begin; i < sentence.end; ++i) {
        const QChar c = segmented.prepared[i];
        if (c == QChar(kSoftHyphen)) continue;
        if (c.isSpace()) {
            space = true;
            continue;
        }
        if (space && !out.isEmpty()) out += u' ';
        space = false;
        out += c;
    }
    return out;
}

}  // namespace precis::text
