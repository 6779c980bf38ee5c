#include "ui/failed_files_view.h"

#include <QFileInfo>
#include <QLocale>

#include "app/file_names.h"

namespace precis::ui {

FailedFilesView::FailedFilesView(QWidget* parent) : QListWidget(parent) {
    setWordWrap(true);
    setAlternatingRowColors(true);
    setTextElideMode(Qt::ElideMiddle);
}

void FailedFilesView::set_files(const QVector<FailedBatchFile>& files) {
    clear();
    for (const FailedBatchFile& f : files) {
        auto* item = new QListWidgetItem(tr("✗ %1 — %2").arg(path_for_display(QFileInfo(f.path).fileName()), f.error), this);
        item->setForeground(QColor(0xb9, 0x1c, 0x1c));
        item->setToolTip(tr("<b>%1</b><br>%2<br>Failed %3 in the batch job of %4.<br>To try again: Batch summarize "
                            "(Ctrl+B) on that folder with “Retry files that failed before” ticked.")
                             .arg(path_for_display(f.path).toHtmlEscaped(), f.error.toHtmlEscaped(),
                                  QLocale().toString(f.failed_at.toLocalTime(), QLocale::ShortFormat),
                                  path_for_display(f.root).toHtmlEscaped()));
        item->setData(Qt::UserRole, f.path);
    }
}

}  // namespace precis::ui
