#include "app/models/catalog.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cmath>
#include <utility>

#include "app/paths.h"
#include "engine/core/error.h"

namespace precis::models {

namespace fs = std::filesystem;

namespace {

constexpr std::pair<const char*, const char*> kRougeKeys[] = {{"r1", "R1"}, {"r2", "R2"}, {"rl", "RL"}, {"rlsum", "RLsum"}};

QString rouge_text(const QJsonObject& r) {
    QStringList parts;
    for (auto [key, label] : kRougeKeys)
        if (r.contains(key)) parts << QStringLiteral("%1 %2").arg(label).arg(r.value(key).toDouble(), 0, 'f', 2);
    if (parts.isEmpty()) return {};
    return parts.join(" / ") + QStringLiteral(" (%1)").arg(r.value("dataset").toString());
}

// The four figures alone, a dash for one the card does not state.
QString rouge_figures(const QJsonObject& r) {
    QStringList parts;
    for (auto [key, label] : kRougeKeys)
        parts << (r.contains(key) ? QString::number(r.value(key).toDouble(), 'f', 2) : QStringLiteral("–"));
    return parts.join(QStringLiteral(" / "));
}

}  // namespace

std::vector<CatalogEntry> load_catalog(const fs::path& path_in) {
    const fs::path path = path_in.empty() ? model_catalog_path() : path_in;
    QFile f(QString::fromStdString(path.string()));
    if (!f.open(QIODevice::ReadOnly)) throw Error("Cannot read the model catalog " + path.string() + ".");
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &err);
    if (doc.isNull()) throw Error("The model catalog " + path.string() + " is not valid JSON: " + err.errorString().toStdString() + ".");
    std::vector<CatalogEntry> entries;
    for (const QJsonValue& v : doc.object().value("models").toArray()) {
        const QJsonObject o = v.toObject();
        CatalogEntry e;
        e.repo = o.value("repo").toString();
        if (!e.repo.contains('/')) throw Error("The model catalog " + path.string() + " has an entry without an owner/name repo.");
        e.revision = o.value("revision").toString(QStringLiteral("main"));
        e.task = o.value("task").toString();
        e.good_for = o.value("good_for").toString();
        e.input_tokens = o.value("input_tokens").toInt();
        e.attention = o.value("attention").toString();
        e.params_millions = o.value("params_millions").toInt();
        e.licence = o.value("licence").toString();
        const QJsonObject rouge = o.value("rouge").toObject();
        e.rouge = rouge_text(rouge);
        if (!e.rouge.isEmpty()) {
            e.rouge_figures = rouge_figures(rouge);
            e.rouge_dataset = rouge.value("dataset").toString();
        }
        e.offer_lsg_conversion = o.value("offer_lsg_conversion").toInt();
        e.recommended = o.value("recommended").toBool();
        entries.push_back(std::move(e));
    }
    std::stable_partition(entries.begin(), entries.end(), [](const CatalogEntry& e) { return e.recommended; });
    return entries;
}

QString format_bytes(qint64 bytes) {
    const double b = double(bytes);
    if (b >= 1e9) return QStringLiteral("%1 GB").arg(b / 1e9, 0, 'f', 2);
    if (b >= 1e6) return QStringLiteral("%1 MB").arg(b / 1e6, 0, 'f', b >= 1e8 ? 0 : 1);
    if (b >= 1e3) return QStringLiteral("%1 KB").arg(b / 1e3, 0, 'f', 0);
    return QStringLiteral("%1 B").arg(bytes);
}

QString format_duration(double seconds) {
    if (!std::isfinite(seconds) || seconds < 0) return QStringLiteral("?");
    const qint64 s = qint64(std::llround(seconds));
    if (s < 60) return QStringLiteral("%1 s").arg(s);
    if (s < 3600) return QStringLiteral("%1 min %2 s").arg(s / 60).arg(s % 60);
    return QStringLiteral("%1 h %2 min").arg(s / 3600).arg((s % 3600) / 60, 2, 10, QChar('0'));
}

}  // namespace precis::models
