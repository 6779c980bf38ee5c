// SettingsDialog's LSG and generation overrides: ticked, each shows the user's own values to
// edit; unticked, greyed, the values runs will use, read from the chosen model's config.json
// and generation_config.json (issue 42: they showed Precis's override defaults instead).
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGroupBox>
#include <QLineEdit>
#include <QSpinBox>

#include <algorithm>
#include <optional>

#include "app/file_names.h"
#include "app/models/model_store.h"
#include "engine/config/config.h"
#include "ui/default_model_box.h"
#include "ui/settings_dialog.h"

namespace precis::ui {

// One writer and one reader of each group of boxes, whatever the values' source: the
// override's, or the model's own config.
void SettingsDialog::show_lsg(const LsgSettings& l) {
    sparsity_type_->setCurrentIndex(std::max(0, sparsity_type_->findData(int(l.sparsity_type))));
    block_size_->setValue(l.block_size);
    sparse_block_size_->setValue(l.sparse_block_size);
    sparsity_factor_->setValue(l.sparsity_factor);
    num_global_->setValue(l.num_global_tokens);
}

void SettingsDialog::show_generation(const GenerationConfig& g) {
    beams_->setValue(g.num_beams);
    length_penalty_->setValue(g.length_penalty);
    min_length_->setValue(g.min_length);
    // HF's max_new_tokens, when the model sets it, is what bounds its summaries.
    max_length_->setValue(g.max_new_tokens ? *g.max_new_tokens : g.max_length);
    no_repeat_->setValue(g.no_repeat_ngram_size);
}

void SettingsDialog::read_lsg_boxes(EngineSettings& s) const {
    s.sparsity_type = SparsityType(sparsity_type_->currentData().toInt());
    s.block_size = block_size_->value();
    s.sparse_block_size = sparse_block_size_->value();
    s.sparsity_factor = sparsity_factor_->value();
    s.num_global_tokens = num_global_->value();
}

void SettingsDialog::read_generation_boxes(EngineSettings& s) const {
    s.num_beams = beams_->value();
    s.length_penalty = length_penalty_->value();
    s.min_length = min_length_->value();
    s.max_length = max_length_->value();
    s.no_repeat_ngram_size = no_repeat_->value();
}

void SettingsDialog::show_lsg_override() {
    EngineSettings ticked = override_;
    ticked.lsg_override = true;
    show_lsg(lsg_settings_for(ticked, {}));
}

void SettingsDialog::show_generation_override() {
    EngineSettings ticked = override_;
    ticked.generation_override = true;
    show_generation(generation_config_for(ticked, {}));
}

void SettingsDialog::follow_override(QWidget* box, bool ticked) {
    const bool lsg = box == lsg_override_;
    if (ticked) {
        lsg ? show_lsg_override() : show_generation_override();
        box->setToolTip(QString());
    } else {
        lsg ? read_lsg_boxes(override_) : read_generation_boxes(override_);  // kept for the next tick
        show_model_values();
    }
}

void SettingsDialog::show_model_values() {
    const bool lsg_shown = !lsg_override_->isChecked(), generation_shown = !generation_box_->isChecked();
    if (!lsg_shown && !generation_shown) return;
    // The model runs would use: this window's folder, else the default the box shows (chosen
    // but not yet applied counts), else whatever the window falls back to.
    std::filesystem::path dir;
    if (const QString folder = model_dir_->text().trimmed(); !folder.isEmpty())
        dir = native_path(folder);
    else if (default_model_->changed())
        dir = models::model_folder_for(default_model_->chosen());
    else if (const std::optional<ResolvedModel> found = find_model(settings()))
        dir = found->dir;
    std::optional<ModelConfig> config;
    std::optional<GenerationConfig> generation;
    if (!dir.empty()) {
        try {
            config = parse_model_config(dir / "config.json");
            generation = load_generation_config(dir, *config);
        } catch (const std::exception&) {
            // An unreadable config is reported where the model is loaded; here nothing is known.
        }
    }
    const QString from = QString::fromStdString(dir.filename().string());

    // A BART model read with LSG attention gets the reference defaults: its config's too.
    if (lsg_shown && config) {
        show_lsg(config->lsg);
        lsg_override_->setToolTip(
            config->is_lsg ? tr("Unticked, runs use the model's own LSG settings, shown greyed (from %1)").arg(from)
                           : tr("%1 is a BART model: with LSG attention chosen above it reads with these, LSG's defaults").arg(from));
    } else if (lsg_shown) {
        show_lsg_override();
        lsg_override_->setToolTip(tr("No model to read LSG settings from: tick to choose them"));
    }

    if (generation_shown && generation) {
        show_generation(*generation);
        generation_box_->setToolTip(tr("Unticked, runs use the model's own generation settings, shown greyed (from %1)").arg(from));
    } else if (generation_shown) {
        show_generation_override();
        generation_box_->setToolTip(tr("No model to read generation settings from: tick to choose them"));
    }
}

}  // namespace precis::ui
