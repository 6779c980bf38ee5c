#include "app/worker/compute_type_setting.h"


#include "app/file_names.h"
#include "engine/core/checked.h"
#include "engine/core/error.h"
#include "engine/config/config.h"

namespace precis {

ComputeTypeChoice resolve_compute_type(const std::string& setting, const std::filesystem::path& model_dir) {
    if (setting != "auto") return ComputeTypeChoice{parse_compute_type(setting), {}};
    ModelConfig cfg;
    try {
        cfg = parse_model_config(model_dir / "config.json");
    } catch (const Error&) {
        return {};  // fp32: loading the model reports what is wrong with the folder
    }
    return choose_compute_type(cfg, available_memory_bytes());
}

bool is_compute_type_setting(const QString& setting) {
    if (setting == "auto") return true;
    try {
        parse_compute_type(setting.toStdString());
        return true;
    } catch (const Error&) {
        return false;
    }
}

QString compute_type_settings_key(const QString& model_dir) {
    // The folder's bytes percent-encoded: its slashes do not become QSettings groups, and
    // two folders whose names differ only in bytes that are not UTF-8 keep their own keys.
    const QString dir = model_dir.trimmed();
    return "compute_type/" + (dir.isEmpty() ? QStringLiteral("automatic") : QString::fromLatin1(path_to_native(dir).toPercentEncoding()));
}

}  // namespace precis
