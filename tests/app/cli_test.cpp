// The `precis` command line as scripts use it: exact output forms of tokenize and
// forward, summarize with the fallback model, batch on a mixed folder, and bad input
// giving one clear line and a non-zero exit.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "engine/io/safetensors.h"
#include "tests/support/fixture_case.h"
#include "tests/support/fixtures.h"

namespace precis::test {
namespace {

namespace fs = std::filesystem;

struct CliRun {
    int code = -1;
    std::string out, err;
};

CliRun precis(const std::string& args, const std::string& env = "") {
    const fs::path dir = scratch_dir("cli-run");
    const std::string cmd = env + " '" + (binary_dir() / "bin/precis").string() + "' " + args + " >'" +
                            (dir / "out").string() + "' 2>'" + (dir / "err").string() + "'";
    const int status = std::system(cmd.c_str());
    CliRun r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    auto slurp = [](const fs::path& p) {
        std::ifstream f(p);
        return std::string(std::istreambuf_iterator<char>(f), {});
    };
    r.out = slurp(dir / "out");
    r.err = slurp(dir / "err");
    return r;
}

std::string quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

const std::string kTok = (fixtures_dir() / "tokenizer/bart").string();

TEST(Cli, TokenizePrintsSpaceSeparatedIdsAndJson) {
    CliRun r = precis("tokenize --model " + kTok + " " + quote("Hello world"));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "0 31414 232 2\n");
    r = precis("tokenize --model " + kTok + " --json " + quote("Hello world"));
    EXPECT_EQ(r.out, "[0,31414,232,2]\n");
    r = precis("tokenize --model " + kTok + " --decode " + quote("31414 232"));
    EXPECT_EQ(r.out, "Hello world\n");
}

// A fixture's [rows, columns] id tensor as the JSON rows `precis forward --input` reads.
nlohmann::json id_rows(const Tensor& t) {
    const std::vector<int64_t> flat = t.to_int_vector();
    nlohmann::json j = nlohmann::json::array();
    for (int64_t r = 0; r < t.dim(0); ++r)
        j.push_back(std::vector<int64_t>(flat.begin() + r * t.dim(1), flat.begin() + (r + 1) * t.dim(1)));
    return j;
}

TEST(Cli, ForwardWritesTheFixtureTensorsForACase) {
    const FixtureCase c = FixtureCase::load("lsg-lsh");
    const fs::path dir = scratch_dir("cli-forward");
    nlohmann::json in;
    auto rows = [&](const std::string& name) { return id_rows(c.tensors.at(name)); };
    in["input_ids"] = rows("long.input_ids");
    in["attention_mask"] = rows("long.attention_mask");
    in["decoder_input_ids"] = rows("decoder_input_ids");
    std::ofstream(dir / "in.json") << in.dump();
    // The LSH projections go in as a safetensors file, as the fixtures store them.
    std::vector<std::pair<std::string, Tensor>> lsh;
    for (auto& n : c.manifest["lsh_R"]) lsh.emplace_back(n.get<std::string>(), c.tensors.at(n.get<std::string>()));
    write_safetensors(dir / "lsh.safetensors", lsh);
    CliRun r = precis("forward --model " + c.model_dir.string() + " --input " + (dir / "in.json").string() + " --out " +
                   (dir / "out.safetensors").string() + " --lsh-projections " + (dir / "lsh.safetensors").string() +
                   " --generate beam --beams 4 --length-penalty 2 --no-repeat-ngram 3 --min-length 5 --max-length 24 --early-stopping");
    ASSERT_EQ(r.code, 0) << r.err;
    auto out = read_safetensors(dir / "out.safetensors").tensors;
    for (const std::string name : {"logits", "encoder_last_hidden_state", "encoder_hidden_states.2", "beam.sequences"}) {
        ASSERT_TRUE(out.count(name)) << name;
        std::string why;
        EXPECT_LE(tolerance_excess(out.at(name).to_f32(), c.tensors.at("long." + name).to_f32(), 1e-4, 1e-4, &why), 0.0)
            << name << " " << why;
    }
    EXPECT_LE(tolerance_excess(out.at("beam.sequences_scores"), c.tensors.at("long.beam.sequences_scores"), 1e-4, 0), 0.0);
}

TEST(Cli, ForwardTakesAComputeTypeAndRejectsUnknownOnes) {
    const FixtureCase c = FixtureCase::load("bart-tiny");
    const fs::path dir = scratch_dir("cli-forward-compute");
    nlohmann::json in;
    auto rows = [&](const std::string& name) { return id_rows(c.tensors.at(name)); };
    in["input_ids"] = rows("main.input_ids");
    in["attention_mask"] = rows("main.attention_mask");
    in["decoder_input_ids"] = rows("decoder_input_ids");
    std::ofstream(dir / "in.json") << in.dump();
    const std::string base = "forward --model " + c.model_dir.string() + " --input " + (dir / "in.json").string() +
                             " --out " + (dir / "out.safetensors").string();
    for (const std::string type : {"int8", "fp16-weights"}) {
        CliRun r = precis(base + " --compute-type " + type);
        ASSERT_EQ(r.code, 0) << r.err;
        const Tensor logits = read_safetensors(dir / "out.safetensors").tensors.at("logits");
        std::string why;
        // fp16: the bound of compute_type_parity_test; int8: a few percent of the logits' scale
        // (~5; the worst element is off by 0.15-0.19, the mean by 0.024).
        const double tol = type == "int8" ? 0.25 : 1e-2;
        EXPECT_LE(tolerance_excess(logits.to_f32(), c.tensors.at("main.logits"), tol, tol, &why), 0.0) << type << why;
        EXPECT_GT(tolerance_excess(logits.to_f32(), c.tensors.at("main.logits"), 0, 0), 0.0) << type << ": not fp32";
    }
    CliRun r = precis(base + " --compute-type int4");
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("--compute-type must be fp32, int8 or fp16-weights"), std::string::npos) << r.err;
}

