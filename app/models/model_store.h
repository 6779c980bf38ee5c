#pragma once
// The models a user has: folders installed under ~/.local/share/precis/models (imported or
// downloaded) and models already in the HuggingFace cache (snapshot layout, used in place,
// never copied), what each one is (task, size, input length, attention), and which one is
// the default for the GUI and every command (persisted in ~/.config/precis/default-model).
#include <QString>

#include <filesystem>
#include <optional>
#include <vector>

namespace precis::models {

struct ModelInfo {
    QString name;                  // folder name (installed) or repo id (HF cache)
    std::filesystem::path dir;     // the folder the engine loads
    bool in_hf_cache = false;      // true: a snapshot of the HuggingFace cache
    QString repo, commit;          // where it came from, when known
    bool usable = false;           // Precis can run it (config, weights and tokenizer present and understood)
    QString problem;               // why not, when !usable
    QString task;                  // "summarization", "classification", "zero-shot labels"
    qint64 size_bytes = 0;         // all files, symlinks followed
    int input_tokens = 0;          // longest input one pass reads
    QString attention;             // "full" or "LSG (norm, block 128)"
    bool is_default = false;
};

// Reads what a model folder is without loading its weights.
ModelInfo describe_model(const std::filesystem::path& dir);

// A HuggingFace cache (hf_hub_cache() unless given): every models--owner--name whose current
// snapshot (refs/main, else the newest) Precis can run. Sorted by repo id.
std::vector<ModelInfo> cached_models(const std::filesystem::path& hub_cache = {});
// Installed folders (hidden work-in-progress folders skipped), sorted by name; unusable ones too.
std::vector<ModelInfo> installed_models(const std::filesystem::path& models_root = {});
// Installed + cached, with is_default set.
std::vector<ModelInfo> all_models();

// The persisted default model's name; empty when none was chosen.
QString default_model_name();
// Persists `name` (an installed folder or a cached repo id; empty clears). Throws
// precis::Error when it names no model Precis can use.
void set_default_model(const QString& name);
// The folder for a model name: an installed folder, else a cached repo id; empty if none.
std::filesystem::path model_folder_for(const QString& name);
// The model commands use when none is named: the persisted default, else the first installed
// folder, else the first summarizer in the HuggingFace cache; empty when there is none.
std::filesystem::path default_model_folder();

// Deletes an installed model folder (and any unfinished download of that name); clears the
// default if it was the default. Throws precis::Error for a name that is not installed.
void remove_installed_model(const QString& name);

}  // namespace precis::models
