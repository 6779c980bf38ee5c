#include "app/models/hub_environment.h"

#include <QFile>

#include <cstdlib>

namespace precis::models {

namespace fs = std::filesystem;

namespace {

QString env(const char* name) { return QString::fromLocal8Bit(qgetenv(name)).trimmed(); }

}  // namespace

QString hub_endpoint() {
    QString e = env("HF_ENDPOINT");
    if (e.isEmpty()) e = QStringLiteral("https://huggingface.co");
    while (e.endsWith('/')) e.chop(1);
    return e;
}

QString hub_token() {
    for (const char* name : {"HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"})
        if (QString t = env(name); !t.isEmpty()) return t;
    QString path = env("HF_TOKEN_PATH");
    if (path.isEmpty()) path = QString::fromStdString((hf_home() / "token").string());
    QFile f(path);
    if (f.open(QIODevice::ReadOnly)) return QString::fromUtf8(f.readAll()).trimmed();
    return {};
}

bool hub_offline() {
    const QString v = env("HF_HUB_OFFLINE").toLower();
    return v == "1" || v == "true" || v == "yes" || v == "on";
}

fs::path hf_home() {
    if (QString h = env("HF_HOME"); !h.isEmpty()) return fs::path(h.toStdString());
    if (QString x = env("XDG_CACHE_HOME"); !x.isEmpty()) return fs::path(x.toStdString()) / "huggingface";
    const char* home = std::getenv("HOME");
    return fs::path(home && *home ? home : "/tmp") / ".cache" / "huggingface";
}

fs::path hf_hub_cache() {
    for (const char* name : {"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"})
        if (QString c = env(name); !c.isEmpty()) return fs::path(c.toStdString());
    return hf_home() / "hub";
}

}  // namespace precis::models
