#pragma once
// Where Precis keeps and finds things: the user's XDG folders (data: library and
// models; config: settings; cache), the bundled resources, and the reference fixtures.
#include <filesystem>

namespace precis {

// The running program's own file, symlinks resolved (/proc/self/exe); empty if unknown.
// Installed files are found from it: share/precis beside its bin/, and libexec/precis.
std::filesystem::path executable_path();

std::filesystem::path user_data_dir();     // $XDG_DATA_HOME/precis
std::filesystem::path user_models_dir();   // user_data_dir()/models
std::filesystem::path user_config_dir();   // $XDG_CONFIG_HOME/precis
std::filesystem::path user_cache_dir();    // $XDG_CACHE_HOME/precis
// Quantized (int8 / fp16) weights are cached beside their model, or here when the model
// folder cannot be written: $XDG_CACHE_HOME/precis/weights. Empty when
// PRECIS_WEIGHT_CACHE=off (or 0): then nothing is cached anywhere.
std::filesystem::path weight_cache_dir();
std::filesystem::path default_library_path();  // $PRECIS_LIBRARY, else user_data_dir()/library.sqlite

// The user's model: the one chosen with `precis model default` (an installed folder or a
// HuggingFace cache repo), else the first folder with a config.json in user_models_dir() by
// name, else the first summarizer in the HuggingFace cache; empty if none
// (models::default_model_folder).
std::filesystem::path user_default_model();
// The model shipped with Precis (resources/models/* in the source tree or the installed
// share/precis/models/*); empty while none ships.
std::filesystem::path bundled_model();

struct TestModel {
    std::filesystem::path dir, tokenizer_dir;
};
// The tiny random model of the reference fixtures ($PRECIS_FIXTURES or ../shared/fixtures
// beside the source tree) with the real BART tokenizer; empty when not present.
TestModel fixture_test_model();
// Whether `model_dir` is that random model (its summaries are meaningless).
bool is_fixture_test_model(const std::filesystem::path& model_dir);

// The model catalog (resources/models/catalog.json in the source tree or the installed
// share/precis/models/catalog.json).
std::filesystem::path model_catalog_path();

// Sample documents (resources/samples in the source tree or share/precis/samples).
std::filesystem::path samples_dir();

}  // namespace precis
