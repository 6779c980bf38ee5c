#include "tests/support/fixture_case.h"

#include <fstream>

#include "engine/attention/attention.h"
#include "engine/io/safetensors.h"
#include "engine/model/encoder.h"
#include "tests/support/fixtures.h"

namespace precis::test {

namespace {

nlohmann::json read_json(const std::filesystem::path& p) {
    std::ifstream f(p);
    if (!f) throw Error("cannot open " + p.string());
    return nlohmann::json::parse(f);
}

std::vector<std::vector<int64_t>> rows_of(const Tensor& t) {
    std::vector<int64_t> flat = t.to_int_vector();
    std::vector<std::vector<int64_t>> rows;
    const int64_t n = t.dim(0), len = t.dim(1);
    for (int64_t r = 0; r < n; ++r) rows.emplace_back(flat.begin() + r * len, flat.begin() + (r + 1) * len);
    return rows;
}

GenerationConfig config_from_args(const nlohmann::json& a) {
    GenerationConfig g;
    g.bos_token_id = a.value("bos_token_id", 0);
    g.eos_token_id = a.value("eos_token_id", 2);
    g.pad_token_id = a.value("pad_token_id", 1);
    g.decoder_start_token_id = a.value("decoder_start_token_id", 2);
    g.forced_bos_token_id = a.value("forced_bos_token_id", -1);
    g.forced_eos_token_id = a.value("forced_eos_token_id", -1);
    g.num_beams = a.value("num_beams", 1);
    g.length_penalty = a.value("length_penalty", 1.0);
    g.no_repeat_ngram_size = a.value("no_repeat_ngram_size", 0);
    g.min_length = a.value("min_length", 0);
    g.max_length = a.value("max_length", 20);
    g.early_stopping = a.value("early_stopping", false);
    if (a.contains("max_new_tokens")) g.max_new_tokens = a["max_new_tokens"].get<int>();
    return g;
}

}  // namespace

std::vector<std::string> fixture_case_names(const std::string& kind) {
    nlohmann::json m = read_json(fixtures_dir() / "manifest.json");
    std::vector<std::string> names;
    for (auto& c : m["cases"])
        if (kind.empty() || c.value("kind", "") == kind) names.push_back(c["name"]);
    return names;
}

FixtureCase FixtureCase::load(const std::string& name) {
    FixtureCase c;
    c.name = name;
    nlohmann::json m = read_json(fixtures_dir() / "manifest.json");
    for (auto& e : m["cases"])
        if (e["name"] == name) c.manifest = e;
    if (c.manifest.is_null()) throw Error("no fixture case named " + name);
    const auto dir = fixtures_dir() / c.manifest["case_dir"].get<std::string>();
    c.expected = read_json(dir / "expected.json");
    c.tensors = read_safetensors(dir / "expected.safetensors").tensors;
    c.model_dir = fixtures_dir() / c.manifest["model_dir"].get<std::string>();
    return c;
}

std::vector<std::string> FixtureCase::batches() const { return manifest["batches"].get<std::vector<std::string>>(); }

bool FixtureCase::is_seq2seq() const { return tensors.count("decoder_input_ids") != 0; }

ForwardRequest FixtureCase::request(const std::string& batch, const Model& model) const {
    ForwardRequest r;
    r.input_ids = rows_of(tensors.at(batch + ".input_ids"));
    r.attention_mask = rows_of(tensors.at(batch + ".attention_mask"));
    if (is_seq2seq()) r.decoder_input_ids = rows_of(tensors.at("decoder_input_ids"));
    r.attention = native_attention_options(model);
    if (manifest.contains("lsh_R") && !manifest["lsh_R"].empty()) {
        auto lsh = std::make_shared<LshProjections>();
        for (const auto& name : manifest["lsh_R"]) {
            // lsh_R_<layer>_<round>
            const std::string n = name.get<std::string>();
            const auto a = n.rfind('_');
            const auto b = n.rfind('_', a - 1);
            lsh->inject(std::stoi(n.substr(b + 1, a - b - 1)), std::stoi(n.substr(a + 1)), tensors.at(n));
        }
        r.attention.lsh = lsh;
    }
    const auto modes = manifest.value("generation_modes", std::vector<std::string>{});
    for (const auto& mode : modes) {
        const auto& args = expected["generation"][mode]["generation_config_args"];
        if (mode == "greedy") {
            r.greedy = true;
            r.greedy_config = config_from_args(args);
            r.keep_greedy_scores = tensors.count(batch + ".greedy.scores") != 0;
        } else if (mode == "beam") {
            r.beam = true;
            r.beam_config = config_from_args(args);
        }
    }
    return r;
}

std::vector<std::string> compare_with_reference(const FixtureCase& c, const std::string& batch,
                                                const NamedTensors& produced, const std::set<std::string>& not_requested) {
    std::vector<std::string> problems;
    int compared = 0;
    for (const auto& [name, tensor] : produced) {
        const std::string key = batch + "." + name;
        auto it = c.tensors.find(key);
        if (it == c.tensors.end()) continue;
        ++compared;
        const Tensor& ref = it->second;
        if (ref.dtype() == DType::I64) {
            if (ref.shape() != tensor.shape() || ref.to_int_vector() != tensor.to_int_vector())
                problems.push_back(key + ": ids differ");
            continue;
        }
        std::string why;
        const bool is_score = name == "beam.sequences_scores";
        const double excess = tolerance_excess(tensor, ref, 1e-4, is_score ? 0.0 : 1e-4, &why);
        if (excess > 0) problems.push_back(key + ": beyond tolerance by " + std::to_string(excess) + " (" + why + ")");
    }
    // Every reference tensor of this batch must have been produced.
    for (const auto& [key, t] : c.tensors) {
        if (key.rfind(batch + ".", 0) != 0) continue;
        const std::string name = key.substr(batch.size() + 1);
        if (name == "input_ids" || name == "attention_mask" || not_requested.count(name)) continue;
        bool found = false;
        for (auto& p : produced) found |= p.first == name;
        if (!found) problems.push_back(key + ": not produced");
    }
    if (compared == 0) problems.push_back("nothing compared for batch " + batch);
    return problems;
}

}  // namespace precis::test
