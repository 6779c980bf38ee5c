#pragma once
// Bringing a HuggingFace BART or LSG-BART folder into the user's model folder: an LSG
// model is copied as it is, a plain BART model is converted to LSG with the user's LSG
// settings. Either way the files go to a hidden sibling folder that is renamed into place
// only when complete, so a cancel, a crash or a full disk never leaves a half model that
// the model picker would offer. Long copies report bytes and can be cancelled.
#include <QString>

#include <filesystem>

#include "app/worker/engine_settings.h"
#include "engine/core/byte_progress.h"

namespace precis {

struct ImportedModel {
    std::filesystem::path dir;  // the new folder under the models root
    std::string architecture;   // of the source, as its config.json names it
    bool converted = false;     // true: BART converted to LSG; false: LSG copied
    QString message;            // one sentence for the user
};

// Imports `source` into a new folder under `models_root` (named after the source, with
// "-lsg" for a conversion and "-2", "-3"... when taken). Throws precis::Error naming the
// folder when it is not a model folder, precis::Cancelled when `progress` asks to stop.
ImportedModel import_model_folder(const std::filesystem::path& source, const std::filesystem::path& models_root,
                                  const EngineSettings& settings, const ByteProgress& progress);

}  // namespace precis
