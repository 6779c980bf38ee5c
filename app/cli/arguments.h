#pragma once
// A small command-line parser for the subcommands: each command declares its boolean
// flags and its valued options; anything else is an error naming the option.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/core/error.h"

namespace precis::cli {

// How the command was called is wrong (an unknown option, a missing value): run_cli
// prints the sentence with a pointer to the command's --help and exits with 2, the code
// getopt-style tools use for usage mistakes, so scripts can tell it from a failed run.
class UsageError : public Error {
public:
    using Error::Error;
};

// --help or -h among a command's arguments: run_cli prints that command's usage and exits
// with 0. Thrown while parsing, so no command does any work before its help is shown.
struct HelpRequested {
    std::string command;  // "summarize", "library list", ...
};

class Arguments {
public:
    // command: how help and errors name it ("library list"); args: everything after it.
    // --help/-h throws HelpRequested; an option not in flags or options throws UsageError.
    Arguments(std::string command, std::vector<std::string> args, std::set<std::string> flags,
              std::set<std::string> options);

    bool flag(const std::string& name) const { return flags_.count(name) != 0; }
    std::optional<std::string> value(const std::string& name) const;
    std::string value_or(const std::string& name, const std::string& fallback) const;
    std::optional<int> int_value(const std::string& name) const;      // errors on non-integers
    std::optional<double> double_value(const std::string& name) const;
    const std::vector<std::string>& positional() const { return positional_; }
    const std::string& command() const { return command_; }

private:
    std::string command_;
    std::set<std::string> flags_;
    std::map<std::string, std::string> values_;
    std::vector<std::string> positional_;
};

// --batch-size N|auto: documents the model summarizes together; 0 for auto (the default).
// Throws UsageError-style precis::Error for anything else.
int batch_size_value(const Arguments& args);

// The first argument that is neither an option nor the value of one of `valued_options`:
// the subcommand of `library` and `model`, found before parsing so that each subcommand
// is parsed with its own options. Empty when there is none.
std::string first_positional(const std::vector<std::string>& args, const std::set<std::string>& valued_options);

// Splits "a,b,c" (trimming spaces; empty parts dropped).
std::vector<std::string> split_list(const std::string& s, char sep = ',');

}  // namespace precis::cli
