#pragma once
// A small command-line parser for the subcommands: each command declares its boolean
// flags and its valued options; anything else is an error naming the option.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace precis::cli {

class Arguments {
public:
    // args: everything after the subcommand name.
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

// Splits "a,b,c" (trimming spaces; empty parts dropped).
std::vector<std::string> split_list(const std::string& s, char sep = ',');

}  // namespace precis::cli
