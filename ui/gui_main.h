#pragma once
// Entry point of the desktop application (called by main() when no subcommand is
// given); any further arguments are documents to open.
namespace precis::ui {
int run_gui(int argc, char** argv);
}
