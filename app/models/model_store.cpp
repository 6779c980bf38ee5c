#include "app/models/model_store.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

#include <algorithm>

#include "app/models/hub_download.h"
#include "app/models/hub_environment.h"
#include "app/paths.h"
#include "engine/core/error.h"
#include "engine/config/config.h"

namespace precis::models {

namespace fs = std::filesystem;

namespace {

bool has_file(const fs::path& dir, const char* name) {
    std::error_code ec;
    return fs::is_regular_file(dir / name, ec);  // follows the cache's symlinks into blobs/
}

bool has_weights(const fs::path& dir) {
    for (const char* n : {"model.safetensors", "model.safetensors.index.json", "pytorch_model.bin",
                          "pytorch_model.bin.index.json"})
        if (has_file(dir, n)) return true;
    return false;
}

bool has_tokenizer(const fs::path& dir) {
    if (has_file(dir, "tokenizer.json") || (has_file(dir, "vocab.json") && has_file(dir, "merges.txt"))) return true;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))
        if (e.path().extension() == ".model" && fs::is_regular_file(e.path(), ec)) return true;
    return false;
}

qint64 folder_size(const fs::path& dir) {
    qint64 total = 0;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        std::error_code ec2;
        if (fs::is_regular_file(it->path(), ec2)) total += qint64(fs::file_size(it->path(), ec2));
    }
    return total;
}

QString task_of(const ModelConfig& c) {
    if (!c.is_classifier) return QStringLiteral("summarization");
    return c.is_nli_classifier() ? QStringLiteral("zero-shot labels") : QStringLiteral("classification");
}

// repo, commit recorded by a download (precis-source.json), when present.
void read_source(const fs::path& dir, ModelInfo& info) {
    QFile f(QString::fromStdString((dir / "precis-source.json").string()));
    if (!f.open(QIODevice::ReadOnly)) return;
    const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
    info.repo = o.value("repo").toString();
    info.commit = o.value("commit").toString();
}

fs::path default_file() { return user_config_dir() / "default-model"; }

// The snapshot a cache entry points at: refs/main, else the most recently written snapshot.
fs::path current_snapshot(const fs::path& repo_dir, QString* commit) {
    QFile ref(QString::fromStdString((repo_dir / "refs" / "main").string()));
    if (ref.open(QIODevice::ReadOnly)) {
        const QString sha = QString::fromUtf8(ref.readAll()).trimmed();
        const fs::path snap = repo_dir / "snapshots" / sha.toStdString();
        std::error_code ec;
        if (!sha.isEmpty() && fs::is_directory(snap, ec)) {
            *commit = sha;
            return snap;
        }
    }
    fs::path best;
    fs::file_time_type best_time{};
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(repo_dir / "snapshots", ec)) {
        if (!e.is_directory()) continue;
        const auto t = fs::last_write_time(e.path(), ec);
        if (best.empty() || t > best_time) best = e.path(), best_time = t;
    }
    if (!best.empty()) *commit = QString::fromStdString(best.filename().string());
    return best;
}

}  // namespace

ModelInfo describe_model(const fs::path& dir) {
    ModelInfo info;
    info.dir = dir;
    info.name = QString::fromStdString(dir.filename().string());
    read_source(dir, info);
    info.size_bytes = folder_size(dir);
    if (!has_file(dir, "config.json")) {
        info.problem = QStringLiteral("no config.json");
        return info;
    }
    try {
        const ModelConfig c = parse_model_config(dir / "config.json");
        info.task = task_of(c);
        info.input_tokens = c.max_position_embeddings;
        info.attention = c.is_lsg ? QStringLiteral("LSG (%1, block %2)")
                                        .arg(QString::fromLatin1(sparsity_type_name(c.lsg.sparsity_type)))
                                        .arg(c.lsg.block_size)
                                  : QStringLiteral("full");
    } catch (const std::exception& e) {
        info.problem = QString::fromStdString(e.what());
        return info;
    }
    if (!has_weights(dir))
        info.problem = QStringLiteral("no weights (model.safetensors or pytorch_model.bin)");
    else if (!has_tokenizer(dir))
        info.problem = QStringLiteral("no tokenizer files");
    info.usable = info.problem.isEmpty();
    return info;
}

std::vector<ModelInfo> cached_models(const fs::path& hub_cache_in) {
    const fs::path cache = hub_cache_in.empty() ? hf_hub_cache() : hub_cache_in;
    std::vector<ModelInfo> found;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(cache, ec)) {
        const std::string folder = e.path().filename().string();
        if (!e.is_directory() || !folder.starts_with("models--")) continue;
        QString commit;
        const fs::path snap = current_snapshot(e.path(), &commit);
        if (snap.empty()) continue;
        ModelInfo info = describe_model(snap);
        if (!info.usable) continue;  // only what Precis can run
        info.in_hf_cache = true;
        info.repo = QString::fromStdString(folder.substr(8)).replace(QStringLiteral("--"), QStringLiteral("/"));
        info.name = info.repo;
        info.commit = commit;
        found.push_back(std::move(info));
    }
    std::sort(found.begin(), found.end(), [](const ModelInfo& a, const ModelInfo& b) { return a.name < b.name; });
    return found;
}

