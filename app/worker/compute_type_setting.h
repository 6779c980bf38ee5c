#pragma once
// How a run holds the model's weights, as the user set it: "auto", "fp32", "int8" or
// "fp16-weights". The window remembers the choice per model folder (a 400 M-parameter
// model may need int8 on this laptop while a small one runs exactly in fp32), and the
// command line's --compute-type means the same.
#include <filesystem>
#include <string>

#include <QString>

#include "engine/model/compute_type_choice.h"

namespace precis {

// The setting resolved for one model folder: "auto" is fp32 unless the model in fp32
// would not fit in the memory free now, then int8 with a notice saying so. Any other
// value is taken as given (an unknown one throws Error naming the choices).
ComputeTypeChoice resolve_compute_type(const std::string& setting, const std::filesystem::path& model_dir);

// Whether `setting` is one of the values above.
bool is_compute_type_setting(const QString& setting);

// The QSettings key that remembers the setting for a model folder (empty: the model
// found automatically).
QString compute_type_settings_key(const QString& model_dir);

}  // namespace precis
