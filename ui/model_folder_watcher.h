#pragma once
// Tells the window when the models on disk may have changed while it is open: a model
// installed or removed from the command line (`precis model download`, `import`, `remove`),
// a download landing in the HuggingFace cache, or `precis model default NAME`. Watches the
// user's models folder, the folder holding the persisted default, and the HuggingFace cache;
// a burst of changes (a download writes many files, then renames its folder into place)
// becomes one models_changed() once the folders have been quiet for a moment.
#include <QObject>

class QFileSystemWatcher;
class QTimer;

namespace precis::ui {

class ModelFolderWatcher : public QObject {
    Q_OBJECT
public:
    static constexpr int kQuietMs = 500;

    explicit ModelFolderWatcher(QObject* parent = nullptr, int quiet_ms = kQuietMs);
    QStringList watched() const;

signals:
    void models_changed();

private:
    void on_change();
    void watch_folders();  // also those created since (the HF cache appears with its first model)

    QFileSystemWatcher* watcher_;
    QTimer* quiet_;
};

}  // namespace precis::ui
