#include "app/long/section_windows.h"

#include <algorithm>

#include "app/batch/source_passages.h"
#include "app/long/document_structure.h"
#include "engine/core/error.h"

namespace precis::longdoc {

namespace {

// A piece of text no window boundary may cut: a paragraph, or a sentence of a paragraph
// too long for a window, or a run of words of a sentence too long for one.
struct Piece {
    int start = 0, end = 0;
    int tokens = 0;
    size_t section = 0;
};

// Pieces start where the whitespace before a sentence starts, so that each piece is
// tokenized as it is inside the whole text (byte-level BPE keeps whitespace with the word
// after it) and the pieces' token counts add up to the text's.
class Pieces {
public:
    Pieces(const QString& text, const text::SegmentedText& seg, int max_tokens, const TokenCounter& count,
           const std::function<bool()>& should_abort)
        : text_(text), seg_(seg), max_(max_tokens), count_(count), abort_(should_abort) {}

    // The pieces of sentences [first, last) of section `section`.
    void add_section(size_t first, size_t last, size_t section, std::vector<Piece>& out) {
        for (size_t p = first; p < last;) {
            size_t q = p + 1;
            while (q < last && seg_.sentences[q].paragraph == seg_.sentences[p].paragraph) ++q;
            add_paragraph(p, q, section, out);
            p = q;
        }
    }

    // Where sentence i's piece starts: the end of the sentence before (0 for the first).
    int boundary(size_t i) const { return i == 0 ? 0 : seg_.sentences[i - 1].end; }
    int end_of(size_t last) const { return last >= seg_.sentences.size() ? int(text_.size()) : boundary(last); }

private:
    int tokens(int start, int end) {
        if (abort_ && abort_()) throw Cancelled();
        return count_(text_.mid(start, end - start));
    }

    void add_paragraph(size_t first, size_t last, size_t section, std::vector<Piece>& out) {
        const int start = boundary(first), end = end_of(last);
        const int n = tokens(start, end);
        if (n <= max_ || last - first == 1) {
            if (n <= max_) return out.push_back({start, end, n, section});
            return add_words(start, end, n, section, out);
        }
        for (size_t i = first; i < last; ++i) add_paragraph(i, i + 1, section, out);
    }

    // A sentence longer than a window: cut between words into near-equal runs.
    void add_words(int start, int end, int n, size_t section, std::vector<Piece>& out) {
        const int parts = (n + max_ - 1) / max_ + 1;  // one more than needed: word runs vary
        const int step = std::max(1, (end - start) / parts);
        int from = start;
        while (from < end) {
            int cut = std::min(end, from + step);
            while (cut < end && !text_[cut].isSpace()) ++cut;  // to the next word's whitespace
            while (cut < end && text_[cut].isLowSurrogate()) ++cut;
            const int k = tokens(from, cut);
            if (k > max_ && cut - from > 1) {  // still too long (no spaces): halve by characters
                cut = from + std::max(1, (cut - from) / 2);
                if (cut < end && text_[cut].isLowSurrogate()) ++cut;  // never half a character
                out.push_back({from, cut, tokens(from, cut), section});
            } else {
                out.push_back({from, cut, k, section});
            }
            from = cut;
        }
    }