TEST(Cli, Int8WeightsAreCachedBesideTheModelAndTheNextRunMapsThem) {
    const FixtureCase c = FixtureCase::load("bart-tiny");
    const fs::path dir = scratch_dir("cli-weight-cache");
    const fs::path model = dir / "bart-tiny";
    fs::copy(c.model_dir, model, fs::copy_options::recursive);
    fs::permissions(model, fs::perms::owner_all, fs::perm_options::add);
    nlohmann::json in;
    in["input_ids"] = id_rows(c.tensors.at("main.input_ids"));
    in["attention_mask"] = id_rows(c.tensors.at("main.attention_mask"));
    in["decoder_input_ids"] = id_rows(c.tensors.at("decoder_input_ids"));
    std::ofstream(dir / "in.json") << in.dump();
    auto run = [&](const std::string& out) {
        return precis("forward --compute-type int8 --model " + model.string() + " --input " + (dir / "in.json").string() +
                          " --out " + (dir / out).string(),
                      "PRECIS_WEIGHT_CACHE=on XDG_CACHE_HOME=" + (dir / "cache").string());
    };
    const CliRun first = run("first.safetensors");
    ASSERT_EQ(first.code, 0) << first.err;
    EXPECT_NE(first.err.find("int8 weights cached in " + (model / ".precis-cache").string()), std::string::npos) << first.err;
    const CliRun second = run("second.safetensors");
    ASSERT_EQ(second.code, 0) << second.err;
    EXPECT_EQ(second.err.find("cached"), std::string::npos) << second.err;
    const Tensor a = read_safetensors(dir / "first.safetensors").tensors.at("logits");
    const Tensor b = read_safetensors(dir / "second.safetensors").tensors.at("logits");
    ASSERT_EQ(a.nbytes(), b.nbytes());
    EXPECT_EQ(std::memcmp(a.raw(), b.raw(), a.nbytes()), 0) << "the cached weights are the quantized ones, bit for bit";
}

