#pragma once
// What the desktop application lets the user choose about a run (model folder, device,
// encoder attention with its LSG/Fovea settings, generation settings), how those choices
// persist in QSettings, and how they turn into the engine's LoadOptions and
// SummarizeOptions. Qt Core only: the settings dialog edits an EngineSettings, the worker
// thread applies it.
#include <memory>

#include <QString>

#include <filesystem>
#include <optional>

#include "app/extractive/extractive_summarizer.h"
#include "app/long/long_mode.h"
#include "app/worker/classifier_settings.h"
#include "engine/config/config.h"
#include "engine/model/model.h"
#include "engine/pipeline/summarizer.h"

class QSettings;

namespace precis {

class Backend;

struct EngineSettings {
    QString method = "auto";      // "auto" (neural when a model is installed), "extractive" or "neural"
    int extractive_sentences = 0;  // length of an extractive summary; 0: automatic (by document length)
    QString model_dir;         // empty: found automatically (see resolve_model)
    QString device = "auto";   // "auto", "cpu" or "cuda"
    // The GPU's compute precision: "auto" (fp16, the tensor cores' precision), "fp32" (matches
    // the reference exactly), "fp16" or "bf16". The CPU ignores it; its weights follow compute_type.
    QString dtype = "auto";
    // "auto", "fp32", "int8" or "fp16-weights" (app/worker/compute_type_setting.h); stored
    // per model folder, so each model keeps its own.
    QString compute_type = "auto";

    QString attention = "model";  // "model" (as the checkpoint was saved), "lsg", "full" or "fovea"
    bool lsg_override = false;    // false: the model's own LSG settings
    SparsityType sparsity_type = SparsityType::Norm;
    int block_size = 128;
    int sparse_block_size = 128;
    int sparsity_factor = 2;
    int num_global_tokens = 1;
    int fovea_block_size = 64;
    int fovea_wing = 1;
    int max_positions = 0;  // 0: the model's own; more tiles the position table (longer input)
    // A document longer than the model reads: "auto", "extend", "sections" or "truncate"
    // (app/long/long_mode.h).
    QString long_mode = "auto";

    bool generation_override = false;  // false: the model's generation_config.json
    int num_beams = 4;
    double length_penalty = 2.0;
    int min_length = 0;
    int max_length = 256;
    int no_repeat_ngram_size = 3;

    ClassifierSettings classifier;  // the Classify action's model and labels (not the summarizer's)

    bool operator==(const EngineSettings&) const = default;
};

EngineSettings load_engine_settings(const QSettings& settings);
void save_engine_settings(QSettings& settings, const EngineSettings& s);

// settings.long_mode as the enum (auto for anything unknown).
longdoc::LongMode long_mode_of(const EngineSettings& s);

// The effective LSG settings the user asked for (the model's when not overridden).
LsgSettings lsg_settings_for(const EngineSettings& s, const LsgSettings& model_lsg);
// The effective generation settings the user asked for (the model's when not overridden;
// an override's maximum length replaces the model's max_new_tokens too).
GenerationConfig generation_config_for(const EngineSettings& s, const GenerationConfig& model_generation);

// Which model folder a run uses and why.
struct ResolvedModel {
    std::filesystem::path dir;
    std::filesystem::path tokenizer_dir;  // empty: the model folder itself
    bool is_test_model = false;           // the tiny random fixture model: its output is meaningless
    QString source;                       // "settings", "PRECIS_MODEL", "user model folder", "bundled", "test fixture"
};
// settings.model_dir, else $PRECIS_MODEL, else the first folder in user_models_dir(), else
// the bundled model; nullopt when there is none. The fixture test model is only ever used
// when chosen by folder (tests do): nothing falls back to it.
std::optional<ResolvedModel> find_model(const EngineSettings& s);
// find_model, or precis::Error saying how to install a model.
ResolvedModel resolve_model(const EngineSettings& s);

// Whether a summary made with these settings is extractive: asked for, or "auto" with no
// model to be found.
bool uses_extractive(const EngineSettings& s);
extractive::ExtractiveOptions extractive_options_for(const EngineSettings& s);

LoadOptions load_options_for(const EngineSettings& s, const ResolvedModel& where);

// Options for one summary with this model; throws precis::Error with one sentence naming
// the setting that the model cannot honour (invalid LSG geometry, max length beyond the
// decoder's positions, ...).
SummarizeOptions summarize_options_for(const EngineSettings& s, const Model& model);

// The backend for the requested device ("auto", "cpu", "cuda") and GPU precision (EngineSettings::dtype),
// the device it runs on as the library records it ("cpu", "cuda:0 NVIDIA H200 (fp32)") and,
// when that differs from the request, a one-sentence notice for the user; empty otherwise.
struct DeviceChoice {
    QString device;
    QString notice;
    std::shared_ptr<Backend> backend;
};
DeviceChoice choose_device(const QString& requested, const QString& dtype = QStringLiteral("auto"));

}  // namespace precis
