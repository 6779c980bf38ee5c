// precis bench --method extractive FILE... : how long the extractive summarizer takes and
// how much memory it needs, on the whole of each document and on its first quarter and
// half, so that growth with length shows. Each measurement runs in a child process of its
// own, so the peak resident memory reported is that run's alone; "before" is the child's
// peak after reading the file and before summarizing, so "peak - before" is what the
// summarizer itself needed.
#include <sys/resource.h>

#include <QCoreApplication>
#include <QProcess>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "app/cli/bench_extractive.h"
#include "app/cli/method_flags.h"
#include "app/extractive/extractive_summarizer.h"
#include "app/file_names.h"
#include "app/ingest/ingest.h"
#include "engine/core/error.h"

namespace precis::cli {

namespace {

const double kShares[] = {0.25, 0.5, 1.0};

double peak_rss_mb() {
    struct rusage ru {};
    getrusage(RUSAGE_SELF, &ru);
    return double(ru.ru_maxrss) * 1024.0 / 1e6;  // decimal megabytes
}

// The first `share` of the text, cut at a paragraph break.
QString prefix(const QString& text, double share) {
    if (share >= 1) return text;
    const qsizetype cut = qsizetype(double(text.size()) * share);
    const qsizetype paragraph = text.indexOf(QStringLiteral("\n\n"), cut);
    return text.left(paragraph < 0 ? cut : paragraph);
}

// In the child: one file, one share, `repeat` runs; one JSON line on stdout.
nlohmann::json measure_in_this_process(const std::string& file, double share, const extractive::ExtractiveOptions& options,
                                       int repeat) {
    const IngestedDocument doc = ingest_file(path_from_native(file));
    const QString text = prefix(doc.text, share);
    const double before = peak_rss_mb();
    std::vector<double> times;
    extractive::ExtractiveSummary summary;
    for (int r = 0; r < repeat; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        summary = extractive::summarize_extractive(text, options);
        times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    const double first = times.front();
    std::sort(times.begin(), times.end());
    return {{"file", file},
            {"share", share},
            {"characters", text.size()},
            {"words", summary.document_words},
            {"sentences", summary.document_sentences},
            {"sections", summary.sections},
            {"chosen_sentences", summary.sentences.size()},
            {"first_seconds", first},
            {"median_seconds", times[times.size() / 2]},
            {"repeat", repeat},
            {"peak_before_mb", before},
            {"peak_mb", peak_rss_mb()}};
}

nlohmann::json measure_in_child(const std::string& file, double share, const std::vector<std::string>& options) {
    QStringList argv{QStringLiteral("bench"), QStringLiteral("--method"), QStringLiteral("extractive"),
                     QStringLiteral("--child-share"), QString::number(share)};
    for (const std::string& o : options) argv << QString::fromStdString(o);
    argv << QString::fromStdString(file);
    QProcess child;
    child.start(QString::fromStdString(std::filesystem::read_symlink("/proc/self/exe").string()), argv);
    if (!child.waitForFinished(-1) || child.exitStatus() != QProcess::NormalExit || child.exitCode() != 0)
        throw Error("the extractive benchmark of " + file + " failed: " + child.readAllStandardError().trimmed().toStdString());
    return nlohmann::json::parse(child.readAllStandardOutput().toStdString());
}

}  // namespace

int bench_extractive(const Arguments& args) {
    if (args.positional().empty()) throw UsageError("precis bench --method extractive needs at least one FILE");
    const extractive::ExtractiveOptions options = extractive_from_flags(args);
    const int repeat = std::max(1, args.int_value("--repeat").value_or(5));
    if (auto share = args.double_value("--child-share")) {
        std::cout << measure_in_this_process(args.positional().at(0), *share, options, repeat).dump() << std::endl;
        return 0;
    }
    // What the children need to repeat of this command line.
    std::vector<std::string> passed{"--repeat", std::to_string(repeat)};
    for (const char* o : {"--sentences", "--words", "--ratio", "--position-weight", "--position-decay", "--redundancy", "--dialogue-factor"})
        if (auto v = args.value(o)) passed.insert(passed.end(), {o, *v});

    const bool json = args.flag("--json");
    nlohmann::json all = nlohmann::json::array();
    if (!json)
        std::printf("%-28s %6s %9s %8s %9s %7s %9s %9s %9s %9s\n", "document", "share", "chars", "words", "sentences",
                    "chosen", "first s", "median s", "before MB", "peak MB");
    for (const std::string& file : args.positional())
        for (double share : kShares) {
            const nlohmann::json j = measure_in_child(file, share, passed);
            all.push_back(j);
            if (json) continue;
            std::string name = std::filesystem::path(file).filename().string();
            if (name.size() > 28) name = name.substr(0, 27) + "~";
            std::printf("%-28s %5.0f%% %9lld %8d %9d %7d %9.3f %9.3f %9.1f %9.1f\n", name.c_str(), share * 100,
                        j["characters"].get<long long>(), j["words"].get<int>(), j["sentences"].get<int>(),
                        j["chosen_sentences"].get<int>(), j["first_seconds"].get<double>(),
                        j["median_seconds"].get<double>(), j["peak_before_mb"].get<double>(), j["peak_mb"].get<double>());
        }
    if (json) std::cout << all.dump(2) << "\n";
    return 0;
}

}  // namespace precis::cli
