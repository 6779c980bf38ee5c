#pragma once
// Turns engine results into library records (the bridge between engine/ and library/).
#include <QString>

#include "app/extractive/extractive_summarizer.h"
#include "app/library/library.h"
#include "app/long/long_summarizer.h"
#include "engine/pipeline/classifier_pipeline.h"
#include "engine/pipeline/summarizer.h"

namespace precis {

class Model;

// With the source passages folded from the result's cross-attention over `document_text`
// (empty when the run did not ask for source attention).
SummaryRecord make_summary_record(qint64 document_id, const QString& document_text, const QVector<int>& page_offsets,
                                  const Model& model, const SummaryResult& result, const SummarizeOptions& options,
                                  const QString& device);

// A summary of a document of any length (app/long/long_summarizer.h): as above, with its
// outline and how it was read ("long": whole, extended, sections or truncated).
SummaryRecord make_long_summary_record(qint64 document_id, const QString& document_text, const QVector<int>& page_offsets,
                                       const Model& model, const longdoc::LongSummary& result,
                                       const SummarizeOptions& options, const QString& device);

// An extractive summary: its sentences are its source passages (weight: each one's share
// of the chosen sentences' scores), and its parameters say how it was chosen.
SummaryRecord make_extractive_summary_record(qint64 document_id, const QVector<int>& page_offsets,
                                             const extractive::ExtractiveSummary& summary,
                                             const extractive::ExtractiveOptions& options);

QVector<ClassificationRecord> make_classification_records(qint64 document_id, const Model& model,
                                                          const ClassificationResult& result);

}  // namespace precis
