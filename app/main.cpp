// precis: with a subcommand, the command line (no display needed); without one, the
// desktop application.
#include <QCoreApplication>

#include "app/cli/commands.h"
#include "ui/gui_main.h"

int main(int argc, char** argv) {
    if (argc > 1) {
        QCoreApplication app(argc, argv);
        QCoreApplication::setApplicationName("precis");
        return precis::cli::run_cli(argc, argv);
    }
    return precis::ui::run_gui(argc, argv);
}
