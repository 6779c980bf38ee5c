#include "ui/classifier_settings_box.h"

#include <QCheckBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>

#include "app/models/model_store.h"
#include "app/qt_file_names.h"
#include "engine/config/config.h"

namespace precis::ui {

namespace {

const QString kZeroShot = QStringLiteral("zero-shot labels");

// A trained classifier's own labels, read from its config.json (no weights loaded).
QStringList own_labels(const std::filesystem::path& dir) {
    QStringList out;
    try {
        for (const std::string& l : parse_model_config(dir / "config.json").id2label) out << QString::fromStdString(l);
    } catch (const std::exception&) {
    }
    return out;
}

// A classifier as the user knows it: its HuggingFace repo id, else its folder's name.
QString classifier_name(const std::filesystem::path& dir) {
    const models::ModelInfo info = models::describe_model(dir);
    if (!info.repo.isEmpty()) return info.repo;
    if (!info.name.isEmpty()) return info.name;
    return QString::fromStdString(dir.filename().string());
}

}  // namespace

ClassifierSettingsBox::ClassifierSettingsBox(QWidget* parent)
    : QGroupBox(tr("Classifier model and labels"), parent),
      folder_(new QLineEdit(this)),
      labels_(new QLineEdit(this)),
      multi_label_(new QCheckBox(tr("Several labels may apply (each scored on its own)"), this)),
      note_(new QLabel(this)) {
    folder_->setToolTip(tr("A HuggingFace sequence-classification model, or an NLI model such as facebook/bart-large-mnli "
                           "for labels of your own (zero-shot)"));
    auto* browse = new QPushButton(tr("Browse…"), this);
    labels_->setPlaceholderText(tr("For zero-shot models, e.g.: invoice, contract, letter"));
    labels_->setToolTip(tr("The labels a zero-shot model picks from, separated by commas"));
    note_->setWordWrap(true);
    note_->setForegroundRole(QPalette::PlaceholderText);
    auto* folder_row = new QHBoxLayout;
    folder_row->addWidget(folder_, 1);
    folder_row->addWidget(browse);
    auto* form = new QFormLayout(this);
    form->addRow(tr("Classifier folder:"), folder_row);
    form->addRow(QString(), note_);
    form->addRow(tr("Labels:"), labels_);
    form->addRow(QString(), multi_label_);

    connect(browse, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Classifier model folder"), folder_->text());
        if (dir.isEmpty()) return;
        folder_->setText(path_from_dialog(dir));  // Qt's decoding lost bytes that are not UTF-8; describes it
    });
    // Every change of the folder, typed or set (a classifier just downloaded, Restore Defaults):
    // the note said "No classifier installed" beside a folder set without typing (issue 42).
    connect(folder_, &QLineEdit::textChanged, this, &ClassifierSettingsBox::describe);
    describe();
}

void ClassifierSettingsBox::load(const ClassifierSettings& s) {
    folder_->setText(s.model_dir);
    labels_->setText(s.labels);
    multi_label_->setChecked(s.multi_label);
    describe();
}

ClassifierSettings ClassifierSettingsBox::settings() const {
    ClassifierSettings s;
    s.model_dir = folder_->text().trimmed();
    s.labels = labels_->text().trimmed();
    s.multi_label = multi_label_->isChecked();
    return s;
}

QString ClassifierSettingsBox::problem() const {
    const ClassifierSettings s = settings();
    if (!s.model_dir.isEmpty() && !QFileInfo::exists(s.model_dir + QStringLiteral("/config.json")))
        return tr("The classifier folder %1 has no config.json.").arg(s.model_dir);
    const std::optional<ResolvedClassifier> found = find_classifier_model(s);
    if (!found) return {};  // nothing to classify with yet: Classify will say how to get a model
    const QString name = QString::fromStdString(found->dir.filename().string());
    if (found->task == QLatin1String("summarization"))
        return tr("%1 is a summarization model, not a classifier: choose a classification or zero-shot model.").arg(name);
    const bool has_labels = !classifier_labels(s).isEmpty();
    if (found->task == kZeroShot && !has_labels)
        return tr("%1 is a zero-shot model: enter the labels it should pick from, separated by commas.").arg(name);
    if (found->task != kZeroShot && has_labels)
        return tr("%1 has its own fixed labels: clear the labels field, or choose a zero-shot model.").arg(name);
    return {};
}

void ClassifierSettingsBox::describe() {
    const ClassifierSettings s = settings();
    const std::optional<ResolvedClassifier> found = find_classifier_model(s);
    if (s.model_dir.isEmpty())
        folder_->setPlaceholderText(found ? tr("Automatic: %1").arg(QString::fromStdString(found->dir.string()))
                                          : tr("Automatic: none installed"));
    if (!found) {
        note_->setText(tr("No classifier is set, and none is installed: Download… one (facebook/bart-large-mnli picks "
                          "from labels you give it) or choose a folder."));
        return;
    }
    if (!s.model_dir.isEmpty() && !QFileInfo::exists(s.model_dir + QStringLiteral("/config.json"))) {
        note_->setText(tr("No classifier in this folder: it has no config.json, so it is not a HuggingFace model folder."));
        return;
    }
    // Which classifier Classify will use, by name: the one set here, or the one found.
    const QString name = classifier_name(found->dir);
    const QString which = found->source == QLatin1String("settings")
                              ? tr("Classifier: %1 (this folder).").arg(name)
                              : tr("Classifier: %1 (found among the installed models).").arg(name);
    if (found->task == kZeroShot)
        note_->setText(which + u' ' + tr("Zero-shot: it picks from the labels below."));
    else if (found->task == QLatin1String("classification"))
        note_->setText(which + u' ' + tr("Trained labels: %1.").arg(own_labels(found->dir).join(QStringLiteral(", "))));
    else
        note_->setText(tr("%1 is a summarization model: it cannot classify.").arg(name));
}

}  // namespace precis::ui
