#pragma once
// A document's current labels: its newest classification in the library (the records one
// run stored together: same model, same time), and which labels that run predicted. The
// window shows these and its label filter goes by them, so a document is listed under a
// label it was given, not under every label a classifier merely scored.
#include <QSet>
#include <QString>
#include <QVector>

#include "app/library/library.h"

namespace precis {

// The newest run's records, best score first; empty when the document was never classified.
QVector<ClassificationRecord> newest_classification(const Library& library, qint64 document_id);

// Whether the run predicted this record's label (records without the flag: the best score).
bool is_predicted(const ClassificationRecord& record, const QVector<ClassificationRecord>& run);

// Documents whose newest classification predicted `label`.
QSet<qint64> documents_predicted_as(const Library& library, const QString& label);

}  // namespace precis
