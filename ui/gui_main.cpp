#include "ui/gui_main.h"

#include <QApplication>
#include <QIcon>
#include <QMessageBox>

#include <memory>

#include "app/file_names.h"
#include "app/library/library_error.h"
#include "ui/main_window.h"

namespace precis::ui {

QIcon application_icon() {
    QIcon icon;
    for (int size : {16, 24, 32, 48, 64, 128, 256})
        icon.addFile(QStringLiteral(":/icons/precis-%1.png").arg(size), QSize(size, size));
    icon.addFile(QStringLiteral(":/icons/precis.svg"));
    return icon;
}

int run_gui(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("precis"));
    QApplication::setOrganizationName(QStringLiteral("precis"));
    QApplication::setApplicationDisplayName(QStringLiteral("Precis"));
    QApplication::setApplicationVersion(QStringLiteral(PRECIS_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("precis"));
    QApplication::setWindowIcon(application_icon());
    std::unique_ptr<MainWindow> window;
    try {
        window = std::make_unique<MainWindow>();
    } catch (const LibraryError& e) {
        // The library file is unreadable or from a newer Precis: say so once, change nothing.
        QMessageBox::critical(nullptr, QStringLiteral("Precis"), QString::fromUtf8(e.what()));
        return 1;
    }
    window->show();
    // Files named on the command line (the desktop entry's %F) open like File > Open; their
    // names are bytes, kept exactly (app/file_names.h).
    for (int i = 1; i < argc; ++i) window->open_file(path_from_native(std::string_view(argv[i])));
    return app.exec();
}

}  // namespace precis::ui
