#include "tests/support/test_models.h"

#include <fstream>

#include "engine/io/checkpoint.h"
#include "engine/io/safetensors.h"
#include "tests/support/fixtures.h"

namespace precis::test {

namespace fs = std::filesystem;

fs::path make_classifier(const std::string& name, const nlohmann::json& id2label, const std::string& problem_type) {
    const fs::path src = fixtures_dir() / "models/bart-tiny-realvocab";
    const fs::path dir = scratch_dir(name) / name;
    fs::create_directories(dir);
    nlohmann::json cfg = nlohmann::json::parse(std::ifstream(src / "config.json"));
    cfg["architectures"] = {"BartForSequenceClassification"};
    cfg["id2label"] = id2label;
    nlohmann::json label2id = nlohmann::json::object();
    for (auto& [k, v] : id2label.items()) label2id[v.get<std::string>()] = std::stoi(k);
    cfg["label2id"] = label2id;
    cfg["num_labels"] = id2label.size();
    if (!problem_type.empty()) cfg["problem_type"] = problem_type;
    std::ofstream(dir / "config.json") << cfg.dump(2);
    WeightMap w = load_checkpoint(src);
    const int64_t d = cfg["d_model"].get<int64_t>(), n = int64_t(id2label.size());
    auto random = [](Shape s, uint32_t seed) {
        Tensor t = Tensor::empty(DType::F32, s);
        for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = float(int((seed = seed * 1103515245u + 12345u) >> 16) % 2001 - 1000) / 700.f;
        return t;
    };
    std::vector<std::pair<std::string, Tensor>> out;
    for (const auto& [k, t] : w)
        if (k != "lm_head.weight" && k != "model.encoder.embed_tokens.weight" && k != "model.decoder.embed_tokens.weight")
            out.emplace_back(k, t);
    out.emplace_back("classification_head.dense.weight", random({d, d}, 1));
    out.emplace_back("classification_head.dense.bias", random({d}, 2));
    out.emplace_back("classification_head.out_proj.weight", random({n, d}, 3));
    out.emplace_back("classification_head.out_proj.bias", random({n}, 4));
    write_safetensors(dir / "model.safetensors", out);
    return dir;
}

}  // namespace precis::test
