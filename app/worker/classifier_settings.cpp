#include "app/worker/classifier_settings.h"

#include <QSettings>

#include "app/models/model_store.h"
#include "app/file_names.h"
#include "app/paths.h"
#include "app/qt_file_names.h"
#include "engine/core/error.h"
#include "engine/model/model.h"

namespace precis {

namespace fs = std::filesystem;

namespace {

const QString kZeroShotTask = QStringLiteral("zero-shot labels");

bool is_classifier_task(const QString& task) {
    return task == QLatin1String("classification") || task == kZeroShotTask;
}

}  // namespace

ClassifierSettings load_classifier_settings(const QSettings& q) {
    ClassifierSettings d, s;
    s.model_dir = path_from_setting(q.value("classifier/dir", d.model_dir));
    s.labels = q.value("classifier/labels", d.labels).toString();
    s.multi_label = q.value("classifier/multi_label", d.multi_label).toBool();
    return s;
}

void save_classifier_settings(QSettings& q, const ClassifierSettings& s) {
    q.setValue("classifier/dir", path_setting_value(s.model_dir));
    q.setValue("classifier/labels", s.labels);
    q.setValue("classifier/multi_label", s.multi_label);
}

QStringList classifier_labels(const ClassifierSettings& s) {
    QStringList out;
    for (const QString& part : s.labels.split(QLatin1Char(','))) {
        const QString label = part.simplified();
        if (!label.isEmpty() && !out.contains(label, Qt::CaseInsensitive)) out << label;
    }
    return out;
}

std::optional<ResolvedClassifier> find_classifier_model(const ClassifierSettings& s) {
    if (!s.model_dir.isEmpty()) {
        const fs::path dir = native_path(s.model_dir);
        return ResolvedClassifier{dir, QStringLiteral("settings"), models::describe_model(dir).task};
    }
    // Installed first (the user put them there), then the HuggingFace cache; the summarizer
    // default is skipped by task, so a summarizer is never run as a classifier.
    for (const models::ModelInfo& m : models::all_models())
        if (m.usable && is_classifier_task(m.task)) return ResolvedClassifier{m.dir, QStringLiteral("installed models"), m.task};
    return std::nullopt;
}

QString no_classifier_message() {
    return QStringLiteral(
        "No classifier model is installed. Download one in Settings > Download… (facebook/bart-large-mnli labels "
        "documents with your own labels; its smaller cousin valhalla/distilbart-mnli-12-1 is faster), or choose a "
        "classifier folder under Settings > Classification. Models go to %1.")
        .arg(QString::fromStdString(user_models_dir().string()));
}

ResolvedClassifier resolve_classifier_model(const ClassifierSettings& s) {
    std::optional<ResolvedClassifier> found = find_classifier_model(s);
    if (!found) throw Error(no_classifier_message().toStdString());
    if (!fs::is_directory(found->dir)) throw Error("The classifier folder " + display_utf8(path_from_fs(found->dir)) + " does not exist.");
    return *found;
}

ClassifyOptions classify_options_for(const ClassifierSettings& s, const Classifier& classifier) {
    ClassifyOptions o = classifier.default_options();
    const QStringList labels = classifier_labels(s);
    if (classifier.is_nli_model()) {
        // An NLI model's own labels (entailment, neutral, contradiction) say nothing about a document.
        if (labels.isEmpty())
            throw Error(classifier.model().name() + " is a zero-shot model: it needs the labels to choose from. "
                        "Enter them, separated by commas, in Settings > Classification.");
        for (const QString& l : labels) o.candidate_labels.push_back(l.toStdString());
    } else if (!labels.isEmpty()) {
        throw Error(classifier.model().name() + " has its own fixed labels; clear the labels field in Settings > "
                    "Classification, or choose a zero-shot (NLI) model to use your own.");
    }
    if (s.multi_label) o.multi_label = true;
    return o;
}

}  // namespace precis
