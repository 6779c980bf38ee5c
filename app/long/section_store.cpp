#include "app/long/section_store.h"

#include <QCryptographicHash>
#include <QFile>
#include <QSaveFile>

#include <chrono>
#include <cstdlib>
#include <string_view>

#include "app/paths.h"

namespace precis::longdoc {

namespace fs = std::filesystem;

FileSectionStore::FileSectionStore(fs::path dir, int max_age_days) : dir_(std::move(dir)) {
    std::error_code ec;
    if (!fs::is_directory(dir_, ec)) return;
    const auto too_old = fs::file_time_type::clock::now() - std::chrono::hours(24) * max_age_days;
    for (const auto& entry : fs::directory_iterator(dir_, ec)) {
        std::error_code e;
        if (entry.is_regular_file(e) && entry.last_write_time(e) < too_old) fs::remove(entry.path(), e);
    }
}

fs::path FileSectionStore::file_for(const std::string& key) const { return dir_ / (key + ".txt"); }

std::optional<std::string> FileSectionStore::find(const std::string& key) const {
    QFile f(QString::fromStdString(file_for(key).string()));
    if (!f.open(QIODevice::ReadOnly)) return std::nullopt;
    const QByteArray bytes = f.readAll();
    if (bytes.isEmpty()) return std::nullopt;
    return bytes.toStdString();
}

void FileSectionStore::keep(const std::string& key, const std::string& summary) {
    std::error_code ec;
    fs::create_directories(dir_, ec);
    QSaveFile f(QString::fromStdString(file_for(key).string()));
    if (!f.open(QIODevice::WriteOnly)) return;
    f.write(summary.data(), qint64(summary.size()));
    f.commit();
}

fs::path default_section_store_dir() {
    if (const char* e = std::getenv("PRECIS_SECTION_CACHE"); e && (std::string_view(e) == "off" || std::string_view(e) == "0"))
        return {};
    return user_cache_dir() / "sections";
}

std::string section_key(const std::string& model_identity, const std::string& settings, const std::string& text) {
    QCryptographicHash h(QCryptographicHash::Sha256);
    for (const std::string* part : {&model_identity, &settings, &text}) {
        const quint64 n = part->size();  // lengths keep the parts apart
        h.addData(QByteArrayView(reinterpret_cast<const char*>(&n), sizeof n));
        h.addData(QByteArrayView(part->data(), qsizetype(part->size())));
    }
    return h.result().toHex().toStdString();
}

}  // namespace precis::longdoc
