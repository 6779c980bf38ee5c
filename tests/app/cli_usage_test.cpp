// `precis COMMAND --help` and unknown options, for every command and subcommand: help
// prints that command's own usage and exits 0 before doing any work; an option the
// command does not take is refused with one sentence naming it and the command, exit 2.
// Runs the command line in-process (run_cli), as main() does after its checks.
#include <gtest/gtest.h>

#include <sstream>

#include "app/cli/commands.h"
#include "app/cli/usage.h"
#include "kernels/device_query.h"
#include "tests/app/in_process_cli.h"

namespace precis::test {
namespace {

CliResult run(const std::string& words) {
    std::vector<std::string> parts;
    std::istringstream in(words);
    for (std::string w; in >> w;) parts.push_back(w);
    return run_cli_in_process(std::move(parts));
}

TEST(CliUsage, EveryCommandAndSubcommandPrintsItsOwnUsageForHelpAndH) {
    const std::vector<std::string> commands = cli::commands_with_usage();
    ASSERT_GE(commands.size(), 20u);
    for (const std::string& command : commands) {
        for (const char* help : {"--help", "-h"}) {
            const CliResult r = run(command + " " + help);
            EXPECT_EQ(r.code, 0) << command << " " << help << ": " << r.err;
            EXPECT_TRUE(r.err.empty()) << command << " " << help << ": " << r.err;
            EXPECT_EQ(r.out.rfind("usage: precis " + command + " ", 0), 0u) << command << ": " << r.out;
            EXPECT_EQ(r.out, *cli::command_usage(command)) << command;
        }
    }
}

TEST(CliUsage, EveryTopLevelCommandHasAUsage) {
    for (const char* command :
         {"summarize", "classify", "batch", "library", "convert", "tokenize", "forward", "inspect", "bench", "eval", "model"}) {
        EXPECT_TRUE(cli::is_command(command)) << command;
        EXPECT_TRUE(cli::command_usage(command).has_value()) << command;
    }
}

TEST(CliUsage, HelpAfterOtherArgumentsStillPrintsUsageWithoutRunning) {
    // The file does not exist and no model is given: help wins before any work starts.
    CliResult r = run("summarize /no/such/file.pdf --beams 3 --help");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "usage: precis summarize FILE...")) << r.out;
    r = run("library --library /no/such/dir/lib.sqlite export 3 -h");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "usage: precis library export ID")) << r.out;
}

TEST(CliUsage, VersionSaysWhichGpusTheBuildCarriesCodeFor) {
    const CliResult r = run("--version");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "backends: cpu")) << r.out;
    if (cuda::compiled_with_cuda()) {
        EXPECT_TRUE(contains(r.out, "machine code for ")) << r.out;
        EXPECT_TRUE(contains(r.out, "; PTX ")) << r.out;
    }
}

TEST(CliUsage, HelpCommandNamesATopic) {
    CliResult r = run("help model download");
    EXPECT_EQ(r.code, 0);
    EXPECT_EQ(r.out, *cli::command_usage("model download"));
    r = run("help frobnicate");
    EXPECT_EQ(r.code, 2);
    EXPECT_TRUE(contains(r.err, "no command 'frobnicate'")) << r.err;
    r = run("help");
    EXPECT_EQ(r.code, 0);
    EXPECT_TRUE(contains(r.out, "COMMAND --help")) << r.out;
}

TEST(CliUsage, EveryCommandRefusesAnUnknownOptionNamingItAndTheCommand) {
    for (const std::string& command : cli::commands_with_usage()) {
        const CliResult r = run(command + " --no-such-option");
        EXPECT_EQ(r.code, 2) << command << ": " << r.err;
        EXPECT_TRUE(r.out.empty()) << command << ": " << r.out;
        EXPECT_EQ(r.err, "precis: unknown option --no-such-option for precis " + command + " (see precis " + command +
                             " --help)\n")
            << command;
    }
}

TEST(CliUsage, EveryCommandRefusesAnUnknownShortOption) {
    for (const std::string& command : cli::commands_with_usage()) {
        const CliResult r = run(command + " -q");
        EXPECT_EQ(r.code, 2) << command << ": " << r.err;
        EXPECT_TRUE(contains(r.err, "unknown option -q for precis " + command)) << command << ": " << r.err;
    }
}

TEST(CliUsage, LibraryListRefusesJsonInsteadOfIgnoringIt) {
    const CliResult r = run("library list --json");
    EXPECT_EQ(r.code, 2);
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_TRUE(contains(r.err, "unknown option --json for precis library list")) << r.err;
}

TEST(CliUsage, AnOptionOfAnotherSubcommandIsRefused) {
    // --format belongs to export, --json to model list: each other subcommand refuses them.
    CliResult r = run("library show 1 --format md");
    EXPECT_EQ(r.code, 2);
    EXPECT_TRUE(contains(r.err, "unknown option --format for precis library show")) << r.err;
    r = run("model remove tiny --json");
    EXPECT_EQ(r.code, 2);
    EXPECT_TRUE(contains(r.err, "unknown option --json for precis model remove")) << r.err;
}

TEST(CliUsage, AMissingOptionValueIsAUsageError) {
    const CliResult r = run("tokenize --model");
    EXPECT_EQ(r.code, 2);
    EXPECT_TRUE(contains(r.err, "option --model of precis tokenize needs a value")) << r.err;
}

// A command that needs files and gets none is a usage error (exit 2, as an unknown option),
// not a failed run (exit 1).
TEST(CliUsage, ACommandWithoutItsFilesIsAUsageError) {
    for (const std::string cmd : {"summarize", "classify"}) {
        SCOPED_TRACE(cmd);
        const CliResult r = run(cmd);
        EXPECT_EQ(r.code, 2);
        EXPECT_TRUE(contains(r.err, "precis " + cmd + " needs at least one FILE")) << r.err;
    }
}

}  // namespace
}  // namespace precis::test