TEST(Cli, ForwardWithoutAComputeTypeRunsFp32WhenTheModelFitsInFreeMemory) {
    const FixtureCase c = FixtureCase::load("bart-tiny");
    const fs::path dir = scratch_dir("cli-forward-auto");
    nlohmann::json in;
    in["input_ids"] = id_rows(c.tensors.at("main.input_ids"));
    in["attention_mask"] = id_rows(c.tensors.at("main.attention_mask"));
    in["decoder_input_ids"] = id_rows(c.tensors.at("decoder_input_ids"));
    std::ofstream(dir / "in.json") << in.dump();
    const std::string base = "forward --model " + c.model_dir.string() + " --input " + (dir / "in.json").string() +
                             " --out " + (dir / "out.safetensors").string();
    for (const std::string flag : {"", " --compute-type auto"}) {
        CliRun r = precis(base + flag);
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_EQ(r.err.find("int8"), std::string::npos) << "a tiny model fits: no notice, no int8\n" << r.err;
        const Tensor logits = read_safetensors(dir / "out.safetensors").tensors.at("logits");
        EXPECT_LE(tolerance_excess(logits.to_f32(), c.tensors.at("main.logits"), 1e-4, 1e-4), 0.0) << flag;
    }
}

TEST(Cli, BenchRunsEveryComputeTypeSideBySideWithRatiosToFp32) {
    CliRun r = precis("bench --shape tiny --attention full --lengths 64 --repeat 1 --new-tokens 4 --json");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto all = nlohmann::json::parse(r.out);
    ASSERT_EQ(all.size(), 3u);
    EXPECT_EQ(all[0]["compute_type"], "fp32");
    EXPECT_EQ(all[1]["compute_type"], "int8");
    EXPECT_EQ(all[2]["compute_type"], "fp16-weights");
    for (size_t i = 1; i < 3; ++i) {
        for (const char* k : {"encoder_speedup_vs_fp32", "greedy_speedup_vs_fp32", "beam4_speedup_vs_fp32",
                              "peak_memory_vs_fp32"})
            EXPECT_GT(all[i][k].get<double>(), 0.0) << k;
        EXPECT_LT(all[i]["linear_weights_mb"].get<double>(), all[0]["linear_weights_mb"].get<double>());
    }
    EXPECT_GT(all[0]["copy_bandwidth_gb_per_second"].get<double>(), 0.0);
}

TEST(Cli, BenchRoundsTakeEachRatioAgainstTheSameRoundsFp32AndReportTheMedian) {
    // fp32 listed last: ratios no longer depend on the order the types are named in.
    CliRun r = precis("bench --shape tiny --attention full --lengths 64 --repeat 1 --new-tokens 4 --rounds 3 "
                      "--compute-type int8,fp32 --json");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto all = nlohmann::json::parse(r.out);
    ASSERT_EQ(all.size(), 2u);
    const nlohmann::json& int8 = all[0];
    EXPECT_EQ(int8["compute_type"], "int8");
    EXPECT_EQ(int8["rounds"], 3);
    for (const char* k : {"encoder_speedup_vs_fp32", "greedy_speedup_vs_fp32", "beam4_speedup_vs_fp32",
                          "peak_memory_vs_fp32"}) {
        const auto per_round = int8[std::string(k) + "_rounds"].get<std::vector<double>>();
        ASSERT_EQ(per_round.size(), 3u) << k;
        std::vector<double> sorted = per_round;
        std::sort(sorted.begin(), sorted.end());
        EXPECT_EQ(int8[k].get<double>(), sorted[1]) << k << ": the median of the rounds";
    }
    EXPECT_FALSE(all[1].contains("greedy_speedup_vs_fp32"));

    CliRun text = precis("bench --shape tiny --attention full --lengths 64 --repeat 1 --new-tokens 4 --rounds 2 "
                         "--compute-type fp32,int8");
    ASSERT_EQ(text.code, 0) << text.err;
    EXPECT_NE(text.out.find("int8 vs fp32 (medians of 2 rounds, range): encoder x"), std::string::npos) << text.out;

    EXPECT_NE(precis("bench --shape tiny --lengths 64 --rounds 0").code, 0);
}

