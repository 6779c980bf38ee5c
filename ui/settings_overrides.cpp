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

void SettingsDialog::show_lsg_override() {
    sparsity_type_->setCurrentIndex(std::max(0, sparsity_type_->findData(int(override_.sparsity_type))));
    block_size_->setValue(override_.block_size);
    sparse_block_size_->setValue(override_.sparse_block_size);
    sparsity_factor_->setValue(override_.sparsity_factor);
    num_global_->setValue(override_.num_global_tokens);
}

void SettingsDialog::keep_lsg_override() {
    override_.sparsity_type = SparsityType(sparsity_type_->currentData().toInt());
    override_.block_size = block_size_->value();
    override_.sparse_block_size = sparse_block_size_->value();
    override_.sparsity_factor = sparsity_factor_->value();
    override_.num_global_tokens = num_global_->value();
}

void SettingsDialog::show_generation_override() {
    beams_->setValue(override_.num_beams);
    length_penalty_->setValue(override_.length_penalty);
    min_length_->setValue(override_.min_length);
    max_length_->setValue(override_.max_length);
    no_repeat_->setValue(override_.no_repeat_ngram_size);
}

void SettingsDialog::keep_generation_override() {
    override_.num_beams = beams_->value();
    override_.length_penalty = length_penalty_->value();
    override_.min_length = min_length_->value();
    override_.max_length = max_length_->value();
    override_.no_repeat_ngram_size = no_repeat_->value();
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
        const LsgSettings& own = config->lsg;
        sparsity_type_->setCurrentIndex(std::max(0, sparsity_type_->findData(int(own.sparsity_type))));
        block_size_->setValue(own.block_size);
        sparse_block_size_->setValue(own.sparse_block_size);
        sparsity_factor_->setValue(own.sparsity_factor);
        num_global_->setValue(own.num_global_tokens);
        lsg_override_->setToolTip(
            config->is_lsg ? tr("Unticked, runs use the model's own LSG settings, shown greyed (from %1)").arg(from)
                           : tr("%1 is a BART model: with LSG attention chosen above it reads with these, LSG's defaults").arg(from));
    } else if (lsg_shown) {
        show_lsg_override();
        lsg_override_->setToolTip(tr("No model to read LSG settings from: tick to choose them"));
    }

    if (generation_shown && generation) {
        beams_->setValue(generation->num_beams);
        length_penalty_->setValue(generation->length_penalty);
        min_length_->setValue(generation->min_length);
        // HF's max_new_tokens, when the model sets it, is what bounds its summaries.
        max_length_->setValue(generation->max_new_tokens ? *generation->max_new_tokens : generation->max_length);
        no_repeat_->setValue(generation->no_repeat_ngram_size);
        generation_box_->setToolTip(tr("Unticked, runs use the model's own generation settings, shown greyed (from %1)").arg(from));
    } else if (generation_shown) {
        show_generation_override();
        generation_box_->setToolTip(tr("No model to read generation settings from: tick to choose them"));
    }
}

}  // namespace precis::ui
