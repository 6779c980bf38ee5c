#pragma once
// The outline of a long document for a person with no model: the same windows a neural
// summary reads (section_windows.h, counted in words instead of model tokens), each with
// the extractive summary of its own text (app/extractive), so a book summarized without a
// model still gets one entry per part with its own sentences.
#include <QString>
#include <QVector>

#include "app/extractive/extractive_summarizer.h"
#include "app/ingest/ingest.h"
#include "app/long/outline_section.h"

namespace precis::longdoc {

// Words per window: about what a 4,096-token model reads.
constexpr int kExtractiveSectionWords = 3000;
constexpr int kExtractiveOutlineWindows = 2;

// Empty for a document of up to kExtractiveOutlineWindows windows: an essay cut in two
// parts gains nothing from an outline, a book does. Each section's summary uses `options`
// (its budget taken for the section's own length when automatic); cancel through
// options.should_abort.
DocumentOutline extractive_outline(const QString& text, const QVector<int>& page_offsets,
                                   const QVector<OutlineEntry>& outline, const extractive::ExtractiveOptions& options,
                                   int section_words = kExtractiveSectionWords);

}  // namespace precis::longdoc