TEST(Cli, SummarizeWithoutAModelGivesAnExtractiveSummaryNeverTheTestModel) {
    const fs::path dir = scratch_dir("cli-summarize");
    std::ofstream(dir / "doc.txt") << "The harbour was quiet. Boats rocked at their moorings while gulls circled the harbour.\n"
                                      "A storm reached the harbour at night and tore two boats from their moorings.\n"
                                      "By morning the harbour master counted the damage to the boats.\n";
    CliRun r = precis("summarize --json --sentences 2 " + (dir / "doc.txt").string(),
                      "XDG_DATA_HOME=" + (dir / "data").string() + " HF_HOME=" + (dir / "hf").string() + " PRECIS_MODEL=");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err.find("MEANINGLESS"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("extractive summary"), std::string::npos) << r.err;
    nlohmann::json j = nlohmann::json::parse(r.out);
    for (const char* key : {"file", "summary", "summary_ids", "input_tokens", "truncated", "seconds", "device"})
        EXPECT_TRUE(j.contains(key)) << key;
    EXPECT_EQ(j["method"], "extractive");
    EXPECT_EQ(j["sentences"].size(), 2u);
    EXPECT_NE(j["summary"].get<std::string>().find("harbour"), std::string::npos);
    EXPECT_EQ(j["device"], "cpu");
}

// Without a model the extractive notice is said with a summary, not before an error about
// the input: a missing file gets its one line and nothing else.
TEST(Cli, AMissingFileIsOneLineWithoutTheExtractiveNotice) {
    const fs::path dir = scratch_dir("cli-summarize-missing");
    CliRun r = precis("summarize " + (dir / "no-such-file.txt").string(),
                      "XDG_DATA_HOME=" + (dir / "data").string() + " HF_HOME=" + (dir / "hf").string() + " PRECIS_MODEL=");
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("no-such-file.txt"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("no summarization model is installed"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.out, "");
}

TEST(Cli, NeuralWithoutAModelSaysHowToGetOne) {
    const fs::path dir = scratch_dir("cli-summarize-neural");
    std::ofstream(dir / "doc.txt") << "One sentence about a harbour.\n";
    CliRun r = precis("summarize --method neural " + (dir / "doc.txt").string(),
                      "XDG_DATA_HOME=" + (dir / "data").string() + " HF_HOME=" + (dir / "hf").string() + " PRECIS_MODEL=");
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("no summarization model is installed"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
}

TEST(Cli, TheTestModelRunsOnlyWhenNamedAndThenWarnsLoudly) {
    const fs::path dir = scratch_dir("cli-summarize-test-model");
    std::ofstream(dir / "doc.txt") << "The harbour was quiet. Boats rocked at their moorings while gulls circled.\n";
    const fs::path test_model = fixtures_dir() / "models/bart-tiny-realvocab";
    CliRun r = precis("summarize --json --max-length 12 --model " + test_model.string() + " " + (dir / "doc.txt").string(),
                      "XDG_DATA_HOME=" + (dir / "data").string() + " HF_HOME=" + (dir / "hf").string() + " PRECIS_MODEL=");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("MEANINGLESS"), std::string::npos) << r.err;
    nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["method"], "neural");
    EXPECT_EQ(j["summary_ids"][0], 2);
    EXPECT_TRUE(j["test_model"].get<bool>());
}

