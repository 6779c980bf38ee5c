#pragma once
// Which passages of a document a summary drew on: the summarizer reports, per input
// token, the share of the decoder's cross-attention it received and the token's byte span
// in the UTF-8 text; this folds those weights into sentences and keeps the heaviest ones,
// in document order, as character ranges a text view can highlight.
#include <QString>
#include <QVector>

#include <cstddef>
#include <utility>
#include <vector>

#include "app/library/source_passage.h"

namespace precis {

// `byte_spans[i]` is token i's [begin, end) in text.toUtf8(); `weights[i]` its weight.
// Returns at most `max_passages` sentences, those with the most weight, in text order;
// sentences that got less than an even share of the weight are never returned.
QVector<SourcePassage> source_passages(const QString& text, const QVector<int>& page_offsets,
                                       const std::vector<float>& weights,
                                       const std::vector<std::pair<size_t, size_t>>& byte_spans, int max_passages = 6);

// For every byte of text.toUtf8() (and one past the end), the index of the QString
// character it belongs to.
std::vector<int> utf8_to_utf16_index(const QString& text);

// The 0-based page that character `pos` is on, from a PDF's page start offsets; -1 without pages.
int page_of_offset(const QVector<int>& page_offsets, int pos);

}  // namespace precis
