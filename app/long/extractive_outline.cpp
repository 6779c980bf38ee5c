#include "app/long/extractive_outline.h"

#include "app/long/section_windows.h"

namespace precis::longdoc {

namespace {
int count_words(const QString& t) {
    int n = 0;
    bool in_word = false;
    for (QChar c : t) {
        n += !c.isSpace() && !in_word;
        in_word = !c.isSpace();
    }
    return n;
}
}  // namespace

DocumentOutline extractive_outline(const QString& text, const QVector<int>& page_offsets,
                                   const QVector<OutlineEntry>& outline, const extractive::ExtractiveOptions& options,
                                   int section_words) {
    if (count_words(text) <= section_words) return {};
    const std::vector<SectionWindow> windows =
        plan_section_windows({text, page_offsets, outline}, section_words, count_words, options.should_abort);
    DocumentOutline out;
    if (windows.size() < 2) return out;
    for (const SectionWindow& w : windows) {
        OutlineSection s;
        s.title = w.title;
        s.start = w.start;
        s.end = w.end;
        s.first_page = w.first_page;
        s.last_page = w.last_page;
        // One sentence a line, as the document's own extractive summary shows them.
        s.summary = extractive::summarize_extractive(text.mid(w.start, w.end - w.start), options).text;
        out.push_back(std::move(s));
    }
    return out;
}

}  // namespace precis::longdoc