// Several files for a model are summarized together (engine/generate/document_batch.h):
// each printed in the files' order, each the summary it gets alone, a bad file reported
// in its place while the others still run, and a failure exit.
TEST(Cli, SeveralFilesAreSummarizedTogetherEachAsAloneInTheirOrder) {
    const fs::path dir = scratch_dir("cli-summarize-together");
    std::ofstream(dir / "a.txt") << "The harbour was quiet. Boats rocked at their moorings while gulls circled.\n";
    std::ofstream(dir / "b.txt") << "Rivers shape valleys. Floods spread silt over the plain, and farmers valued it.\n";
    std::ofstream(dir / "d.txt") << "Bread needs flour, water and salt. Time does the rest of the work in the oven.\n";
    const std::string env =
        "XDG_DATA_HOME=" + (dir / "data").string() + " HF_HOME=" + (dir / "hf").string() + " PRECIS_MODEL=";
    const std::string run = "summarize --json --max-length 12 --batch-size 2 --model " +
                            (fixtures_dir() / "models/bart-tiny-realvocab").string() + " ";
    CliRun together = precis(run + (dir / "a.txt").string() + " " + (dir / "b.txt").string() + " " +
                                 (dir / "missing.txt").string() + " " + (dir / "d.txt").string(),
                             env);
    EXPECT_EQ(together.code, 1) << together.err;
    EXPECT_NE(together.err.find("missing.txt"), std::string::npos) << together.err;
    std::istringstream lines(together.out);
    std::vector<nlohmann::json> out;
    for (std::string line; std::getline(lines, line);) out.push_back(nlohmann::json::parse(line));
    ASSERT_EQ(out.size(), 3u) << together.out;
    const char* names[] = {"a.txt", "b.txt", "d.txt"};
    for (size_t i = 0; i < 3; ++i) {
        SCOPED_TRACE(names[i]);
        EXPECT_NE(out[i]["file"].get<std::string>().find(names[i]), std::string::npos);
        CliRun alone = precis(run + (dir / names[i]).string(), env);
        ASSERT_EQ(alone.code, 0) << alone.err;
        EXPECT_EQ(out[i]["summary_ids"], nlohmann::json::parse(alone.out)["summary_ids"]);
    }
}

TEST(Cli, EvalScoresExtractiveSummariesOfTheDocuments) {
    const fs::path dir = scratch_dir("cli-eval-extractive");
    {
        std::ofstream f(dir / "pairs.jsonl");
        f << nlohmann::json{{"id", "a"},
                            {"article", "The river flooded the town. Residents fled the flooded town at night. A cat slept."},
                            {"reference", "The river flooded the town."}}
                 .dump()
          << "\n"
          << nlohmann::json{{"id", "b"},
                            {"article", "Bridges need repair. The old bridge over the river needs repair soon."},
                            {"reference", "The old bridge needs repair."}}
                 .dump()
          << "\n";
    }
    CliRun r = precis("eval --method extractive --sentences 1 --json --input " + (dir / "pairs.jsonl").string() +
                          " --output " + (dir / "out.jsonl").string(),
                      "XDG_DATA_HOME=" + (dir / "data").string() + " HF_HOME=" + (dir / "hf").string() + " PRECIS_MODEL=");
    ASSERT_EQ(r.code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["count"], 2);
    EXPECT_GT(j["rouge1"]["fmeasure"].get<double>(), 0.5);
    std::ifstream out(dir / "out.jsonl");
    std::string line;
    ASSERT_TRUE(std::getline(out, line));
    EXPECT_EQ(nlohmann::json::parse(line)["candidate"], "The river flooded the town.");
}

TEST(Cli, ExtractiveLengthOptionsAreCheckedAndExclusive) {
    const fs::path dir = scratch_dir("cli-summarize-lengths");
    std::ofstream(dir / "doc.txt") << "A sentence about rivers. Another about bridges.\n";
    const std::string env = "XDG_DATA_HOME=" + (dir / "data").string() + " HF_HOME=" + (dir / "hf").string() + " PRECIS_MODEL=";
    struct Case {
        std::string args, must_name;
    } cases[] = {
        {"--sentences 0", "--sentences"},
        {"--ratio 1.5", "--ratio"},
        {"--words 10 --sentences 2", "--sentences"},
        {"--method summary", "--method"},
        {"--method neural --words 10", "--words"},
    };
    for (const Case& c : cases) {
        CliRun r = precis("summarize " + c.args + " " + (dir / "doc.txt").string(), env);
        EXPECT_NE(r.code, 0) << c.args;
        EXPECT_NE(r.err.find(c.must_name), std::string::npos) << c.args << " -> " << r.err;
    }
}

