#include "app/batch/existing_results.h"

#include <QSet>

namespace precis {

std::optional<qint64> summary_with_settings(const Library& library, qint64 document_id, const SummarySettings& settings) {
    for (const SummaryRecord& s : library.summaries_for(document_id)) {  // newest first
        const bool extractive = s.method == QStringLiteral("extractive");
        if (extractive != settings.extractive) continue;
        if (!extractive && s.model_path != settings.model_path) continue;
        bool same = true;
        for (auto it = settings.options.begin(); it != settings.options.end() && same; ++it)
            same = s.parameters.value(it.key()) == it.value();
        if (same) return s.id;
    }
    return std::nullopt;
}

bool has_labels_from(const Library& library, qint64 document_id, const QString& classifier_name,
                     const QStringList& candidate_labels) {
    QSet<QString> scored;
    for (const ClassificationRecord& c : library.classifications_for(document_id))
        if (c.model_name == classifier_name) scored.insert(c.label);
    if (scored.isEmpty()) return false;
    for (const QString& label : candidate_labels)
        if (!scored.contains(label)) return false;
    return true;
}

}  // namespace precis
