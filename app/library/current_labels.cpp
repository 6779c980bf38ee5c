#include "app/library/current_labels.h"

#include <algorithm>

namespace precis {

QVector<ClassificationRecord> newest_classification(const Library& library, qint64 document_id) {
    // classifications_for is newest first, then by score: the newest run leads.
    QVector<ClassificationRecord> run;
    for (const ClassificationRecord& c : library.classifications_for(document_id)) {
        if (!run.isEmpty() && (c.created_at != run.first().created_at || c.model_name != run.first().model_name)) break;
        // Two runs stored within the same millisecond: a label seen again starts the older one.
        if (std::any_of(run.begin(), run.end(), [&](const ClassificationRecord& r) { return r.label == c.label; })) break;
        run.push_back(c);
    }
    return run;
}

bool is_predicted(const ClassificationRecord& record, const QVector<ClassificationRecord>& run) {
    if (record.parameters.contains("predicted")) return record.parameters.value("predicted").toBool();
    return !run.isEmpty() && record.label == run.first().label;
}

QSet<qint64> documents_predicted_as(const Library& library, const QString& label) {
    QSet<qint64> out;
    for (const DocumentInfo& d : library.documents_with_label(label)) {
        const QVector<ClassificationRecord> run = newest_classification(library, d.id);
        for (const ClassificationRecord& c : run)
            if (c.label == label && is_predicted(c, run)) out.insert(d.id);
    }
    return out;
}

}  // namespace precis
