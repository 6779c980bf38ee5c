#pragma once
// --long MODE and how a long document's summary is reported on the command line: a line on
// stderr saying how the document was read, the outline after the summary, and the JSON
// `sections` (title, start, end, pages, summary, tokens).
#include <nlohmann/json_fwd.hpp>

#include <string>

#include "app/cli/arguments.h"
#include "app/long/long_summarizer.h"

namespace precis::cli {

// --long auto|extend|sections|truncate (auto when not given); a UsageError otherwise.
longdoc::LongMode long_mode_from_flags(const Arguments& args);

// "read all 9000 tokens in one pass, 2.2x the 4096 the model was trained on", ...; empty
// when there is nothing to say (the document fit).
std::string describe_reading(const longdoc::LongSummary& s);

// The outline as a person reads it under the summary: "[1] CHAPTER I. (pages 1-9)" then
// its summary, one blank line between sections.
std::string outline_text(const DocumentOutline& outline);

// JSON array of the outline's sections; pages 0-based as [first, last] (as the library's
// export and the extractive sentences' "page"), null for text.
nlohmann::json outline_json(const DocumentOutline& outline);

}  // namespace precis::cli
