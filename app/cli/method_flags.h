#pragma once
// --method auto|extractive|neural and the extractive summary's flags, shared by
// summarize, batch and eval:
//   --sentences N | --words N | --ratio X   the length (one of them; default: automatic)
//   --position-weight X, --position-decay N, --redundancy X
//                                           the selection's knobs (extractive_summarizer.h)
// "auto" picks neural when a real model is installed (--model, PRECIS_MODEL, the user's
// models, the bundled model) and extractive otherwise, saying so in one line on stderr.
#include <optional>
#include <set>
#include <string>

#include "app/cli/arguments.h"
#include "app/cli/run_settings.h"
#include "app/extractive/extractive_summarizer.h"
#include "app/summary_method.h"

namespace precis::cli {

std::set<std::string> method_option_names();

struct MethodChoice {
    SummaryMethod method = SummaryMethod::Extractive;  // never Auto once chosen
    std::optional<ModelLocation> model;                 // set for Neural
    // Auto that fell back to extractive: the line saying so, for the caller to print once
    // it has something to summarize (not before an error about the input).
    std::string notice;
};
MethodChoice choose_method(const Arguments& args);

extractive::ExtractiveOptions extractive_from_flags(const Arguments& args);

}  // namespace precis::cli
