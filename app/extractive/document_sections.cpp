#include "app/extractive/document_sections.h"

#include <QRegularExpression>

namespace precis::extractive {

namespace {

const QString& closing_punctuation() {
    static const QString closing = QStringLiteral(".!?;:,\"'\u201D\u2019)\u3002\uFF01\uFF1F");
    return closing;
}

// A table of contents or a title page run together into one line ("Baby Tortoise
// Tortoise-Shell Tortoise Family Connections Lui et Elle Tortoise Gallantry Tortoise Shout"):
// no sentence's closing punctuation, and most words capitalized.
bool looks_like_title_list(QStringView text, int words) {
    if (words == 0 || words > 60 || closing_punctuation().contains(text.back())) return false;
    int capitalized = 0, tokens = 0;
    bool word_start = true;
    for (QChar c : text) {
        if (c.isSpace()) {
            word_start = true;
        } else if (word_start && c.isLetterOrNumber()) {
            ++tokens;
            capitalized += c.isUpper() || c.isDigit();
            word_start = false;
        }
    }
    return tokens > 0 && capitalized * 5 >= tokens * 3;  // at least 60 %
}

// Title case: every word of four letters or more opens with a capital, and there are at least
// two ('From "The New Decameron"--Volume III.', "Facing Death: A Tale of the Coal-mines.").
bool in_title_case(QStringView text) {
    int long_words = 0;
    for (qsizetype i = 0; i < text.size();) {
        while (i < text.size() && !text[i].isLetter()) ++i;
        const qsizetype b = i;
        // Apostrophes and single hyphens stay inside a word: "Freedom's", "Coal-mines".
        while (i < text.size() && (text[i].isLetter() || ((text[i] == u'\'' || text[i] == u'\u2019' || text[i] == u'-') &&
                                                          i + 1 < text.size() && text[i + 1].isLetter())))
            ++i;
        if (i - b < 4) continue;
        if (!text[b].isUpper()) return false;
        ++long_words;
    }
    return long_words >= 2;
}

// Front matter: before the body begins, a one-sentence line of up to 16 words in title case
// is part of the title page even with a full stop ('From "The New Decameron"--Volume III.'),
// or of its list of the author's other books ("By Pike and Dyke: A Tale of the Rise of the
// Dutch Republic.").
constexpr int kMaxFrontMatterWords = 16;

// The body begins at the first paragraph that is not a heading and reads as prose: not in
// title case, and more than one sentence or more than 12 words.
bool opens_body(QStringView paragraph, size_t sentences, int words) {
    return (sentences > 1 || words > 12) && !in_title_case(paragraph);
}

// A run-in heading: a paragraph's first sentence that only names what follows ("Summary of
// the main points. Rivers are shaped by..."; "Background and scope."): a section word, then
// nothing, "of", "and" or a colon. "Results were clear." is a sentence.
bool is_run_in_heading(QStringView sentence, int words) {
    if (words > 6) return false;
    static const QRegularExpression run_in(
        QStringLiteral(R"(^(summary|conclusions?|introduction|background|overview|abstract|discussion|results|methods|)"
                       R"(methodology|recommendations|findings|scope|purpose|objectives|acknowledge?ments)\s*($|[.:]|of\b|and\b))"),
        QRegularExpression::CaseInsensitiveOption);
    return run_in.match(sentence).hasMatch();
}

}  // namespace

bool looks_like_heading(QStringView text, int words) {
    if (words == 0) return false;
    // An editor's note, footnote or illustration caption: "[Footnote 3: ...]", "[Illustration]".
    if (text.front() == u'[' && text.back() == u']') return true;
    if (looks_like_title_list(text, words)) return true;
    if (words <= 40) {
        // A paragraph in capitals: a title page's imprint ("R. H. MOORE, 162, FLEET-STREET; AND ...").
        int letters = 0, upper = 0;
        for (QChar c : text)
            if (c.isLetter()) {
                ++letters;
                upper += c.isUpper();
            }
        if (letters >= 3 && upper == letters) return true;
    }
    static const QRegularExpression numbered(QStringLiteral(R"(^([0-9]+(\.[0-9]+)*|[IVXLC]+)\.?(\s|$))"));
    const bool closed = closing_punctuation().contains(text.back());
    // A longer numbered line without a full stop is still a contents entry ("IV. How the
    // Bailiff of Southampton Slew the Two Masterless Men").
    if (words <= 30 && !closed && numbered.match(text).hasMatch()) return true;
    if (words > 12) return false;
    // Chapter words and bare numbers mark headings even with a closing full stop.
    static const QRegularExpression chapter(
        QStringLiteral(R"(^(chapter|book|part|section|act|scene|stave|canto|appendix|prologue|epilogue)\b)"),
        QRegularExpression::CaseInsensitiveOption);
    if (chapter.match(text).hasMatch() || numbered.match(text).hasMatch()) return true;
    return !closed;
}

namespace {

// How many sentences an editor's note may run to before an unclosed '[' is taken for a
// stray bracket rather than a note.
constexpr size_t kMaxNoteSentences = 30;

// Sentences inside an editor's note that spans paragraphs: "[Footnote 18: The lines ... are
// these:" then verse, up to the closing ']'.
void mark_editorial_notes(const text::SegmentedText& segmented, std::vector<bool>& heading) {
    const auto& sentences = segmented.sentences;
    for (size_t i = 0; i < sentences.size(); ++i) {
        if (segmented.prepared[sentences[i].begin] != u'[') continue;
        size_t last = i;
        auto closes = [&](size_t k) {
            return QStringView(segmented.prepared).mid(sentences[k].begin, sentences[k].end - sentences[k].begin).contains(u']');
        };
        while (!closes(last) && last + 1 < sentences.size() && last - i < kMaxNoteSentences) ++last;
        if (!closes(last)) continue;
        for (size_t k = i; k <= last; ++k) heading[k] = true;
        i = last;
    }
}

}  // namespace

std::vector<bool> heading_sentences(const text::SegmentedText& segmented, const std::vector<int>& words) {
    const auto& sentences = segmented.sentences;
    std::vector<bool> heading(sentences.size(), false);
    mark_editorial_notes(segmented, heading);
    for (size_t i = 0; i < sentences.size(); ++i)
        if (sentences[i].table_row) heading[i] = true;
    bool in_body = false;
    for (size_t first = 0; first < sentences.size();) {
        size_t last = first;  // the paragraph's sentences: [first, last]
        int paragraph_words = words[first];
        while (last + 1 < sentences.size() && sentences[last + 1].paragraph == sentences[first].paragraph)
            paragraph_words += words[++last];
        const QString paragraph = segmented.prepared.mid(sentences[first].begin, sentences[last].end - sentences[first].begin)
                                      .simplified();
        const bool front_matter = !in_body && first == last && paragraph_words <= kMaxFrontMatterWords &&
                                  in_title_case(paragraph);
        if (front_matter || looks_like_heading(paragraph, paragraph_words)) {
            for (size_t i = first; i <= last; ++i) heading[i] = true;
        } else {
            if (last > first && is_run_in_heading(text::sentence_text(segmented, sentences[first]), words[first]))
                heading[first] = true;
            if (opens_body(paragraph, last - first + 1, paragraph_words)) in_body = true;
        }
        first = last + 1;
    }
    return heading;
}

std::vector<Section> document_sections(const text::SegmentedText& segmented, const std::vector<bool>& heading,
                                       const SectionOptions& options) {
    const auto& sentences = segmented.sentences;
    const size_t n = sentences.size();
    if (n == 0) return {};
    // Sections opened by headings; runs of headings (a title over a chapter title) open one.
    std::vector<Section> raw;
    size_t start = 0;
    for (size_t i = 1; i < n; ++i)
        if (heading[i] && !heading[i - 1]) {
            raw.push_back({start, i});
            start = i;
        }
    raw.push_back({start, n});
    // Short sections join the next (the last joins the previous).
    std::vector<Section> merged;
    for (const Section& s : raw) {
        if (!merged.empty() && merged.back().end - merged.back().begin < options.min_sentences)
            merged.back().end = s.end;
        else
            merged.push_back(s);
    }
    if (merged.size() > 1 && merged.back().end - merged.back().begin < options.min_sentences) {
        merged[merged.size() - 2].end = merged.back().end;
        merged.pop_back();
    }
    // Long sections are cut into near-equal parts, each starting a paragraph when one is near.
    std::vector<Section> out;
    for (const Section& s : merged) {
        const size_t len = s.end - s.begin;
        const size_t parts = (len + options.max_sentences - 1) / options.max_sentences;
        if (parts <= 1) {
            out.push_back(s);
            continue;
        }
        size_t from = s.begin;
        for (size_t part = 1; part < parts; ++part) {
            size_t cut = s.begin + len * part / parts;
            // Move the cut forward to the next paragraph start, within a tenth of a part.
            const size_t limit = std::min(s.end - 1, cut + len / parts / 10);
            size_t c = cut;
            while (c < limit && sentences[c].paragraph == sentences[c - 1].paragraph) ++c;
            if (sentences[c].paragraph != sentences[c - 1].paragraph) cut = c;
            if (cut <= from) continue;
            out.push_back({from, cut});
            from = cut;
        }
        out.push_back({from, s.end});
    }
    return out;
}

}  // namespace precis::extractive
