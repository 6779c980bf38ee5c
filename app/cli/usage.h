#pragma once
// What `precis COMMAND --help` prints: one usage text per command and subcommand, kept
// in one table so every command answers --help the same way (app/cli/arguments.h throws
// HelpRequested, run_cli prints the text found here).
#include <optional>
#include <string>
#include <vector>

namespace precis::cli {

// The usage of "summarize", "library", "library list", "model download", ...; nullopt for
// a name that is not a command.
std::optional<std::string> command_usage(const std::string& command);

// Every command and subcommand that has a usage text, in the order `precis help` lists them.
std::vector<std::string> commands_with_usage();

}  // namespace precis::cli
