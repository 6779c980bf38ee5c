#include "app/text/content_terms.h"

#include "app/text/icu_text.h"

#include <unicode/brkiter.h>
#include <unicode/locid.h>
#include <unicode/ubrk.h>
#include <unicode/ustring.h>
#include <unicode/utext.h>

#include <memory>
#include <unordered_map>

#include "app/text/porter_stemmer.h"
#include "app/text/stop_words.h"

namespace precis::text {

namespace {

struct UTextCloser {
    void operator()(UText* t) const { utext_close(t); }
};

// Calls on_word(begin, end) for every word of `text` (punctuation and spaces skipped).
template <typename OnWord>
void for_each_word(const QString& text, OnWord on_word) {
    if (text.isEmpty()) return;
    UErrorCode status = U_ZERO_ERROR;
    std::unique_ptr<icu::BreakIterator> words(icu::BreakIterator::createWordInstance(icu::Locale::getEnglish(), status));
    throw_if_icu_failed(status, "create a word break iterator");
    std::unique_ptr<UText, UTextCloser> utext(
        utext_openUChars(nullptr, reinterpret_cast<const UChar*>(text.utf16()), text.size(), &status));
    throw_if_icu_failed(status, "open the text");
    words->setText(utext.get(), status);
    throw_if_icu_failed(status, "set the text");
    for (int32_t start = words->first(), end = words->next(); end != icu::BreakIterator::DONE;
         start = end, end = words->next())
        if (words->getRuleStatus() >= UBRK_WORD_NONE_LIMIT) on_word(start, end);
}

// Case-folded UTF-8 of text[begin, end) without soft hyphens; `ascii_letters` tells
// whether the word is plain English letters (the only words Porter may stem).
std::string fold(const QString& text, int begin, int end, bool* ascii_letters) {
    std::string out;
    bool ascii = true, letters = true;
    for (int i = begin; i < end && ascii; ++i) {
        const char16_t c = text[i].unicode();
        if (c == kSoftHyphen) continue;
        if (c >= 0x80) {
            ascii = false;
            break;
        }
        const char lower = (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : char(c);
        if (lower < 'a' || lower > 'z') letters = false;
        out.push_back(lower);
    }
    if (!ascii) {
        QString word;
        for (int i = begin; i < end; ++i)
            if (text[i].unicode() != kSoftHyphen) word += text[i];
        std::u16string folded(size_t(word.size()) * 3 + 4, u'\0');
        UErrorCode status = U_ZERO_ERROR;
        const int32_t n = u_strFoldCase(reinterpret_cast<UChar*>(folded.data()), int32_t(folded.size()),
                                        reinterpret_cast<const UChar*>(word.utf16()), int32_t(word.size()),
                                        U_FOLD_CASE_DEFAULT, &status);
        out = U_SUCCESS(status) ? QStringView(folded.data(), n).toUtf8().toStdString() : word.toUtf8().toStdString();
        letters = false;
    }
    *ascii_letters = letters;
    return out;
}

// Whether the word starting at `begin` goes on from the one that ended at `previous_end`, as a
// reader counts words: only punctuation of Latin script between them, no space ("flood-plain",
// "and/or", 'Decameron"--Volume' are one word each). CJK words that follow each other without
// anything between, or after an ideographic comma, stay words of their own.
bool continues_word(const QString& text, int previous_end, int begin) {
    if (previous_end < 0 || begin <= previous_end) return false;
    for (int i = previous_end; i < begin; ++i)
        if (text[i].isSpace() || text[i].unicode() >= 0x2E80) return false;
    return true;
}

}  // namespace

SentenceTerms sentence_terms(const SegmentedText& segmented) {
    SentenceTerms out;
    const auto& sentences = segmented.sentences;
    out.terms.resize(sentences.size());
    out.words.assign(sentences.size(), 0);
    out.counted_words.assign(sentences.size(), 0);
    std::unordered_map<std::string, int> ids;
    size_t k = 0;
    int previous_end = -1;  // of the last word, in the current sentence
    for_each_word(segmented.prepared, [&](int begin, int end) {
        while (k < sentences.size() && sentences[k].end <= begin) {
            ++k;
            previous_end = -1;
        }
        if (k == sentences.size() || begin < sentences[k].begin) return;  // between sentences
        ++out.words[k];
        if (!continues_word(segmented.prepared, previous_end, begin)) ++out.counted_words[k];
        previous_end = end;
        bool ascii_letters = false;
        std::string term = fold(segmented.prepared, begin, end, &ascii_letters);
        if (term.empty() || is_stop_word(term)) return;
        if (ascii_letters && term.size() > 3) term = porter_stem(term);
        auto [it, added] = ids.try_emplace(term, int(out.vocabulary.size()));
        if (added) out.vocabulary.push_back(term);
        out.terms[k].push_back(it->second);
    });
    return out;
}

int count_words(const QString& text) {
    int n = 0, previous_end = -1;
    for_each_word(text, [&](int begin, int end) {
        if (!continues_word(text, previous_end, begin)) ++n;
        previous_end = end;
    });
    return n;
}

}  // namespace precis::text
