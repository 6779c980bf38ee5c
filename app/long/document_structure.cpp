#include "app/long/document_structure.h"

#include <algorithm>

#include <QRegularExpression>

#include "app/long/section_windows.h"

namespace precis::longdoc {

namespace {

// Outline levels that become sections: chapters and their sections, not every subsection
// (a window holds many of those anyway).
constexpr int kOutlineLevels = 2;
// A title longer than this is shortened (a heading run together with its first lines).
constexpr int kMaxTitleChars = 80;

QString short_title(QString title) {
    title = title.simplified();
    if (title.size() > kMaxTitleChars) title = title.left(kMaxTitleChars - 1).trimmed() + QChar(0x2026);
    return title;
}

size_t sentence_at_or_after(const text::SegmentedText& seg, int offset) {
    const auto& s = seg.sentences;
    const auto it = std::lower_bound(s.begin(), s.end(), offset, [](const text::TextSentence& t, int o) { return t.begin < o; });
    return size_t(it - s.begin());
}

// Sections that start where the outline's entries are found in the text.
std::vector<StructuralSection> from_outline(const text::SegmentedText& seg, const QVector<OutlineEntry>& outline) {
    std::vector<StructuralSection> out;
    for (const OutlineEntry& e : outline) {
        if (e.offset < 0 || e.level >= kOutlineLevels) continue;
        const size_t first = sentence_at_or_after(seg, e.offset);
        if (first >= seg.sentences.size()) continue;
        if (!out.empty() && out.back().first_sentence >= first) {
            // A chapter and its first section starting on the same line: one section, named by both.
            if (out.back().first_sentence == first) out.back().title = short_title(out.back().title + " - " + e.title);
            continue;
        }
        out.push_back({first, short_title(e.title)});
    }
    if (!out.empty() && out.front().first_sentence != 0) out.insert(out.begin(), {0, QString()});
    return out;
}

// A paragraph that names what follows: a chapter or section heading ("CHAPTER IV.", "§ 2.
// SEEKS HIS FORTUNE.", "3.2 Results"), a line in capitals ("INTRODUCTION."), or a short
// line in title case without a sentence's closing punctuation ("Related work"). Stricter
// than the extractive summarizer's headings (document_sections.h), which also skip
// footnotes, table rows and title lists: those never name a section.
bool is_title(QStringView text, bool table_row) {
    const int words = count_words(text);
    if (words == 0 || words > 15 || table_row || text.front() == u'[') return false;
    static const QRegularExpression chapter(
        QStringLiteral(R"(^(chapter|book|part|section|act|scene|stave|canto|appendix|prologue|epilogue|introduction|preface|conclusion)\b)"),
        QRegularExpression::CaseInsensitiveOption);
    // A number before a capital ("3 Results", "2.1 Data", "§ 2. SEEKS"), a Roman one with its
    // full stop ("IV. The Glade"); not "6 lbs. raisins" nor "I used".
    static const QRegularExpression numbered(
        QStringLiteral(R"(^(\x{00A7}\s*)?([0-9]+(\.[0-9]+)*\.?|[IVXLC]+\.)\s+[\p{Lu}\x{00A7}])"));
    if (chapter.match(text).hasMatch() || numbered.match(text).hasMatch()) return true;
    int letters = 0, upper = 0;
    for (QChar c : text)
        if (c.isLetter()) {
            ++letters;
            upper += c.isUpper();
        }
    // In capitals, unless it runs on into the next line ("JOSIAH FRANKLIN," in an epitaph).
    if (letters >= 3 && upper == letters) return text.back() != u',' && text.back() != u';';
    static const QString closing = QStringLiteral(".!?;:,\"'\u201D\u2019)");
    return words <= 8 && text.front().isUpper() && !closing.contains(text.back());
}

// Sections opened by title paragraphs; a run of them (a part title over a chapter title)
// opens one section, named by the run.
std::vector<StructuralSection> from_titles(const text::SegmentedText& seg) {
    std::vector<StructuralSection> out;
    bool previous_was_title = false;
    for (size_t first = 0; first < seg.sentences.size();) {
        size_t last = first;  // the paragraph's sentences: [first, last]
        while (last + 1 < seg.sentences.size() && seg.sentences[last + 1].paragraph == seg.sentences[first].paragraph) ++last;
        const QString paragraph =
            seg.prepared.mid(seg.sentences[first].begin, seg.sentences[last].end - seg.sentences[first].begin).simplified();
        const bool title = is_title(paragraph, seg.sentences[first].table_row);
        if (title && previous_was_title && !out.empty())
            out.back().title = short_title(out.back().title + " " + paragraph);
        else if (title)
            out.push_back({first, short_title(paragraph)});
        previous_was_title = title;
        first = last + 1;
    }
    if (!out.empty() && out.front().first_sentence != 0) out.insert(out.begin(), {0, QString()});
    return out;
}

std::vector<StructuralSection> from_pages(const text::SegmentedText& seg, const QVector<int>& page_offsets) {
    std::vector<StructuralSection> out;
    for (int p = 0; p < page_offsets.size(); ++p) {
        const size_t first = sentence_at_or_after(seg, page_offsets[p]);
        if (first >= seg.sentences.size()) break;
        if (!out.empty() && out.back().first_sentence >= first) continue;
        out.push_back({first, QString()});
    }
    if (!out.empty()) out.front().first_sentence = 0;
    return out;
}

}  // namespace

DocumentStructure document_structure(const text::SegmentedText& seg, const QVector<int>& page_offsets,
                                     const QVector<OutlineEntry>& outline) {
    DocumentStructure d;
    if (seg.sentences.empty()) return d;
    d.sections = from_outline(seg, outline);
    if (d.sections.size() > 1) {
        d.source = StructureSource::Outline;
        return d;
    }
    d.sections = from_titles(seg);
    const bool titled = std::any_of(d.sections.begin(), d.sections.end(), [](const auto& x) { return !x.title.isEmpty(); });
    if (titled) {
        d.source = StructureSource::Headings;
        return d;
    }
    if (page_offsets.size() > 1) {
        d.sections = from_pages(seg, page_offsets);
        d.source = StructureSource::Pages;
        return d;
    }
    // Runs of paragraphs (document_sections without headings): one section; the windows
    // cut it at paragraph starts by tokens.
    d.sections = {{0, QString()}};
    d.source = StructureSource::Paragraphs;
    return d;
}

}  // namespace precis::longdoc
