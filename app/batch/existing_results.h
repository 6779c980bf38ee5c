#pragma once
// What the library already holds for a document a batch is about to process, so that a
// re-run does only the missing work: a new job over the same files (one that adds "also
// classify", say) must not summarize every document a second time with the same settings.
#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <optional>

#include "app/library/library.h"

namespace precis {

// The settings that make two summaries "the same" for a batch: for a model, its folder and
// every generation and attention option; for extractive summaries, the length and scoring.
struct SummarySettings {
    bool extractive = false;
    QString model_path;     // neural only
    QJsonObject options;    // every key must match the stored summary's parameters
};

// The newest summary of the document made with these settings; nullopt when there is none.
std::optional<qint64> summary_with_settings(const Library& library, qint64 document_id, const SummarySettings& settings);

// Whether the document already has labels from this classifier (by model name) and, for
// zero-shot runs, a score for every candidate label.
bool has_labels_from(const Library& library, qint64 document_id, const QString& classifier_name,
                     const QStringList& candidate_labels);

}  // namespace precis
