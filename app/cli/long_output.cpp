#include "app/cli/long_output.h"

#include <QJsonDocument>

#include <nlohmann/json.hpp>

#include <cstdio>


namespace precis::cli {

longdoc::LongMode long_mode_from_flags(const Arguments& args) {
    const std::string name = args.value_or("--long", "auto");
    if (auto mode = longdoc::parse_long_mode(name)) return *mode;
    throw UsageError("--long takes auto, extend, sections or truncate, not '" + name + "'");
}

std::string describe_reading(const longdoc::LongSummary& s) {
    const SummaryResult& r = s.summary;
    switch (s.reading) {
        case longdoc::LongReading::Whole: return {};
        case longdoc::LongReading::Truncated:
            return "read the first " + std::to_string(r.tokens_read) + " of " + std::to_string(r.input_tokens) +
                   " tokens (--long truncate); the rest was not summarized";
        case longdoc::LongReading::Extended: {
            char factor[16];
            std::snprintf(factor, sizeof factor, "%.1f", double(r.input_tokens) / std::max(1, s.trained_tokens));
            return "read all " + std::to_string(r.input_tokens) + " tokens in one pass, " + factor + "x the " +
                   std::to_string(s.trained_tokens) + " the model was trained on (LSG extrapolation)";
        }
        case longdoc::LongReading::Sections: {
            std::string line = "summarized all " + std::to_string(r.input_tokens) + " tokens in " +
                               std::to_string(s.sections.size()) + " sections, combined in " + std::to_string(s.levels) +
                               (s.levels == 1 ? " pass" : " passes");
            if (s.kept_sections > 0)
                line += " (" + std::to_string(s.kept_sections) + " sections kept from an earlier run)";
            return line;
        }
    }
    return {};
}

std::string outline_text(const DocumentOutline& outline) {
    std::string out;
    for (qsizetype i = 0; i < outline.size(); ++i) {
        const OutlineSection& s = outline[i];
        out += "[" + std::to_string(i + 1) + "] " + (section_display_title(s, int(i)) + section_pages_text(s)).toStdString() + "\n";
        out += (s.summary.isEmpty() ? std::string("(not summarized)") : s.summary.toStdString()) + "\n";
        if (i + 1 < outline.size()) out += "\n";
    }
    return out;
}

nlohmann::json outline_json(const DocumentOutline& outline) {
    // The library export's form (outline_to_json), in the command line's JSON library.
    return nlohmann::json::parse(QJsonDocument(outline_to_json(outline)).toJson(QJsonDocument::Compact).toStdString());
}

}  // namespace precis::cli
