#pragma once
// One function per `precis` subcommand; each returns the process exit code and throws
// precis::Error for anything the user should read (printed by run_cli as one line).
#include <string>
#include <vector>

namespace precis::cli {

using Args = std::vector<std::string>;

int run_cli(int argc, char** argv);  // dispatches; argv[1] is the subcommand
bool is_command(const std::string& word);  // a subcommand, help or --version

int cmd_summarize(const Args& args);
int cmd_classify(const Args& args);
int cmd_tokenize(const Args& args);
int cmd_forward(const Args& args);
int cmd_inspect(const Args& args);
int cmd_bench(const Args& args);
int cmd_convert(const Args& args);
int cmd_batch(const Args& args);
int cmd_library(const Args& args);
int cmd_cluster(const Args& args);
int cmd_eval(const Args& args);
int cmd_model(const Args& args);

std::string version_text();

}  // namespace precis::cli
