// precis library list|show ID|search TEXT|export ID --format md|json|delete ID [--library DB],
// and precis library merge OUT IN... (app/library/library_merge.h).
// Each subcommand is parsed with its own options, so one it does not use (list --json)
// is refused instead of ignored.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <iostream>

#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "app/library/current_labels.h"
#include "app/library/library.h"
#include "app/library/library_merge.h"
#include "app/file_names.h"
#include "app/paths.h"
#include "engine/core/error.h"

namespace precis::cli {

namespace {

qint64 parse_id(const std::string& s) {
    try {
        size_t used = 0;
        long long v = std::stoll(s, &used);
        if (used == s.size() && v > 0) return v;
    } catch (const std::exception&) {
    }
    throw Error("'" + s + "' is not a library id (a positive number)");
}

std::string one_line(const QString& s, int max) {
    QString t = s.simplified();
    if (t.size() > max) t = t.left(max - 1) + QChar(0x2026);
    return t.toStdString();
}

// The files batch jobs could not summarize, newest first, with the reason and how to
// retry; they never became documents, so `list` alone cannot show them.
int list_failed_batch_files(const Library& lib) {
    const QVector<FailedBatchFile> failed = lib.failed_batch_files();
    QList<qint64> jobs;
    for (const FailedBatchFile& f : failed) {
        std::cout << f.job_id << "\t" << display_utf8(f.path) << "\t" << one_line(f.error, 160) << "\n";
        if (!jobs.contains(f.job_id)) jobs << f.job_id;
    }
    if (failed.isEmpty()) {
        std::cerr << "precis: no batch job has failed files\n";
        return 0;
    }
    std::cerr << "precis: " << failed.size() << " failed file" << (failed.size() == 1 ? "" : "s") << " in "
              << jobs.size() << " batch job" << (jobs.size() == 1 ? "" : "s")
              << " (first column); to try them again, run the job's precis batch command with --retry-failed\n";
    return 0;
}

// A summary made section by section: its outline, one line per section (title, pages
// counted from 1, the start of the section's summary).
void print_sections(const DocumentOutline& sections) {
    if (sections.isEmpty()) return;
    std::cout << "sections: " << sections.size() << "\n";
    for (int i = 0; i < int(sections.size()); ++i) {
        const OutlineSection& sec = sections[i];
        std::cout << "  " << i + 1 << ". " << one_line(section_display_title(sec, i), 60)
                  << section_pages_text(sec).toStdString() << ": " << one_line(sec.summary, 160) << "\n";
    }
}

// OUT IN...: every input is checked first, so a refused one leaves OUT as it was.
int merge_command(const Arguments& args) {
    const auto& pos = args.positional();
    if (pos.size() < 3) throw UsageError("precis library merge needs OUT and at least one IN library");
    QStringList inputs;
    for (size_t i = 2; i < pos.size(); ++i) inputs << path_from_native(pos[i]);
    const MergeCounts c = merge_libraries(path_from_native(pos[1]), inputs);
    std::cerr << "precis: merged " << inputs.size() << " librar" << (inputs.size() == 1 ? "y" : "ies") << " into "
              << pos[1] << ": " << c.documents_added << " documents added (" << c.documents_known
              << " already there), " << c.summaries_added << " summaries added (" << c.summaries_known
              << " already there), " << c.classifications_added << " labels, " << c.models_added << " models, "
              << c.jobs_added << " batch jobs, " << c.items_added_or_updated << " batch items added or updated\n";
    return 0;
}

}  // namespace

int cmd_library(const Args& raw) {
    const std::string sub = first_positional(raw, {"--library", "--format", "--label"});
    std::set<std::string> flags, options{"--library"};
    if (sub == "list") {
        flags.insert("--failed");
        options.insert("--label");
    }
    if (sub == "export") options.insert("--format");
    if (sub == "merge") options.erase("--library");  // OUT is named, not --library
    const bool known =
        sub == "list" || sub == "show" || sub == "search" || sub == "export" || sub == "delete" || sub == "merge";
    Arguments args(known ? "library " + sub : "library", raw, flags, options);
    if (sub == "merge") return merge_command(args);
    const auto& pos = args.positional();
    if (pos.empty()) throw Error("precis library needs list, show ID, search TEXT, export ID, delete ID or merge OUT IN...");
    const QString db = QString::fromStdString(args.value_or("--library", default_library_path().string()));
    Library lib(db);
    if (sub == "list") {
        if (pos.size() != 1) throw UsageError("precis library list takes no arguments besides its options");
        if (args.flag("--failed")) {
            if (args.value("--label")) throw UsageError("precis library list takes --label or --failed, not both");
            return list_failed_batch_files(lib);
        }
        if (auto label = args.value("--label")) {
            // Like the window's filter: documents whose newest classification predicted the label,
            // not every document a classifier merely scored it for.
            const QString wanted = QString::fromStdString(*label);
            const QSet<qint64> predicted = documents_predicted_as(lib, wanted);
            for (const DocumentInfo& d : lib.documents_with_label(wanted))
                if (predicted.contains(d.id)) std::cout << d.id << "\t" << one_line(d.title, 60) << "\t" << display_utf8(d.path) << "\n";
            return 0;
        }
        for (const DocumentListItem& item : lib.documents()) {
            std::cout << item.document.id << "\t" << one_line(item.document.title, 50) << "\t" << item.summary_count
                      << " summar" << (item.summary_count == 1 ? "y" : "ies");
            // The labels the newest classification gave, as the window shows them: not every
            // candidate label a classifier merely scored.
            QStringList given;
            const QVector<ClassificationRecord> run = newest_classification(lib, item.document.id);
            for (const ClassificationRecord& c : run)
                if (is_predicted(c, run)) given << c.label;
            if (!given.isEmpty()) std::cout << "\t[" << given.join(", ").toStdString() << "]";
            if (item.latest_summary) std::cout << "\t" << one_line(item.latest_summary->summary, 80);
            std::cout << "\n";
        }
        return 0;
    }
    if (sub == "show" && pos.size() == 2) {
        auto doc = lib.document(parse_id(pos[1]));
        if (!doc) throw Error("library " + db.toStdString() + " has no document " + pos[1]);
        std::cout << "document " << doc->id << ": " << doc->title.toStdString() << "\n"
                  << "file:     " << display_utf8(doc->path) << "\n"
                  << "pages:    " << doc->pages << ", " << doc->text.size() << " characters, " << doc->encoding.toStdString() << "\n";
        for (const ClassificationRecord& c : lib.classifications_for(doc->id))
            std::cout << "label:    " << c.label.toStdString() << " " << c.score << " (" << c.model_name.toStdString() << ")\n";
        for (const SummaryRecord& s : lib.summaries_for(doc->id)) {
            std::cout << "\nsummary " << s.id << " (" << s.created_at.toString(Qt::ISODate).toStdString() << ", "
                      << summary_method_description(s).toStdString() << ", " << s.device.toStdString() << ", "
                      << QJsonDocument(s.parameters).toJson(QJsonDocument::Compact).toStdString() << ")\n"
                      << s.summary.toStdString() << "\n";
            for (const SourcePassage& p : s.passages.value_or(QVector<SourcePassage>{})) {
                std::cout << "  source " << (p.page >= 0 ? "p. " + std::to_string(p.page + 1) + ", " : std::string())
                          << QString::number(100.0 * p.weight, 'f', 1).toStdString() << "%: "
                          << one_line(doc->text.mid(p.begin, p.end - p.begin), 100) << "\n";
            }
            print_sections(s.sections);
        }
        return 0;
    }
    if (sub == "search" && pos.size() >= 2) {
        QString q;
        for (size_t i = 1; i < pos.size(); ++i) q += (i > 1 ? " " : "") + QString::fromStdString(pos[i]);
        for (const SearchHit& h : lib.search(q)) {
            std::cout << h.document_id << "\t" << one_line(h.title, 50) << "\n";
            if (!h.document_snippet.isEmpty()) std::cout << "\ttext:    " << one_line(h.document_snippet, 120) << "\n";
            if (!h.section_title.isEmpty())
                std::cout << "\tsection: " << one_line(h.section_title, 40) << ": " << one_line(h.summary_snippet, 120) << "\n";
            else if (!h.summary_snippet.isEmpty())
                std::cout << "\tsummary: " << one_line(h.summary_snippet, 120) << "\n";
        }
        return 0;
    }
    if (sub == "export" && pos.size() == 2) {
        // Every summary of the document, newest first, as the help says: Markdown sections one
        // after another, or one JSON array.
        const std::string fmt = args.value_or("--format", "md");
        if (fmt != "md" && fmt != "json") throw Error("--format must be md or json, not '" + fmt + "'");
        const qint64 id = parse_id(pos[1]);
        if (!lib.document(id)) throw Error("library " + db.toStdString() + " has no document " + pos[1]);
        const QVector<SummaryRecord> summaries = lib.summaries_for(id);
        if (summaries.isEmpty()) throw Error("document " + pos[1] + " has no summaries to export");
        if (fmt == "json") {
            QJsonArray all;
            for (const SummaryRecord& s : summaries)
                all.append(QJsonDocument::fromJson(lib.export_summary(s.id, ExportFormat::Json).toUtf8()).object());
            std::cout << QJsonDocument(all).toJson(QJsonDocument::Indented).toStdString();
        } else {
            for (qsizetype i = 0; i < summaries.size(); ++i)
                std::cout << (i ? "\n---\n\n" : "") << lib.export_summary(summaries[i].id, ExportFormat::Markdown).toStdString();
        }
        return 0;
    }
    if (sub == "delete" && pos.size() == 2) {
        if (!lib.delete_document(parse_id(pos[1]))) throw Error("library " + db.toStdString() + " has no document " + pos[1]);
        std::cerr << "precis: deleted document " << pos[1] << " and its summaries\n";
        return 0;
    }
    throw Error("precis library needs list, show ID, search TEXT, export ID, delete ID or merge OUT IN...");
}

}  // namespace precis::cli
