// The engine worker's classification: the Classify action on one document, and the
// classifier a batch run uses for every file. Labels with scores go to the library (the
// same records `precis classify --store` writes), so the window, the label filter and the
// command line all read them from there.
#include "app/batch/records.h"
#include "app/library/library.h"
#include "app/worker/classifier_settings.h"
#include "app/worker/engine_worker.h"
#include "app/worker/model_cache.h"
#include "engine/core/error.h"
#include "engine/model/model.h"

namespace precis {

std::shared_ptr<const Classifier> EngineWorker::load_classifier(const EngineSettings& settings, ClassifyOptions* options) {
    const ResolvedClassifier where = resolve_classifier_model(settings.classifier);
    emit progress(QStringLiteral("loading the classifier"), 0, 0);
    std::shared_ptr<const Model> model = classifiers_->get(where.dir, LoadOptions{});
    if (!model->config().is_classifier)
        throw Error(where.dir.string() + " is a summarization model, not a classifier: choose a classification or "
                    "zero-shot (NLI) model in Settings > Classification.");
    auto classifier = std::make_shared<const Classifier>(model, backend());
    *options = classify_options_for(settings.classifier, *classifier);
    return classifier;
}

void EngineWorker::classify(quint64 ticket, qint64 document_id, const EngineSettings& settings) {
    guarded(ticket, [&] {
        emit progress(QStringLiteral("reading"), 0, 0);
        std::optional<DocumentRecord> doc = library().document(document_id);
        if (!doc) throw Error("The document is no longer in the library.");
        ClassifyOptions options;
        const std::shared_ptr<const Classifier> classifier = load_classifier(settings, &options);
        const RunCallbacks cb = callbacks_for(ticket, nullptr, document_id);
        const ClassificationResult r = classifier->classify(doc->text.toStdString(), options, cb);
        cb.check_abort();  // a cancel that came with the last label still means "do not keep it"
        library().add_classifications(make_classification_records(document_id, classifier->model(), r));
        ClassificationOutcome out;
        out.document_id = document_id;
        out.model_name = QString::fromStdString(classifier->model().name());
        if (!r.scores.empty()) {
            out.top_label = QString::fromStdString(r.scores.front().label);
            out.top_score = r.scores.front().score;
        }
        out.labels = int(r.scores.size());
        out.zero_shot = r.zero_shot;
        out.input_tokens = r.input_tokens;
        out.tokens_read = r.tokens_read;
        out.truncated = r.truncated;
        emit classification_finished(out);
    });
}

}  // namespace precis