std::vector<ModelInfo> installed_models(const fs::path& root_in) {
    const fs::path root = root_in.empty() ? user_models_dir() : root_in;
    std::vector<ModelInfo> found;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(root, ec)) {
        if (!e.is_directory() || e.path().filename().string().starts_with('.')) continue;
        found.push_back(describe_model(e.path()));
    }
    std::sort(found.begin(), found.end(), [](const ModelInfo& a, const ModelInfo& b) { return a.name < b.name; });
    return found;
}

std::vector<ModelInfo> all_models() {
    std::vector<ModelInfo> all = installed_models();
    for (ModelInfo& m : cached_models()) all.push_back(std::move(m));
    const fs::path def = default_model_folder();
    std::error_code ec;
    for (ModelInfo& m : all) m.is_default = !def.empty() && fs::equivalent(m.dir, def, ec);
    return all;
}

QString default_model_name() {
    QFile f(QString::fromStdString(default_file().string()));
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(f.readAll()).trimmed();
}

fs::path model_folder_for(const QString& name) {
    if (name.isEmpty()) return {};
    std::error_code ec;
    if (!name.contains('/') && !name.startsWith('.')) {
        const fs::path installed = user_models_dir() / name.toStdString();
        if (fs::is_directory(installed, ec)) return installed;
    }
    for (const ModelInfo& m : cached_models())
        if (m.repo == name) return m.dir;
    return {};
}

void set_default_model(const QString& name) {
    if (!name.isEmpty()) {
        const fs::path dir = model_folder_for(name);
        if (dir.empty())
            throw Error("There is no model named '" + name.toStdString() +
                        "': precis model list shows the installed and cached ones.");
        const ModelInfo info = describe_model(dir);
        if (!info.usable)
            throw Error("The model '" + name.toStdString() + "' cannot be used: " + info.problem.toStdString() + ".");
    }
    std::error_code ec;
    if (name.isEmpty()) {
        fs::remove(default_file(), ec);
        return;
    }
    fs::create_directories(default_file().parent_path(), ec);
    QSaveFile f(QString::fromStdString(default_file().string()));
    if (!f.open(QIODevice::WriteOnly) || f.write((name + "\n").toUtf8()) < 0 || !f.commit())
        throw Error("Cannot write " + default_file().string() + ".");
}

namespace {

// Whether the folder's config says it labels documents (a fallback must never pick such a
// model for summaries: a classifier downloaded first would otherwise be "the default" and
// every summary would fail). A config that cannot be read is not known to be one: loading
// it says what is wrong with it.
bool is_known_classifier(const fs::path& dir) {
    try {
        return parse_model_config(dir / "config.json").is_classifier;
    } catch (const std::exception&) {
        return false;
    }
}

}  // namespace

fs::path default_model_folder() {
    if (fs::path chosen = model_folder_for(default_model_name()); !chosen.empty()) return chosen;
    std::error_code ec;
    std::vector<fs::path> installed;
    for (const auto& e : fs::directory_iterator(user_models_dir(), ec)) {
        // Hidden folders are work in progress (an import's ".name.partial-PID", a download) or not ours.
        if (e.path().filename().string().starts_with('.')) continue;
        if (e.is_directory() && fs::exists(e.path() / "config.json")) installed.push_back(e.path());
    }
    std::sort(installed.begin(), installed.end());
    for (const fs::path& dir : installed)
        if (!is_known_classifier(dir)) return dir;
    for (const ModelInfo& m : cached_models())
        if (m.task == "summarization") return m.dir;
    return {};
}

void remove_installed_model(const QString& name) {
    const fs::path dir = user_models_dir() / name.toStdString();
    std::error_code ec;
    if (name.isEmpty() || name.contains('/') || name.startsWith('.') || !fs::is_directory(dir, ec)) {
        for (const ModelInfo& m : cached_models())
            if (m.repo == name)
                throw Error("'" + name.toStdString() + "' is in the HuggingFace cache (" + m.dir.string() +
                            "), which Precis uses but does not delete: remove it with `huggingface-cli delete-cache`.");
        throw Error("No model named '" + name.toStdString() + "' is installed in " + user_models_dir().string() + ".");
    }
    const bool was_default = default_model_name() == name;
    fs::remove_all(dir, ec);
    if (ec) throw Error("Cannot delete " + dir.string() + ": " + ec.message() + ".");
    const fs::path staging = download_staging_dir(user_models_dir(), name);
    fs::remove_all(staging, ec);
    fs::remove(staging.string() + ".lock", ec);
    if (was_default) set_default_model({});
}

}  // namespace precis::models
