#pragma once
// How a summary is made: by a neural model (BART / LSG-BART through the engine) or
// extractively (the document's own sentences, app/extractive/). "auto" is neural when a
// real model is installed and extractive otherwise; the random fixture models of the
// tests are never chosen by it.
#include <QString>

#include <optional>

namespace precis {

enum class SummaryMethod { Auto, Extractive, Neural };

// "auto", "extractive", "neural".
const char* summary_method_name(SummaryMethod method);
// Parses those names; nullopt for anything else.
std::optional<SummaryMethod> parse_summary_method(const QString& name);

}  // namespace precis
