#include "app/eval/rouge_eval.h"

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "engine/io/json_file.h"

namespace precis::eval {
namespace {

std::string fmt(const char* f, double a, double b, double c) {
    char buf[128];
    std::snprintf(buf, sizeof buf, f, a, b, c);
    return buf;
}

const std::string& text_field(const nlohmann::json& obj, const char* key, const std::string& where) {
    auto it = obj.find(key);
    if (it == obj.end()) throw std::runtime_error(where + " has no \"" + key + "\" field.");
    if (!it->is_string()) throw std::runtime_error(where + ": \"" + key + "\" is not a string.");
    return it->get_ref<const std::string&>();
}

}  // namespace

RougeEvalResult rouge_eval_stream(std::istream& in, const std::string& source_name, const RougeOptions& options) {
    RougeEvalResult res;
    RougeAggregator agg;
    std::string line;
    std::size_t line_no = 0;
    while (std::getline(in, line)) {
        ++line_no;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        const std::string where = source_name + " line " + std::to_string(line_no);
        nlohmann::json obj;
        check_json_depth(line, where);
        try {
            obj = nlohmann::json::parse(line);
        } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for numbers like 1e999
            throw std::runtime_error(where + " is not valid JSON (" + e.what() + ").");
        }
        if (!obj.is_object()) throw std::runtime_error(where + " is not a JSON object.");
        const std::string& ref = text_field(obj, "reference", where);
        const std::string& cand = text_field(obj, "candidate", where);
        std::string id = std::to_string(res.count);
        if (auto it = obj.find("id"); it != obj.end()) id = it->is_string() ? it->get<std::string>() : it->dump();
        const RougeScores s = rouge_score(ref, cand, options);
        agg.add(s);
        res.ids.push_back(std::move(id));
        res.per_example.push_back(s);
        ++res.count;
    }
    if (in.bad()) throw std::runtime_error(source_name + " could not be read.");
    res.mean = agg.mean();
    res.table = rouge_table(res.mean, res.count);
    return res;
}

RougeEvalResult rouge_eval_jsonl(const std::filesystem::path& path, const RougeOptions& options) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(path.string() + " could not be opened.");
    return rouge_eval_stream(in, path.string(), options);
}

std::string rouge_table(const RougeScores& s, std::size_t count) {
    std::string out = "metric          P       R       F   (n = " + std::to_string(count) + ", x100)\n";
    const std::pair<const char*, const RougeScore*> rows[] = {
        {"rouge1   ", &s.rouge1}, {"rouge2   ", &s.rouge2}, {"rougeL   ", &s.rougeL}, {"rougeLsum", &s.rougeLsum}};
    for (const auto& [name, r] : rows)
        out += std::string(name) + fmt(" %7.2f %7.2f %7.2f\n", 100 * r->precision, 100 * r->recall, 100 * r->fmeasure);
    return out;
}

std::string rouge_compare_table(const std::vector<std::pair<std::string, RougeEvalResult>>& systems) {
    std::size_t w = 6;
    for (const auto& [name, r] : systems) w = std::max(w, name.size());
    auto pad = [w](std::string s) {
        s.resize(w, ' ');
        return s;
    };
    std::string out = pad("system") + "      n    R-1    R-2    R-L R-Lsum   (F1 x100)\n";
    for (const auto& [name, r] : systems) {
        char buf[128];
        std::snprintf(buf, sizeof buf, " %6zu %6.2f %6.2f %6.2f %6.2f\n", r.count, 100 * r.mean.rouge1.fmeasure,
                      100 * r.mean.rouge2.fmeasure, 100 * r.mean.rougeL.fmeasure, 100 * r.mean.rougeLsum.fmeasure);
        out += pad(name) + buf;
    }
    return out;
}

}  // namespace precis::eval