TEST(Cli, BadInputGivesOneClearLineNamingTheFileAndANonZeroExit) {
    const fs::path dir = scratch_dir("cli-bad");
    std::ofstream(dir / "empty.txt") << "   \n";
    std::ofstream(dir / "bad.json") << "{not json";
    struct Case {
        std::string args, must_name;
    } cases[] = {
        {"summarize " + (dir / "empty.txt").string(), "empty.txt"},
        {"summarize " + (dir / "missing.txt").string(), "missing.txt"},
        {"inspect " + (dir / "no-model").string(), "no-model"},
        {"forward --model " + (fixtures_dir() / "models/bart-tiny").string() + " --input " + (dir / "bad.json").string() +
             " --out " + (dir / "o.safetensors").string(),
         "bad.json"},
        {"tokenize --model " + (dir / "nothing-here").string() + " hi", "nothing-here"},
        {"summarize --beams zero x.txt", "--beams"},
        {"summarize --method extractive --max-length 60 x.txt", "--max-length"},
    };
    for (const Case& c : cases) {
        CliRun r = precis(c.args, "XDG_DATA_HOME=" + (dir / "data").string());
        EXPECT_NE(r.code, 0) << c.args;
        EXPECT_NE(r.err.find(c.must_name), std::string::npos) << c.args << " -> " << r.err;
        EXPECT_EQ(r.err.find("terminate called"), std::string::npos) << r.err;
    }
}

// A terminal's Ctrl-C goes to its whole foreground process group. While a PDF is being
// read, the run ends at once as cancelled (130), not as a "damaged" file: the reader is
// out of the group's reach, and Precis kills it. The reader here never answers.
TEST(Cli, CtrlCWhileAPdfIsReadEndsTheRunAndTheReaderAtOnce) {
    const fs::path dir = scratch_dir("cli-ctrl-c-pdf");
    const fs::path pid_file = dir / "reader.pid";
    const fs::path reader = dir / "silent-reader.sh";
    std::ofstream(reader) << "#!/bin/sh\necho $$ > '" << pid_file.string() << "'\nexec sleep 600\n";
    fs::permissions(reader, fs::perms::owner_all);
    std::ofstream(dir / "report.pdf") << "%PDF-1.4\n";  // never read: the reader is silent
    const std::string binary = (binary_dir() / "bin/precis").string();
    const std::string pdf = (dir / "report.pdf").string();
    const std::string err = (dir / "err").string();
    const pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);  // a group of its own, as a shell gives a foreground job
        setenv("PRECIS_PDF_READER", reader.c_str(), 1);
        setenv("XDG_DATA_HOME", (dir / "data").c_str(), 1);
        freopen(err.c_str(), "w", stderr);
        execl(binary.c_str(), binary.c_str(), "summarize", pdf.c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    setpgid(pid, pid);
    pid_t reader_pid = 0;
    for (int i = 0; i < 3000 && reader_pid == 0; ++i) {  // up to 30 s for the reader to start
        std::ifstream f(pid_file);
        f >> reader_pid;
        if (reader_pid == 0) usleep(10000);
    }
    ASSERT_GT(reader_pid, 0) << "the reader never started";
    const auto signalled = std::chrono::steady_clock::now();
    kill(-pid, SIGINT);  // the whole group, as the terminal does
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_LT(std::chrono::steady_clock::now() - signalled, std::chrono::seconds(10));
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 130) << "status " << status;
    std::ifstream f(err);
    const std::string said(std::istreambuf_iterator<char>(f), {});
    EXPECT_EQ(said.find("damaged"), std::string::npos) << said;
    EXPECT_TRUE(kill(reader_pid, 0) == -1 && errno == ESRCH) << "reader " << reader_pid << " still runs";
}

