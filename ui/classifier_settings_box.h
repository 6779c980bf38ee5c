#pragma once
// The Classification part of the settings dialog: the classifier model folder (apart from
// the summarizer's), the labels a zero-shot (NLI) model picks from, and whether several
// labels may apply. Says what the chosen folder is (its own labels, or zero-shot) so the
// labels field makes sense, and refuses settings that cannot run.
#include <QGroupBox>

#include "app/worker/classifier_settings.h"

class QCheckBox;
class QLabel;
class QLineEdit;

namespace precis::ui {

class ClassifierSettingsBox : public QGroupBox {
    Q_OBJECT
public:
    explicit ClassifierSettingsBox(QWidget* parent = nullptr);

    void load(const ClassifierSettings& s);
    ClassifierSettings settings() const;
    // One sentence saying why these settings cannot run; empty when they can.
    QString problem() const;

    QLineEdit* folder() const { return folder_; }
    QLineEdit* labels() const { return labels_; }
    QCheckBox* multi_label() const { return multi_label_; }
    QLabel* note() const { return note_; }

private:
    void describe();  // updates the note under the folder

    QLineEdit* folder_;
    QLineEdit* labels_;
    QCheckBox* multi_label_;
    QLabel* note_;
};

}  // namespace precis::ui
