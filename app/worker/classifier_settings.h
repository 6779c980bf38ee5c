#pragma once
// What the desktop application lets the user choose about classification: the classifier
// model folder (kept apart from the summarizer's, since a summarizer cannot classify and a
// classifier cannot summarize), the labels to choose from for a zero-shot (NLI) model, and
// whether several labels may apply. How those choices persist in QSettings, which folder a
// run uses, and the engine's ClassifyOptions they turn into. Qt Core only.
#include <QString>
#include <QStringList>

#include <filesystem>
#include <optional>

#include "engine/pipeline/classifier_pipeline.h"

class QSettings;

namespace precis {

struct ClassifierSettings {
    QString model_dir;  // empty: found automatically (see find_classifier_model)
    QString labels;     // zero-shot labels as typed, comma-separated
    bool multi_label = false;

    bool operator==(const ClassifierSettings&) const = default;
};

ClassifierSettings load_classifier_settings(const QSettings& settings);
void save_classifier_settings(QSettings& settings, const ClassifierSettings& s);

// The labels field split at commas, trimmed, blanks and repeats dropped, in typed order.
QStringList classifier_labels(const ClassifierSettings& s);

// Which classifier folder a run uses and why.
struct ResolvedClassifier {
    std::filesystem::path dir;
    QString source;  // "settings" or "installed models"
    QString task;    // "classification" (the model's own labels) or "zero-shot labels"
};
// settings.model_dir, else the first usable classification or zero-shot model among the
// user's installed and HuggingFace-cached models; nullopt when there is none. Test models
// are never found: they run only when chosen by folder.
std::optional<ResolvedClassifier> find_classifier_model(const ClassifierSettings& s);
// find_classifier_model, or precis::Error saying how to get a classifier.
ResolvedClassifier resolve_classifier_model(const ClassifierSettings& s);
// One sentence for the user when there is no classifier: what to download and where to set it.
QString no_classifier_message();

// Options for one classification with this classifier; throws precis::Error with one
// sentence when the settings do not fit the model (a zero-shot model without labels, labels
// given to a model with its own fixed labels).
ClassifyOptions classify_options_for(const ClassifierSettings& s, const Classifier& classifier);

}  // namespace precis
