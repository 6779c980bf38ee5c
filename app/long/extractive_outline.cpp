#include "app/long/extractive_outline.h"

#include "app/long/section_windows.h"

namespace precis::longdoc {

DocumentOutline extractive_outline(const QString& text, const QVector<int>& page_offsets,
                                   const QVector<OutlineEntry>& outline, const extractive::ExtractiveOptions& options,
                                   int section_words) {
    if (count_words(text) <= kExtractiveOutlineWindows * section_words) return {};
    const TokenCounter words = [](const QString& t) { return count_words(t); };
    const std::vector<SectionWindow> windows =
        plan_section_windows({text, page_offsets, outline}, section_words, words, options.should_abort);
    DocumentOutline out;
    if (int(windows.size()) <= kExtractiveOutlineWindows) return out;
    for (SectionWindow w : windows) {
        w.tokens = 0;  // counted in words here, not model tokens
        // One sentence a line, as the document's own extractive summary shows them.
        out.push_back(outline_entry(w, extractive::summarize_extractive(text.mid(w.start, w.end - w.start), options).text));
    }
    return out;
}

}  // namespace precis::longdoc
