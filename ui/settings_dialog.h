#pragma once
// Settings (Ctrl+,): the model (folder, import a HuggingFace BART / LSG-BART folder, or
// download one from the catalog: model_catalog_dialog.h), the classifier (classifier_settings_box.h),
// the device (with the GPUs this machine has) and GPU precision, the encoder attention with
// its LSG and Fovea parameters, and the generation settings. Edits an EngineSettings; the
// caller stores it in QSettings.
#include <QDialog>

#include "app/worker/engine_settings.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTabWidget;

namespace precis {
class EngineThread;
}

namespace precis::ui {

class ClassifierSettingsBox;
class DefaultModelBox;

class SettingsDialog : public QDialog {
    Q_OBJECT
public:
    // `engine` runs model imports; may be null (import disabled).
    SettingsDialog(const EngineSettings& settings, EngineThread* engine, QWidget* parent = nullptr);

    EngineSettings settings() const;
    void accept() override;  // refuses invalid LSG settings, or closing mid-import, with one sentence
    void reject() override;  // cancels a running import first

    // Imports `source_dir` on the engine thread, with a progress bar and a Cancel button
    // in the dialog (the Import button asks for the folder, then calls this).
    void start_import(const QString& source_dir);
    bool importing() const { return importing_; }
    ClassifierSettingsBox* classifier_box() const { return classifier_; }
    // A model just downloaded or imported goes where its role says: a summarizer becomes the
    // summaries' model, a classifier (zero-shot or trained) the classifier, and that tab shows.
    // A summarizer is offered as the default model instead (default_model_box.h): whether it
    // becomes the default the catalog asks, and the window follows that one default.
    void take_installed_model(const QString& dir);
    // The default changed (in the catalog): listed as such, and this window's other folder
    // cleared so the window uses it too.
    void follow_new_default(const QString& name);
    DefaultModelBox* default_model_box() const { return default_model_; }
    // Accepted with another default model chosen (already persisted): the window reloads.
    bool default_model_changed() const { return default_changed_; }
    QTabWidget* tabs() const { return tabs_; }
    static constexpr int kClassificationTab = 1;

protected:
    void showEvent(QShowEvent* event) override;  // kept inside the screen (its pages scroll)

private:
    void load(const EngineSettings& s);
    void update_enabled();
    // With an override unticked, its boxes show (greyed) the values runs will use: the chosen
    // model's own LSG settings and generation_config; the user's override values wait in
    // override_ meanwhile (settings_overrides.cpp).
    void show_model_values();
    void show_lsg_override();         // override_'s values in the boxes
    void show_generation_override();
    void follow_override(QWidget* box, bool ticked);  // lsg_override_ or generation_box_ toggled
    void show_lsg(const LsgSettings& lsg);
    void show_generation(const GenerationConfig& generation);
    void read_lsg_boxes(EngineSettings& s) const;
    void read_generation_boxes(EngineSettings& s) const;
    void show_devices();
    void import_model();
    void end_import(const QString& note);
    void take_imported_model(const QString& dir);

    EngineThread* engine_;
    bool sized_ = false;  // fitted to the screen on its first showing
    bool importing_ = false;
    quint64 import_ticket_ = 0;
    QComboBox* method_;
    QSpinBox* extractive_sentences_;
    QLineEdit* model_dir_;
    DefaultModelBox* default_model_;
    bool default_changed_ = false;
    QLabel* model_note_;
    QPushButton* import_;
    QProgressBar* import_bar_;
    QPushButton* cancel_import_;
    QComboBox* device_;
    QComboBox* dtype_;
    QLabel* device_info_;
    QComboBox* compute_type_;
    QComboBox* attention_;
    QComboBox* long_mode_;  // what a document longer than the model reads gets (app/long/long_mode.h)
    QCheckBox* lsg_override_;
    QGroupBox* lsg_box_;
    QComboBox* sparsity_type_;
    QSpinBox *block_size_, *sparse_block_size_, *sparsity_factor_, *num_global_;
    QGroupBox* fovea_box_;
    QSpinBox *fovea_block_, *fovea_wing_;
    QSpinBox* max_positions_;
    QGroupBox* generation_box_;
    QSpinBox *beams_, *min_length_, *max_length_, *no_repeat_;
    QDoubleSpinBox* length_penalty_;
    EngineSettings override_;  // the LSG and generation overrides' values (shown only while ticked)
    ClassifierSettingsBox* classifier_;
    QTabWidget* tabs_;
    QLabel* error_;
};

}  // namespace precis::ui
