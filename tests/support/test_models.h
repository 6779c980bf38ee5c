#pragma once
// Small models the tests build themselves from the fixtures' weights.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace precis::test {

// A BartForSequenceClassification folder: bart-tiny-realvocab's weights (the real BART
// vocabulary, so the fixtures' tokenizer/bart reads text for it) plus a seeded random
// head with the given labels ({"0": "contradiction", ...}) and optional problem_type.
std::filesystem::path make_classifier(const std::string& name, const nlohmann::json& id2label,
                                      const std::string& problem_type);

}  // namespace precis::test
