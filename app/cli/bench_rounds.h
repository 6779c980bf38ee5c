#pragma once
// `precis bench` over several rounds (--rounds): each compute type's runs as one (medians),
// its speed-ups against the fp32 run of the same round, and the text table's lines.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace precis::cli {

double median(std::vector<double> v);
// The rounds' runs of one compute type as one: each number is their median, the rest
// is the first run's.
nlohmann::json median_over_rounds(const std::vector<nlohmann::json>& runs);
// Speed-ups and memory against fp32, round by round (each round's fp32 run was made
// next to this one), as their median and, over several rounds, each round's.
void add_ratios_to_fp32(const std::vector<nlohmann::json>& fp32, const std::vector<nlohmann::json>& runs,
                        nlohmann::json& j);
// One length and compute type as lines of the text table.
void print_result(int length, const std::string& compute, const nlohmann::json& j);

}  // namespace precis::cli
