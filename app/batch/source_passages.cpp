#include "app/batch/source_passages.h"

#include <algorithm>

#include "app/text/sentence_segmenter.h"

namespace precis {

std::vector<int> utf8_to_utf16_index(const QString& text) {
    const QByteArray utf8 = text.toUtf8();
    std::vector<int> map(size_t(utf8.size()) + 1);
    int next = 0, current = 0;
    for (qsizetype i = 0; i < utf8.size(); ++i) {
        const auto byte = uchar(utf8[i]);
        if ((byte & 0xC0) != 0x80) {  // a lead byte starts a new character
            current = next;
            next += byte >= 0xF0 ? 2 : 1;  // four-byte sequences are surrogate pairs in UTF-16
        }
        map[size_t(i)] = current;
    }
    map.back() = int(text.size());
    return map;
}

int page_of_offset(const QVector<int>& page_offsets, int pos) {
    if (page_offsets.isEmpty()) return -1;
    auto it = std::upper_bound(page_offsets.begin(), page_offsets.end(), pos);
    return std::max(0, int(it - page_offsets.begin()) - 1);
}

namespace {

struct Sentence {
    int begin, end;
    double weight = 0;
};

// The same sentences an extractive summary would quote (app/text/sentence_segmenter.h).
std::vector<Sentence> split_sentences(const QString& text) {
    std::vector<Sentence> out;
    for (const text::TextSentence& s : text::segment_sentences(text).sentences) out.push_back({s.begin, s.end});
    return out;
}

}  // namespace

QVector<SourcePassage> source_passages(const QString& text, const QVector<int>& page_offsets,
                                       const std::vector<float>& weights,
                                       const std::vector<std::pair<size_t, size_t>>& byte_spans, int max_passages) {
    std::vector<Sentence> sentences = split_sentences(text);
    if (sentences.empty() || max_passages <= 0) return {};
    const std::vector<int> to_char = utf8_to_utf16_index(text);
    const size_t n = std::min(weights.size(), byte_spans.size());
    double total = 0;
    for (size_t i = 0; i < n; ++i) {
        const auto [b0, b1] = byte_spans[i];
        if (b1 <= b0 || b0 >= to_char.size() - 1) continue;  // special tokens, or past the text
        // Byte-level BPE tokens carry the space before a word: place them by the word.
        int c = to_char[b0];
        const int c_end = to_char[std::min(b1, to_char.size() - 1)];
        while (c + 1 < c_end && text[c].isSpace()) ++c;
        // The sentence that contains (or, for whitespace between sentences, follows) c.
        auto it = std::upper_bound(sentences.begin(), sentences.end(), c,
                                   [](int pos, const Sentence& s) { return pos < s.begin; });
        Sentence& s = it == sentences.begin() ? sentences.front() : *(it - 1);
        s.weight += weights[i];
        total += weights[i];
    }
    if (total <= 0) return {};

    std::vector<const Sentence*> ranked;
    size_t weighted = 0;
    for (const Sentence& s : sentences) weighted += s.weight > 0;
    const double even_share = total / double(std::max<size_t>(weighted, 1));
    for (const Sentence& s : sentences)
        if (s.weight >= even_share) ranked.push_back(&s);
    std::sort(ranked.begin(), ranked.end(), [](const Sentence* a, const Sentence* b) { return a->weight > b->weight; });
    if (int(ranked.size()) > max_passages) ranked.resize(size_t(max_passages));
    std::sort(ranked.begin(), ranked.end(), [](const Sentence* a, const Sentence* b) { return a->begin < b->begin; });

    QVector<SourcePassage> out;
    for (const Sentence* s : ranked)
        out.push_back({s->begin, s->end, s->weight / total, page_of_offset(page_offsets, s->begin)});
    return out;
}

}  // namespace precis
