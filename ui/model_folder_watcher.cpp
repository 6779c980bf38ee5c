#include "ui/model_folder_watcher.h"

#include <QDir>
#include <QFileSystemWatcher>
#include <QTimer>

#include "app/models/hub_environment.h"
#include "app/paths.h"

namespace precis::ui {

ModelFolderWatcher::ModelFolderWatcher(QObject* parent, int quiet_ms)
    : QObject(parent), watcher_(new QFileSystemWatcher(this)), quiet_(new QTimer(this)) {
    // The models folder is made now, so a first install from the command line is seen too.
    QDir().mkpath(QString::fromStdString(user_models_dir().string()));
    QDir().mkpath(QString::fromStdString(user_config_dir().string()));
    quiet_->setSingleShot(true);
    quiet_->setInterval(quiet_ms);
    connect(quiet_, &QTimer::timeout, this, [this] {
        watch_folders();
        emit models_changed();
    });
    connect(watcher_, &QFileSystemWatcher::directoryChanged, this, &ModelFolderWatcher::on_change);
    connect(watcher_, &QFileSystemWatcher::fileChanged, this, &ModelFolderWatcher::on_change);
    watch_folders();
}

QStringList ModelFolderWatcher::watched() const { return watcher_->directories(); }

void ModelFolderWatcher::on_change() { quiet_->start(); }  // restarted by each change of a burst

void ModelFolderWatcher::watch_folders() {
    // Directory watches see entries added, removed and renamed: a model folder renamed into
    // place, the default-model file replaced (it is written to a temporary file and renamed).
    const QStringList wanted = {QString::fromStdString(user_models_dir().string()),
                                QString::fromStdString(user_config_dir().string()),
                                QString::fromStdString(models::hf_hub_cache().string())};
    QStringList all = wanted;
    // A HuggingFace download fills models--owner--name/snapshots/<commit>/ long after the
    // repo's folder appears: its snapshot folders are watched too, so the model is seen once
    // its last file lands, not only when its folder was created.
    const QDir hub(wanted.last());
    for (const QString& repo : hub.entryList({QStringLiteral("models--*")}, QDir::Dirs | QDir::NoDotAndDotDot)) {
        const QString snapshots = hub.filePath(repo + QStringLiteral("/snapshots"));
        all << hub.filePath(repo) << snapshots;
        for (const QString& commit : QDir(snapshots).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) all << snapshots + '/' + commit;
    }
    const QStringList have = watcher_->directories();
    for (const QString& dir : all)
        if (!have.contains(dir) && QDir(dir).exists()) watcher_->addPath(dir);
}

}  // namespace precis::ui
