#pragma once
// Runs `precis WORDS...` inside the test process (cli::run_cli) and captures what it
// printed: quicker than a child process where a test makes many calls.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "app/cli/commands.h"

namespace precis::test {

struct CliResult {
    int code = -1;
    std::string out, err;
};

inline CliResult run_cli_in_process(std::vector<std::string> words) {
    words.insert(words.begin(), "precis");
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    testing::internal::CaptureStdout();
    testing::internal::CaptureStderr();
    CliResult r;
    r.code = cli::run_cli(int(argv.size()), argv.data());
    r.out = testing::internal::GetCapturedStdout();
    r.err = testing::internal::GetCapturedStderr();
    return r;
}

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace precis::test
