#pragma once
// The File > Open Recent list, kept in QSettings ("recent_files", newest first). A file
// joins it once it has opened, and leaves it when opening it fails.
#include <QObject>
#include <QStringList>

class QMenu;

namespace precis::ui {

class RecentFiles : public QObject {
    Q_OBJECT
public:
    static constexpr int kMax = 10;
    RecentFiles(QMenu* menu, QObject* parent = nullptr);

    void add(const QString& path);
    void remove(const QString& path);
    QStringList files() const;

signals:
    void open_requested(const QString& path);

private:
    void rebuild_menu();
    QMenu* menu_;
};

}  // namespace precis::ui
