#pragma once
// A document's own sections, for cutting it into model windows: the PDF outline when it
// has one, else chapter and section headings, else pages (PDF), else runs of paragraphs.
#include <QString>
#include <QVector>

#include <vector>

#include "app/ingest/ingest.h"
#include "app/text/sentence_segmenter.h"

namespace precis::longdoc {

struct StructuralSection {
    size_t first_sentence = 0;  // the sentence it opens with (sections are in order, the first at 0)
    QString title;              // empty when the document gives none (pages and paragraph runs)
};

enum class StructureSource { Outline, Headings, Pages, Paragraphs };

struct DocumentStructure {
    StructureSource source = StructureSource::Paragraphs;
    std::vector<StructuralSection> sections;
};

// `segmented` is segment_sentences(text) (at least one sentence).
DocumentStructure document_structure(const text::SegmentedText& segmented, const QVector<int>& page_offsets,
                                     const QVector<OutlineEntry>& outline);

}  // namespace precis::longdoc