TEST(Cli, BatchStoresGoodFilesReportsBadOnesAndResumesWithoutDuplicates) {
    const fs::path dir = scratch_dir("cli-batch");
    fs::create_directories(dir / "docs/sub");
    std::ofstream(dir / "docs/a.txt") << "A first document about rivers and the towns along them.";
    std::ofstream(dir / "docs/b.md") << "# Notes\n\nA second document, in Markdown, about bridges.";
    std::ofstream(dir / "docs/sub/c.txt") << "A third document in a sub folder, about ferries.";
    std::ofstream(dir / "docs/empty.txt") << "";
    std::ofstream(dir / "docs/broken.pdf") << "%PDF-1.4 this is not really a pdf";
    const std::string env = "XDG_DATA_HOME=" + (dir / "data").string() + " HF_HOME=" + (dir / "hf").string() + " PRECIS_MODEL=";
    const std::string lib = (dir / "lib.sqlite").string();
    CliRun r = precis("batch " + (dir / "docs").string() + " --recursive --library " + lib, env);
    EXPECT_EQ(r.code, 1) << r.err;  // some files failed
    EXPECT_NE(r.err.find("empty.txt"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("broken.pdf"), std::string::npos) << r.err;
    CliRun list = precis("library list --library " + lib, env);
    ASSERT_EQ(list.code, 0) << list.err;
    EXPECT_EQ(std::count(list.out.begin(), list.out.end(), '\n'), 3) << list.out;
    // Each summary shows the source passages it was stored with.
    CliRun show = precis("library show 1 --library " + lib, env);
    ASSERT_EQ(show.code, 0) << show.err;
    EXPECT_NE(show.out.find("  source "), std::string::npos) << show.out;
    // Running again resumes: nothing left to do, nothing duplicated.
    CliRun again = precis("batch " + (dir / "docs").string() + " --recursive --library " + lib, env);
    EXPECT_NE(again.err.find("resumed"), std::string::npos) << again.err;
    CliRun list2 = precis("library list --library " + lib, env);
    EXPECT_EQ(list2.out, list.out);
}

}  // namespace
}  // namespace precis::test

#include "tests/support/test_models.h"

