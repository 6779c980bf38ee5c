#include "app/cli/bench_docs.h"

#include <sys/resource.h>

#include <chrono>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "engine/backend/backend.h"
#include "engine/core/error.h"
#include "engine/generate/document_batch.h"
#include "engine/generate/model_runner.h"
#include "engine/model/compute_type.h"
#include "engine/model/encoder.h"
#include "engine/model/model.h"

namespace precis::cli {

namespace {

std::vector<std::vector<int64_t>> read_documents(const std::string& path, int64_t vocab) {
    std::ifstream in(path);
    if (!in) throw Error("cannot read the documents file " + path);
    std::vector<std::vector<int64_t>> docs;
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        const std::string where = path + " line " + std::to_string(number);
        nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
        if (j.is_discarded() || !j.is_object() || !j.contains("ids") || !j["ids"].is_array() || j["ids"].empty())
            throw Error(where + " is not a JSON object with a non-empty \"ids\" list");
        std::vector<int64_t> ids;
        for (const auto& v : j["ids"]) {
            if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() >= vocab)
                throw Error(where + " holds an id outside the model's vocabulary of " + std::to_string(vocab));
            ids.push_back(v.get<int64_t>());
        }
        docs.push_back(std::move(ids));
    }
    if (docs.empty()) throw Error("the documents file " + path + " holds no documents");
    return docs;
}

}  // namespace

int bench_docs(const Arguments& args, const BenchFrontEnd& front) {
    check(args.value("--model").has_value(), "bench --docs needs --model DIR (the model the documents' ids are for)");
    const int new_tokens = args.int_value("--new-tokens").value_or(64);
    const int beams = args.int_value("--beams").value_or(1);
    check(new_tokens >= 1, "--new-tokens must be at least 1, not " + std::to_string(new_tokens));
    check(beams >= 1 && beams <= 64, "--beams must be between 1 and 64, not " + std::to_string(beams));
    const int batch_size = batch_size_value(args);

    std::string device;
    auto be = front.backend(args, &device);
    ModelRunner* runner = be->runner();
    if (runner) runner->reset_stats();
    const BenchModel loaded = front.load_model(args);
    const Model& model = *loaded.model;
    const std::vector<std::vector<int64_t>> docs = read_documents(*args.value("--docs"), model.config().vocab_size);

    // Exactly new_tokens tokens: eos is banned until the last position (min_length), as
    // CTranslate2's min_decoding_length = max_decoding_length does.
    GenerationConfig g;
    g.num_beams = beams;
    g.max_new_tokens = new_tokens;
    g.min_length = new_tokens + 1;
    g.decoder_start_token_id = model.generation_config().decoder_start_token_id;
    g.eos_token_id = model.config().eos_token_id;
    g.pad_token_id = model.config().pad_token_id;
    g.forced_bos_token_id = g.forced_eos_token_id = -1;
    std::vector<DocumentJob> jobs(docs.size());
    for (size_t i = 0; i < docs.size(); ++i) jobs[i] = {int(docs[i].size()), g};

    // A device uploads the weights (and cuBLAS picks its kernels) on the first run: a cost
    // a summary pays once per model, paid here before timing.
    if (runner) run_encoder(model, *be, {docs[0]}, {}, loaded.attention, {});

    std::vector<std::vector<int64_t>> out(docs.size());
    std::vector<std::string> failures;
    DocumentBatchOptions options;
    options.batch_size = batch_size;
    DocumentBatchCallbacks on;
    double encode_seconds = 0;  // the encoder's share of the time
    on.encode = [&](const std::vector<int>& joining) {
        const auto e0 = std::chrono::steady_clock::now();
        std::vector<std::vector<int64_t>> ids;
        for (int i : joining) ids.push_back(docs[size_t(i)]);
        EncoderOutput enc = run_encoder(model, *be, ids, {}, loaded.attention, {});
        encode_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - e0).count();
        return std::move(enc.rows);
    };
    on.finished = [&](int i, GenerationResult r, const EncodedRow&) { out[size_t(i)] = std::move(r.sequences[0]); };
    on.failed = [&](int i, const std::string& why) {
        failures.push_back("document " + std::to_string(i + 1) + ": " + why);
    };
    const auto t0 = std::chrono::steady_clock::now();
    const DocumentBatchReport report = generate_documents(model, *be, jobs, options, on, {});
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!failures.empty()) throw Error(failures.front());

    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    nlohmann::json j;
    j["seconds"] = seconds;
    j["encode_seconds"] = encode_seconds;
    j["documents"] = docs.size();
    j["new_tokens"] = new_tokens;
    j["beams"] = beams;
    j["batch_size"] = report.limits.max_documents;
    j["batch_size_asked"] = batch_size == 0 ? nlohmann::json("auto") : nlohmann::json(batch_size);
    j["largest_step"] = report.largest_step;
    j["halvings"] = report.halvings;
    j["device"] = be->name();
    j["compute_type"] = compute_type_name(model.compute_type());
    j["peak_memory_mb"] = double(ru.ru_maxrss) * 1024.0 / 1e6;  // host, decimal megabytes
    if (runner && be->runner() == runner) {
        const RunnerStats st = runner->stats();
        j["peak_gpu_memory_mb"] = double(st.peak_device_bytes) / 1e6;
        // Where a decoding step's time goes, over every batch: wall, the GPU's work (layers,
        // logits, search) and the layers alone, per step. Wall minus device is the host's part.
        if (st.decode_steps_total > 0) {
            const double per = 1e3 / double(st.decode_steps_total);
            j["decode_step_split"] = {{"steps", st.decode_steps_total},
                                      {"wall_ms", st.decode_wall_total_seconds * per},
                                      {"device_ms", st.decode_device_total_seconds * per},
                                      {"layers_ms", st.decode_layers_total_seconds * per}};
        }
    }
    j["documents_per_second"] = double(docs.size()) / seconds;
    j["new_tokens_per_second"] = double(docs.size()) * new_tokens / seconds;
    j["ids"] = out;
    if (!args.flag("--json"))
        std::cerr << docs.size() << " documents, " << new_tokens << " new tokens each, beams " << beams << ", "
                  << describe(report.limits) << ": " << seconds << " s\n";
    std::cout << j.dump() << std::endl;
    return 0;
}

}  // namespace precis::cli
