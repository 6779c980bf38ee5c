#include "ui/recent_files.h"

#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>

namespace precis::ui {

RecentFiles::RecentFiles(QMenu* menu, QObject* parent) : QObject(parent), menu_(menu) { rebuild_menu(); }

QStringList RecentFiles::files() const { return QSettings().value(QStringLiteral("recent_files")).toStringList(); }

void RecentFiles::add(const QString& path) {
    QStringList list = files();
    const QString absolute = QFileInfo(path).absoluteFilePath();
    list.removeAll(absolute);
    list.prepend(absolute);
    while (list.size() > kMax) list.removeLast();
    QSettings().setValue(QStringLiteral("recent_files"), list);
    rebuild_menu();
}

void RecentFiles::remove(const QString& path) {
    QStringList list = files();
    if (list.removeAll(QFileInfo(path).absoluteFilePath()) == 0) return;
    QSettings().setValue(QStringLiteral("recent_files"), list);
    rebuild_menu();
}

void RecentFiles::rebuild_menu() {
    menu_->clear();
    const QStringList list = files();
    for (int i = 0; i < list.size(); ++i) {
        const QString& path = list[i];
        QAction* a = menu_->addAction(QStringLiteral("&%1 %2").arg((i + 1) % 10).arg(QFileInfo(path).fileName()));
        a->setToolTip(QDir::toNativeSeparators(path));
        a->setStatusTip(QDir::toNativeSeparators(path));
        a->setEnabled(QFileInfo::exists(path));
        connect(a, &QAction::triggered, this, [this, path] { emit open_requested(path); });
    }
    if (!list.isEmpty()) {
        menu_->addSeparator();
        menu_->addAction(tr("Clear list"), this, [this] {
            QSettings().remove(QStringLiteral("recent_files"));
            rebuild_menu();
        });
    }
    menu_->setEnabled(!list.isEmpty());
}

}  // namespace precis::ui
