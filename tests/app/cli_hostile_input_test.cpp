// End to end: `precis` on hostile input, as an attacker or a clumsy user would run it.
// A FIFO, a symlink to /dev/zero, a 100 000-deep config.json, a 1 000 000-deep pickle and
// file names that are not UTF-8 each give one sentence on stderr and a non-zero exit,
// promptly and in little memory (each run's time and peak memory are printed); options
// are named as the user gave them; a batch reports every bad entry as FAILED.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>

#include "tests/support/fixtures.h"
#include "tests/support/hostile_inputs.h"

extern char** environ;

namespace precis::test {
namespace {

namespace fs = std::filesystem;

struct CliRun {
    int code = -1;
    bool timed_out = false;
    double seconds = 0;
    long peak_kib = 0;  // the child's peak resident memory
    std::string out, err;
};

std::string slurp(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
}

// Runs the real binary with `args` (bytes passed as they are), stdout and stderr captured,
// killed after `timeout` seconds. Time and peak memory come from wait4().
CliRun precis(const std::vector<std::string>& args, const std::vector<std::string>& env_extra = {}, double timeout = 60) {
    const fs::path dir = scratch_dir("cli-hostile-run");
    const std::string exe = (binary_dir() / "bin/precis").string();
    std::vector<std::string> argv_s{exe};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> env_s;
    for (char** e = environ; *e; ++e) env_s.emplace_back(*e);
    env_s.push_back("XDG_DATA_HOME=" + (dir / "data").string());
    env_s.push_back("OMP_WAIT_POLICY=PASSIVE");  // so precis does not re-exec itself
    env_s.push_back("PRECIS_MODEL=");
    env_s.insert(env_s.end(), env_extra.begin(), env_extra.end());
    std::vector<char*> envp;
    for (auto& e : env_s) envp.push_back(e.data());
    envp.push_back(nullptr);

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, (dir / "out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, (dir / "err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const auto start = std::chrono::steady_clock::now();
    pid_t pid = 0;
    CliRun r;
    if (posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv.data(), envp.data()) != 0) {
        ADD_FAILURE() << "cannot start " << exe;
        return r;
    }
    posix_spawn_file_actions_destroy(&fa);
    int status = 0;
    rusage ru{};
    while (wait4(pid, &status, WNOHANG, &ru) == 0) {
        if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > timeout) {
            r.timed_out = true;
            ::kill(pid, SIGKILL);
            wait4(pid, &status, 0, &ru);
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.peak_kib = ru.ru_maxrss;
    r.out = slurp(dir / "out");
    r.err = slurp(dir / "err");
    return r;
}

// A model folder the CLI can summarize with and that prints no test-model banner.
fs::path text_model(const std::string& name) {
    const fs::path dir = scratch_dir(name) / "model";
    fs::copy(fixtures_dir() / "models/bart-tiny-realvocab", dir, fs::copy_options::recursive);
    fs::copy_file(fixtures_dir() / "tokenizer/bart/tokenizer.json", dir / "tokenizer.json");
    return dir;
}

// One sentence on stderr naming `names`, a non-zero exit, promptly and in little memory.
void expect_one_clear_line(const std::string& label, const CliRun& r, const std::string& names, const std::string& says) {
    std::printf("[hostile input] %-28s exit %d, %.2f s, peak %.1f MB\n", label.c_str(), r.code, r.seconds,
                double(r.peak_kib) * 1024 / 1e6);
    EXPECT_FALSE(r.timed_out) << label;
    EXPECT_NE(r.code, 0) << label << ": " << r.err;
    EXPECT_NE(r.code, -1) << label << " did not exit normally: " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << label << ": " << r.err;
    EXPECT_NE(r.err.find(names), std::string::npos) << label << ": " << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << label << ": " << r.err;
    EXPECT_LT(r.seconds, 20.0) << label;  // loose: a loaded CI machine; typical runs take well under a second
    EXPECT_LT(r.peak_kib, 200 * 1024) << label;
}

TEST(CliHostileInput, FifoAndDevZeroDocumentsAreRefusedPromptly) {
    const fs::path model = text_model("cli-hostile-docs");
    const fs::path dir = scratch_dir("cli-hostile-docs-files");
    make_fifo(dir / "pipe.txt");
    fs::create_symlink("/dev/zero", dir / "zero.txt");
    expect_one_clear_line("FIFO document",
                          precis({"summarize", "--device", "cpu", "--model", model.string(), (dir / "pipe.txt").string()}),
                          "pipe.txt", "is a named pipe (FIFO), not a regular file");
    expect_one_clear_line("/dev/zero symlink document",
                          precis({"summarize", "--device", "cpu", "--model", model.string(), (dir / "zero.txt").string()}),
                          "zero.txt", "is a character device, not a regular file");
}

TEST(CliHostileInput, FifoModelFilesAreRefusedPromptly) {
    const fs::path doc = scratch_dir("cli-hostile-fifo-model-doc") / "doc.txt";
    write_file(doc, "A short document about rivers.");
    for (const char* file : {"config.json", "model.safetensors", "tokenizer.json"}) {
        const fs::path model = text_model(std::string("cli-hostile-fifo-") + file);
        make_fifo(model / file);
        expect_one_clear_line(std::string("FIFO ") + file,
                              precis({"summarize", "--device", "cpu", "--model", model.string(), doc.string()}), file,
                              "is a named pipe (FIFO), not a regular file");
    }
}

TEST(CliHostileInput, HundredThousandDeepConfigJsonIsRefused) {
    const fs::path model = text_model("cli-hostile-deep-config");
    write_file(model / "config.json", json_object_with_deep_value("d_model", 100000));
    const fs::path doc = model.parent_path() / "doc.txt";
    write_file(doc, "A short document about rivers.");
    expect_one_clear_line("100k-deep config.json",
                          precis({"summarize", "--device", "cpu", "--model", model.string(), doc.string()}),
                          "config.json", "more than 512 levels deep");
}

TEST(CliHostileInput, MillionDeepPickleIsRefused) {
    const fs::path model = text_model("cli-hostile-deep-pickle");
    fs::remove(model / "model.safetensors");
    write_file(model / "pytorch_model.bin", torch_zip(deep_list_pickle(1000000)));
    const fs::path doc = model.parent_path() / "doc.txt";
    write_file(doc, "A short document about rivers.");
    expect_one_clear_line("1M-deep pickle (stack)",
                          precis({"summarize", "--device", "cpu", "--model", model.string(), doc.string()}),
                          "pytorch_model.bin", "refusing to load it");
    write_file(model / "pytorch_model.bin", torch_zip(deep_marked_list_pickle(1000000)));
    expect_one_clear_line("1M-deep pickle (marks)",
                          precis({"summarize", "--device", "cpu", "--model", model.string(), doc.string()}),
                          "pytorch_model.bin", "nested more than 1000 levels deep");
}

TEST(CliHostileInput, NonUtf8FileNamesAreOpenedAndShownEscaped) {
    const fs::path model = text_model("cli-hostile-names");
    const fs::path dir = scratch_dir("cli-hostile-names-files");
    const std::string good = (dir / "caf\xE9.txt").string();
    write_file(good, "A short document about rivers and the towns along them.");
    CliRun ok = precis({"summarize", "--device", "cpu", "--max-length", "8", "--model", model.string(), good});
    std::printf("[hostile input] %-28s exit %d, %.2f s, peak %.1f MB\n", "non-UTF-8 name (valid doc)", ok.code,
                ok.seconds, double(ok.peak_kib) * 1024 / 1e6);
    EXPECT_EQ(ok.code, 0) << ok.err;
    EXPECT_FALSE(ok.out.empty());
    const std::string empty = (dir / "vide\xFF.txt").string();
    write_file(empty, "");
    expect_one_clear_line("non-UTF-8 name (empty doc)",
                          precis({"summarize", "--device", "cpu", "--model", model.string(), empty}), "vide\\xff.txt",
                          "is empty");
}

TEST(CliHostileInput, OptionErrorsNameTheOptionTheUserGave) {
    const fs::path model = text_model("cli-hostile-options");
    const fs::path doc = model.parent_path() / "doc.txt";
    write_file(doc, "A short document about rivers.");
    auto run = [&](std::vector<std::string> extra) {
        std::vector<std::string> args{"summarize", "--device", "cpu", "--model", model.string()};
        args.insert(args.end(), extra.begin(), extra.end());
        args.push_back(doc.string());
        return precis(args);
    };
    CliRun r = run({"--max-new-tokens", "-5"});
    expect_one_clear_line("--max-new-tokens -5", r, "--max-new-tokens", "must be at least 1, not -5");
    EXPECT_EQ(r.err.find("--max-length"), std::string::npos) << r.err;
    expect_one_clear_line("--max-length 1", run({"--max-length", "1"}), "--max-length", "at least one generated token");
    expect_one_clear_line("--max-positions 2000000000", run({"--max-positions", "2000000000"}), "--max-positions",
                          "must be between 1 and 16777216, not 2000000000");
    expect_one_clear_line("--fovea-wing 0", run({"--fovea-wing", "0"}), "--fovea-wing", "must be between 1 and 1024, not 0");
    expect_one_clear_line("--max-input-tokens -3", run({"--max-input-tokens", "-3"}), "--max-input-tokens",
                          "must be positive, not -3");
    expect_one_clear_line("--beams 100000", run({"--beams", "100000"}), "--beams", "must be between 1 and 1024");
    expect_one_clear_line("--block-size 1000000", run({"--attention", "lsg", "--block-size", "1000000"}), "block_size",
                          "must be at most 16384");
}

TEST(CliHostileInput, BatchReportsEveryHostileEntryAsFailedAndStoresTheRest) {
    const fs::path model = text_model("cli-hostile-batch");
    const fs::path dir = scratch_dir("cli-hostile-batch-docs");
    write_file(dir / "plain.txt", "A first document about rivers and the towns along them.");
    write_file(dir / "caf\xE9.txt", "A second document, named in Latin-1, about bridges.");
    write_file(dir / "caf\xE8.txt", "A third document, also named in Latin-1, about ferries.");
    make_fifo(dir / "pipe.txt");
    // A regular file whose read fails, for root too (root reads a chmod 000 file).
    fs::create_symlink("/proc/self/mem", dir / "unreadable.txt");
    if (::geteuid() != 0) {
        write_file(dir / "secret.txt", "no access");
        fs::permissions(dir / "secret.txt", fs::perms::none);
    }
    const std::string lib = (scratch_dir("cli-hostile-batch-lib") / "lib.sqlite").string();
    CliRun r = precis({"batch", dir.string(), "--device", "cpu", "--max-length", "8", "--model", model.string(), "--library", lib},
                   {}, 120);
    std::printf("[hostile input] %-28s exit %d, %.2f s, peak %.1f MB\n", "batch with hostile entries", r.code, r.seconds,
                double(r.peak_kib) * 1024 / 1e6);
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.err.find("FAILED  " + (dir / "pipe.txt").string()), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("is a named pipe (FIFO), not a regular file"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("FAILED  " + (dir / "unreadable.txt").string()), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("cannot be read: input/output error"), std::string::npos) << r.err;
    if (::geteuid() != 0) {
        EXPECT_NE(r.err.find("secret.txt\" cannot be read: permission denied"), std::string::npos) << r.err;
    }
    EXPECT_NE(r.err.find("done    " + (dir / "caf\\xe9.txt").string()), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("done    " + (dir / "caf\\xe8.txt").string()), std::string::npos) << r.err;
    CliRun list = precis({"library", "list", "--library", lib});
    ASSERT_EQ(list.code, 0) << list.err;
    EXPECT_EQ(std::count(list.out.begin(), list.out.end(), '\n'), 3) << list.out;  // every readable document
    EXPECT_NE(list.out.find("\tcaf\\xe9\t"), std::string::npos) << list.out;  // titles, escaped
    EXPECT_NE(list.out.find("\tcaf\\xe8\t"), std::string::npos) << list.out;
    // Each stored path is the exact file: `library show` names it escaped.
    std::string shown_paths;
    for (const char* id : {"1", "2", "3"}) shown_paths += precis({"library", "show", id, "--library", lib}).out;
    EXPECT_NE(shown_paths.find("file:     " + (dir / "caf\\xe9.txt").string() + "\n"), std::string::npos) << shown_paths;
    EXPECT_NE(shown_paths.find("file:     " + (dir / "caf\\xe8.txt").string() + "\n"), std::string::npos) << shown_paths;
}

}  // namespace
}  // namespace precis::test
