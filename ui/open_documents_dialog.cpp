#include "ui/open_documents_dialog.h"

#include <QFileDialog>
#include <QHeaderView>
#include <QTreeView>

#include "ui/screen_fit.h"

namespace precis::ui {

std::unique_ptr<QFileDialog> make_open_documents_dialog(QWidget* parent, const QString& start) {
    auto dialog = std::make_unique<QFileDialog>(parent, QFileDialog::tr("Open documents"), start,
                                                QFileDialog::tr("Documents (*.pdf *.txt *.text *.md *.markdown);;All files (*)"));
    dialog->setFileMode(QFileDialog::ExistingFiles);
    dialog->setAcceptMode(QFileDialog::AcceptOpen);
    dialog->setViewMode(QFileDialog::Detail);
    // Only Qt's own dialog has widgets to size (a desktop's native one sizes itself).
    if (auto* details = dialog->findChild<QTreeView*>(QStringLiteral("treeView"))) {
        QHeaderView* header = details->header();
        header->setStretchLastSection(false);
        header->setSectionResizeMode(QHeaderView::ResizeToContents);
        header->setSectionResizeMode(0, QHeaderView::Stretch);  // the names take what is left
        place_within_screen(dialog.get(), QSize(960, 600));
    }
    return dialog;
}

}  // namespace precis::ui
