// precis model catalog|download|list|remove|default: the curated catalog, downloads from
// the HuggingFace Hub (app/models/hub_download.h), the installed and HuggingFace-cached
// models, and the default model.
#include <unistd.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <iostream>

#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "app/cli/progress.h"
#include "app/models/catalog.h"
#include "app/models/hub_download.h"
#include "app/models/hub_environment.h"
#include "app/models/model_store.h"
#include "app/paths.h"
#include "engine/core/error.h"

namespace precis::cli {

namespace {

using namespace precis::models;

std::string cell(const QString& text, int width) { return text.leftJustified(width).toStdString() + " "; }

int model_catalog(const Arguments& args) {
    const auto entries = load_catalog();
    std::vector<ModelInfo> installed = installed_models();
    auto is_installed = [&](const CatalogEntry& e) {
        for (const ModelInfo& m : installed)
            if (m.repo == e.repo) return true;
        for (const ModelInfo& m : cached_models())
            if (m.repo == e.repo) return true;
        return false;
    };
    if (args.flag("--json")) {
        QJsonArray a;
        for (const CatalogEntry& e : entries)
            a.append(QJsonObject{{"repo", e.repo}, {"revision", e.revision}, {"task", e.task}, {"good_for", e.good_for},
                                 {"input_tokens", e.input_tokens}, {"attention", e.attention},
                                 {"approx_bytes", double(e.approx_bytes())}, {"licence", e.licence}, {"rouge", e.rouge},
                                 {"offer_lsg_conversion", e.offer_lsg_conversion}, {"recommended", e.recommended},
                                 {"installed", is_installed(e)}});
        std::cout << QJsonDocument(a).toJson(QJsonDocument::Compact).toStdString() << "\n";
        return 0;
    }
    std::cout << cell("REPO", 36) << cell("TASK", 16) << cell("INPUT", 6) << cell("SIZE", 8) << cell("LICENCE", 11)
              << "GOOD FOR\n";
    for (const CatalogEntry& e : entries) {
        std::cout << cell(e.repo, 36) << cell(e.task, 16) << cell(QString::number(e.input_tokens), 6)
                  << cell(e.params_millions ? "~" + format_bytes(e.approx_bytes()) : QStringLiteral("?"), 8)
                  << cell(e.licence.isEmpty() ? QStringLiteral("see card") : e.licence, 11) << e.good_for.toStdString();
        if (e.recommended) std::cout << " [recommended]";
        if (is_installed(e)) std::cout << " [installed]";
        std::cout << "\n";
        if (!e.rouge.isEmpty()) std::cout << std::string(37, ' ') << "ROUGE " << e.rouge.toStdString() << "\n";
        if (e.offer_lsg_conversion)
            std::cout << std::string(37, ' ') << "long input: precis model download " << e.repo.toStdString()
                      << " --convert-lsg " << e.offer_lsg_conversion << "\n";
    }
    std::cout << "\nDownload one with: precis model download REPO (sizes are approximate; licences as the model "
                 "cards state them)\n";
    return 0;
}

std::string progress_text(const std::string& repo, const DownloadProgress& p) {
    if (p.stage == DownloadStage::Listing) return "downloading " + repo + ": asking for the file list";
    if (p.stage == DownloadStage::Converting) return "converting " + repo + " to LSG";
    std::string t = "downloading " + repo + ": " + format_bytes(p.done).toStdString() + " of " +
                    format_bytes(p.total).toStdString();
    if (p.bytes_per_second > 0)
        t += ", " + format_bytes(qint64(p.bytes_per_second)).toStdString() + "/s, " +
             format_duration(p.seconds_left).toStdString() + " left";
    if (!p.file.isEmpty()) t += " (" + p.file.toStdString() + ")";
    return t;
}

int model_download(const Arguments& args) {
    if (args.positional().size() != 2) throw Error("precis model download needs exactly one REPO (owner/name)");
    DownloadRequest req;
    req.repo = QString::fromStdString(args.positional()[1]);
    if (!req.repo.contains('/')) {  // a catalog name ("bart-large-cnn")
        for (const CatalogEntry& e : load_catalog())
            if (e.name() == req.repo) req.repo = e.repo;
    }
    req.revision = QString::fromStdString(args.value_or("--revision", "main"));
    req.name = QString::fromStdString(args.value_or("--name", ""));
    if (auto n = args.int_value("--convert-lsg")) {
        if (*n < 1024 || *n % 64) throw Error("--convert-lsg must be a multiple of 64 of at least 1024, not " + std::to_string(*n));
        req.convert_lsg = *n;
    }
    const std::string repo = req.repo.toStdString();
    DownloadCallbacks cb;
    cb.should_abort = [] { return cancel_requested(); };
    // A terminal gets a line redrawn in place; a log gets a line at every tenth of the way.
    int tenths_shown = 0;
    cb.progress = [&](const DownloadProgress& p) {
        if (isatty(2)) return progress_line(progress_text(repo, p));
        if (p.stage != DownloadStage::Downloading || p.total <= 0) return;
        const int tenths = int(10 * p.done / p.total);
        if (tenths > tenths_shown && tenths < 10) {
            tenths_shown = tenths;
            std::cerr << "precis: " << progress_text(repo, p) << "\n";
        }
    };
    DownloadResult r;
    try {
        r = download_model(req, cb);
    } catch (const Cancelled&) {
        progress_done();
        std::cerr << "precis: download of " << repo
                  << " cancelled: nothing was installed; the same command resumes where it stopped\n";
        return 130;
    }
    progress_done();
    const double rate = r.seconds > 0 ? double(r.bytes_fetched) / r.seconds : 0;
    std::cerr << "precis: downloaded " << repo << " (commit " << r.commit.left(10).toStdString() << ", " << r.files
              << " files, " << format_bytes(r.bytes).toStdString() << ") in " << format_duration(r.seconds).toStdString()
              << ", " << format_bytes(qint64(rate)).toStdString() << "/s"
              << (r.resumed_transfers ? ", resumed " + std::to_string(r.resumed_transfers) + " time(s)" : std::string())
              << (r.converted ? ", converted to LSG" : "") << "\n";
    std::cout << r.dir.string() << "\n";
    if (r.became_default) std::cerr << "precis: " << r.name.toStdString() << " is now the default model\n";
    return 0;
}

int model_list(const Arguments& args) {
    const auto models = all_models();
    if (args.flag("--json")) {
        QJsonArray a;
        for (const ModelInfo& m : models)
            a.append(QJsonObject{{"name", m.name}, {"dir", QString::fromStdString(m.dir.string())},
                                 {"source", m.in_hf_cache ? "hf-cache" : "installed"}, {"repo", m.repo},
                                 {"commit", m.commit}, {"usable", m.usable}, {"problem", m.problem}, {"task", m.task},
                                 {"size_bytes", double(m.size_bytes)}, {"input_tokens", m.input_tokens},
                                 {"attention", m.attention}, {"default", m.is_default}});
        std::cout << QJsonDocument(a).toJson(QJsonDocument::Compact).toStdString() << "\n";
        return 0;
    }
    if (models.empty()) {
        std::cout << "No models installed in " << user_models_dir().string()
                  << " and none Precis can run in the HuggingFace cache " << hf_hub_cache().string()
                  << ".\nSee precis model catalog, then precis model download REPO.\n";
        return 0;
    }
    std::cout << "  " << cell("NAME", 34) << cell("TASK", 16) << cell("SIZE", 9) << cell("INPUT", 6)
              << cell("ATTENTION", 22) << "WHERE\n";
    for (const ModelInfo& m : models) {
        std::cout << (m.is_default ? "* " : "  ") << cell(m.name, 34)
                  << cell(m.usable ? m.task : QStringLiteral("unusable"), 16) << cell(format_bytes(m.size_bytes), 9)
                  << cell(m.input_tokens ? QString::number(m.input_tokens) : QStringLiteral("-"), 6)
                  << cell(m.attention.isEmpty() ? QStringLiteral("-") : m.attention, 22)
                  << (m.in_hf_cache ? "HF cache " : "installed ") << m.dir.string();
        if (!m.usable) std::cout << " (" << m.problem.toStdString() << ")";
        std::cout << "\n";
    }
    return 0;
}

}  // namespace

int cmd_model(const Args& raw) {
    // Each subcommand is parsed with its own options: one it does not use is refused.
    const std::string sub = first_positional(raw, {"--revision", "--name", "--convert-lsg"});
    std::set<std::string> flags, options;
    if (sub == "catalog" || sub == "list") flags.insert("--json");
    if (sub == "download") options = {"--revision", "--name", "--convert-lsg"};
    const bool known = sub == "catalog" || sub == "download" || sub == "list" || sub == "remove" || sub == "default";
    Arguments args(known ? "model " + sub : "model", raw, flags, options);
    const auto& pos = args.positional();
    const std::string what = pos.empty() ? "" : pos[0];
    if (what == "catalog") return model_catalog(args);
    if (what == "download") return model_download(args);
    if (what == "list") return model_list(args);
    if (what == "remove") {
        if (pos.size() != 2) throw Error("precis model remove needs exactly one NAME (see precis model list)");
        remove_installed_model(QString::fromStdString(pos[1]));
        std::cerr << "precis: removed " << pos[1] << "\n";
        return 0;
    }
    if (what == "default") {
        if (pos.size() == 1) {
            const auto dir = default_model_folder();
            if (dir.empty()) throw Error("There is no default model: precis model download REPO installs one.");
            std::cout << dir.string() << "\n";
            return 0;
        }
        if (pos.size() != 2) throw Error("precis model default takes one NAME (see precis model list)");
        set_default_model(QString::fromStdString(pos[1]));
        std::cerr << "precis: " << pos[1] << " is now the default model (" << model_folder_for(QString::fromStdString(pos[1])).string()
                  << ")\n";
        return 0;
    }
    throw Error("precis model needs catalog, download REPO, list, remove NAME or default [NAME]");
}

}  // namespace precis::cli
