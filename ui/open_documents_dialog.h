#pragma once
// File > Open's file chooser. Where the desktop offers its own dialog (a portal, GNOME, KDE)
// that one opens; Qt's own, used elsewhere (a bare X server, Xvfb), otherwise opened at a
// small default size with the Name column cut after a few letters and Size, Type and Date
// squeezed: here it opens in the detail view, sized for the screen, the names taking the
// room and the other columns their contents' width.
#include <QString>

#include <memory>

class QFileDialog;
class QWidget;

namespace precis::ui {

// A dialog that picks existing documents (PDF, text, Markdown; all files on request),
// starting in `start`. The caller runs it (exec or open) and reads selectedFiles().
std::unique_ptr<QFileDialog> make_open_documents_dialog(QWidget* parent, const QString& start);

}  // namespace precis::ui