namespace precis::test {
namespace {

TEST(Cli, ClassifyJsonListsEveryLabelWithScoresAndThePrediction) {
    const fs::path model = make_classifier("cli-nli", {{"0", "contradiction"}, {"1", "neutral"}, {"2", "entailment"}}, "");
    // The fixture tokenizer lives apart from the weights: copy its files in.
    for (const char* f : {"tokenizer.json"})
        fs::copy_file(fixtures_dir() / "tokenizer/bart" / f, model / f);
    const fs::path dir = scratch_dir("cli-classify");
    std::ofstream(dir / "doc.txt") << "The orchestra tuned their instruments before the concert began.";
    CliRun r = precis("classify --json --model " + model.string() + " --labels " + quote("music, sport, cooking") + " " +
                   (dir / "doc.txt").string());
    ASSERT_EQ(r.code, 0) << r.err;
    nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["zero_shot"], true);
    ASSERT_EQ(j["scores"].size(), 3u);
    float sum = 0;
    for (auto& s : j["scores"]) sum += s["score"].get<float>();
    EXPECT_NEAR(sum, 1.0, 1e-4);
    ASSERT_EQ(j["predicted"].size(), 1u);
    EXPECT_EQ(j["predicted"][0], j["scores"][0]["label"]);
    CliRun multi = precis("classify --json --multi-label --threshold 0 --model " + model.string() + " --labels " +
                       quote("music, sport") + " " + (dir / "doc.txt").string());
    ASSERT_EQ(multi.code, 0) << multi.err;
    EXPECT_EQ(nlohmann::json::parse(multi.out)["predicted"].size(), 2u);
    // The same model cannot summarize: one sentence naming what it is, and a failure exit.
    CliRun summarize = precis("summarize --model " + model.string() + " " + (dir / "doc.txt").string());
    EXPECT_EQ(summarize.code, 1);
    EXPECT_NE(summarize.err.find("is a zero-shot classification model"), std::string::npos) << summarize.err;
    EXPECT_EQ(summarize.out, "");
}


TEST(Cli, LibraryListByLabelShowsOnlyDocumentsPredictedAsThatLabel) {
    const fs::path model = make_classifier("cli-nli-store", {{"0", "contradiction"}, {"1", "neutral"}, {"2", "entailment"}}, "");
    fs::copy_file(fixtures_dir() / "tokenizer/bart/tokenizer.json", model / "tokenizer.json");
    const fs::path dir = scratch_dir("cli-classify-store");
    std::ofstream(dir / "doc.txt") << "The orchestra tuned their instruments before the concert began.";
    const std::string lib = (dir / "lib.sqlite").string();
    CliRun r = precis("classify --json --store --library " + lib + " --model " + model.string() + " --labels " +
                      quote("music, sport") + " " + (dir / "doc.txt").string());
    ASSERT_EQ(r.code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    const std::string predicted = j["predicted"][0].get<std::string>();
    const std::string other = predicted == "music" ? "sport" : "music";
    // Both labels were scored and stored; only the predicted one lists the document.
    CliRun listed = precis("library list --library " + lib + " --label " + predicted);
    ASSERT_EQ(listed.code, 0) << listed.err;
    EXPECT_NE(listed.out.find("doc"), std::string::npos) << listed.out;
    CliRun not_listed = precis("library list --library " + lib + " --label " + other);
    ASSERT_EQ(not_listed.code, 0) << not_listed.err;
    EXPECT_EQ(not_listed.out, "") << not_listed.out;
    // The plain list shows the labels the document was given, not every one scored.
    CliRun all = precis("library list --library " + lib);
    ASSERT_EQ(all.code, 0) << all.err;
    EXPECT_NE(all.out.find("[" + predicted + "]"), std::string::npos) << all.out;
    EXPECT_EQ(all.out.find(other), std::string::npos) << all.out;
}

// `library export ID` is a document's summaries, all of them, as its help says.
TEST(Cli, LibraryExportGivesEverySummaryOfTheDocument) {
    const fs::path dir = scratch_dir("cli-export");
    fs::create_directories(dir / "docs");
    std::ofstream(dir / "docs/a.txt") << "The harbour was quiet. Boats rocked at their moorings while gulls circled.\n"
                                         "A storm reached the harbour at night and tore two boats from their moorings.\n"
                                         "By morning the harbour master counted the damage to the boats.\n";
    const std::string env = "XDG_DATA_HOME=" + (dir / "data").string() + " HF_HOME=" + (dir / "hf").string() + " PRECIS_MODEL=";
    const std::string lib = (dir / "lib.sqlite").string();
    // Two summaries of one document: two lengths are two settings.
    ASSERT_EQ(precis("batch " + (dir / "docs").string() + " --sentences 1 --library " + lib, env).code, 0);
    ASSERT_EQ(precis("batch " + (dir / "docs").string() + " --sentences 2 --library " + lib, env).code, 0);
    CliRun md = precis("library export 1 --library " + lib, env);
    ASSERT_EQ(md.code, 0) << md.err;
    EXPECT_NE(md.out.find("\n---\n"), std::string::npos) << md.out;
    CliRun json = precis("library export 1 --format json --library " + lib, env);
    ASSERT_EQ(json.code, 0) << json.err;
    const nlohmann::json j = nlohmann::json::parse(json.out);
    ASSERT_TRUE(j.is_array());
    EXPECT_EQ(j.size(), 2u);
    CliRun missing = precis("library export 7 --library " + lib, env);
    EXPECT_EQ(missing.code, 1);
    EXPECT_NE(missing.err.find("has no document 7"), std::string::npos) << missing.err;
}
}  // namespace
}  // namespace precis::test