    const QString& text_;
    const text::SegmentedText& seg_;
    const int max_;
    const TokenCounter& count_;
    const std::function<bool()>& abort_;
};

// An open window smaller than this share of a window is a scrap (see plan_section_windows).
constexpr int kScrapShare = 8;

struct Span {
    size_t first = 0, last = 0;  // pieces [first, last)
    int tokens = 0;
};

// One section's pieces in parts of at most `max` tokens, as even as the pieces allow.
std::vector<Span> split_evenly(const std::vector<Piece>& pieces, size_t first, size_t last, int total, int max) {
    const int parts = (total + max - 1) / max;
    const double target = double(total) / parts;
    std::vector<Span> out;
    Span cur{first, first, 0};
    int before = 0;  // tokens in the parts already closed
    for (size_t i = first; i < last; ++i) {
        const int t = pieces[i].tokens;
        // Close the part when this piece would overflow it, or when the part has reached
        // its share and this piece would take it further past than stopping leaves it short.
        const double share = target * double(out.size() + 1) - before;
        if (cur.last > cur.first && (cur.tokens + t > max || (cur.tokens + t / 2.0 > share))) {
            before += cur.tokens;
            out.push_back(cur);
            cur = {i, i, 0};
        }
        cur.last = i + 1;
        cur.tokens += t;
    }
    if (cur.last > cur.first) out.push_back(cur);
    return out;
}

QString window_title(const std::vector<StructuralSection>& sections, size_t first_section, size_t last_section,
                     int part, int parts) {
    QString first = sections[first_section].title, last = sections[last_section].title;
    QString title = first;
    if (last_section != first_section && !last.isEmpty()) title = first.isEmpty() ? last : first + " - " + last;
    if (parts > 1 && !title.isEmpty()) title += QStringLiteral(" (part %1 of %2)").arg(part).arg(parts);
    return title;
}

// What a window without a title is called: its pages, else its place among the windows.
QString fallback_title(const SectionWindow& w, size_t index, size_t windows) {
    if (w.first_page >= 0)
        return w.first_page == w.last_page ? QStringLiteral("Page %1").arg(w.first_page + 1)
                                           : QStringLiteral("Pages %1-%2").arg(w.first_page + 1).arg(w.last_page + 1);
    return QStringLiteral("Part %1 of %2").arg(index + 1).arg(windows);
}

}  // namespace

std::vector<SectionWindow> plan_section_windows(const WindowPlanInput& doc, int max_tokens, const TokenCounter& count,
                                                const std::function<bool()>& should_abort) {
    check(max_tokens > 0, "plan_section_windows: a window must hold at least one token");
    const text::SegmentedText seg = text::segment_sentences(doc.text);
    if (seg.sentences.empty()) return {};
    const DocumentStructure structure = document_structure(seg, doc.page_offsets, doc.outline);
    const auto& sections = structure.sections;

    Pieces cutter(doc.text, seg, max_tokens, count, should_abort);
    std::vector<Piece> pieces;
    std::vector<size_t> section_first_piece;
    for (size_t s = 0; s < sections.size(); ++s) {
        section_first_piece.push_back(pieces.size());
        const size_t last = s + 1 < sections.size() ? sections[s + 1].first_sentence : seg.sentences.size();
        cutter.add_section(sections[s].first_sentence, last, s, pieces);
    }
    section_first_piece.push_back(pieces.size());
    // The text after the last sentence (trailing whitespace) belongs to the last piece.
    pieces.back().end = int(doc.text.size());

    // Whole sections packed while they fit; a section longer than a window in even parts.
    std::vector<SectionWindow> windows;
    auto add_window = [&](size_t first_piece, size_t last_piece, int tokens, QString title) {
        SectionWindow w;
        w.start = pieces[first_piece].start;
        w.end = pieces[last_piece - 1].end;
        w.tokens = tokens;
        w.title = std::move(title);
        if (!doc.page_offsets.isEmpty()) {
            // A window starts with the whitespace before its first sentence, which may end the page before.
            int first_char = w.start;
            while (first_char + 1 < w.end && doc.text[first_char].isSpace()) ++first_char;
            w.first_page = page_of_offset(doc.page_offsets, first_char);
            w.last_page = page_of_offset(doc.page_offsets, std::max(w.start, w.end - 1));
        }
        windows.push_back(std::move(w));
    };
    size_t open_first = 0, open_section = 0;  // the window being filled: its first piece and section
    int open_tokens = 0;
    bool open = false;
    auto close = [&](size_t end_piece, size_t last_section) {
        if (!open) return;
        add_window(open_first, end_piece, open_tokens, window_title(sections, open_section, last_section, 1, 1));
        open = false;
    };
    for (size_t s = 0; s < sections.size(); ++s) {
        const size_t first = section_first_piece[s], last = section_first_piece[s + 1];
        if (first == last) continue;
        int total = 0;
        for (size_t i = first; i < last; ++i) total += pieces[i].tokens;
        if (open && open_tokens + total <= max_tokens) {
            open_tokens += total;
            continue;
        }
        // A scrap left open before a section too long for a window (a title page before the
        // first chapter) goes into that section's first part instead of a window of its own.
        const bool carry = open && total > max_tokens && open_tokens < max_tokens / kScrapShare;
        if (!carry) close(first, s - 1);
        if (total <= max_tokens) {
            open = true;
            open_first = first;
            open_section = s;
            open_tokens = total;
            continue;
        }
        const size_t from = carry ? open_first : first;
        const std::vector<Span> parts = split_evenly(pieces, from, last, total + (carry ? open_tokens : 0), max_tokens);
        for (size_t k = 0; k < parts.size(); ++k)
            add_window(parts[k].first, parts[k].last, parts[k].tokens,
                       window_title(sections, carry && k == 0 ? open_section : s, s, int(k + 1), int(parts.size())));
        open = false;
    }
    close(pieces.size(), sections.size() - 1);
    windows.front().start = 0;  // text before the first sentence (leading whitespace) too
    for (size_t i = 0; i < windows.size(); ++i)
        if (windows[i].title.isEmpty()) windows[i].title = fallback_title(windows[i], i, windows.size());
    return windows;
}

int count_words(QStringView text) {
    int n = 0;
    bool in_word = false;
    for (QChar c : text) {
        n += !c.isSpace() && !in_word;
        in_word = !c.isSpace();
    }
    return n;
}

OutlineSection outline_entry(const SectionWindow& w, QString summary) {
    return {w.title, w.start, w.end, w.first_page, w.last_page, std::move(summary), w.tokens};
}

std::vector<std::pair<int, int>> group_consecutive(const std::vector<int>& tokens, int max_tokens) {
    std::vector<std::pair<int, int>> groups;
    int first = 0, sum = 0;
    for (int i = 0; i < int(tokens.size()); ++i) {
        if (i > first && sum + tokens[size_t(i)] > max_tokens) {
            groups.emplace_back(first, i);
            first = i;
            sum = 0;
        }
        sum += tokens[size_t(i)];
    }
    if (!tokens.empty()) groups.emplace_back(first, int(tokens.size()));
    return groups;
}

}  // namespace precis::longdoc
