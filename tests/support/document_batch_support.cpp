#include "tests/support/document_batch_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "engine/backend/backend.h"
#include "engine/model/encoder.h"
#include "engine/model/model.h"

namespace precis::test {

std::vector<int64_t> random_document_ids(int n, const ModelConfig& config, uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<int64_t> ids(size_t(std::max(n, 2)));
    for (auto& id : ids) id = 4 + int64_t(rng() % uint32_t(config.vocab_size - 5));
    ids.front() = config.bos_token_id;
    ids.back() = config.eos_token_id;
    return ids;
}

std::vector<BatchDoc> mixed_documents(const Model& model, int count, uint32_t seed, int new_tokens_step) {
    std::vector<BatchDoc> docs;
    for (int i = 0; i < count; ++i) {
        BatchDoc d;
        d.ids = random_document_ids(5 + 9 * i, model.config(), seed + uint32_t(i));
        d.config = model.generation_config();
        d.config.num_beams = i % 2 ? 3 : 1;
        d.config.max_new_tokens = 6 + new_tokens_step * i;
        docs.push_back(d);
    }
    return docs;
}

std::vector<BatchDoc> documents_of_case(const FixtureCase& c, const Model& model, AttentionOptions* attention) {
    std::vector<BatchDoc> docs;
    for (const std::string& batch : c.batches()) {
        const ForwardRequest req = c.request(batch, model);
        *attention = req.attention;  // one attention setting per case
        for (size_t r = 0; r < req.input_ids.size(); ++r) {
            const std::vector<int64_t> mask = req.attention_mask.empty() ? std::vector<int64_t>{} : req.attention_mask[r];
            if (req.greedy) docs.push_back({req.input_ids[r], mask, req.greedy_config});
            if (req.beam) docs.push_back({req.input_ids[r], mask, req.beam_config});
        }
    }
    if (docs.empty()) return docs;
    const ModelConfig& mc = model.config();
    const int base = int(docs[0].ids.size());
    docs.push_back({random_document_ids(std::max(3, base / 3), mc, 1), {}, docs[0].config});
    docs.push_back({random_document_ids(std::min(model.max_input_tokens(), base * 3 + 5), mc, 2), {}, docs.back().config});
    BatchDoc longer = docs[0];
    longer.config.max_new_tokens = longer.config.max_new_tokens.value_or(longer.config.max_length) + 7;
    longer.config.min_length = 6;
    docs.push_back(longer);
    return docs;
}

BatchOutcome generate_alone(const Model& model, Backend& be, const AttentionOptions& att, const BatchDoc& d) {
    const EncoderOutput enc = run_encoder(model, be, {d.ids}, {d.mask}, att, {});
    GenerationResult g = generate(model, be, enc, d.config, {});
    std::vector<int64_t> ids = g.sequences[0];
    if (d.config.num_beams == 1) ids = trim_after_eos(ids, d.config.eos_token_id);
    return {ids, g.sequence_scores[0]};
}

void expect_as_alone(const Model& model, const AttentionOptions& att, const std::vector<BatchDoc>& docs,
                     const std::map<int, BatchOutcome>& batched, double score_tolerance) {
    auto cpu = make_cpu_backend();
    ASSERT_EQ(batched.size(), docs.size());
    for (size_t i = 0; i < docs.size(); ++i) {
        SCOPED_TRACE("document " + std::to_string(i) + " (" + std::to_string(docs[i].ids.size()) + " tokens, " +
                     std::to_string(docs[i].config.num_beams) + " beams)");
        const BatchOutcome one = generate_alone(model, *cpu, att, docs[i]);
        EXPECT_EQ(batched.at(int(i)).ids, one.ids);
        EXPECT_NEAR(batched.at(int(i)).score, one.score, score_tolerance * (1 + std::abs(one.score)));
    }
}

std::map<int, BatchOutcome> generate_together(const Model& model, Backend& be, const AttentionOptions& att,
                                              const std::vector<BatchDoc>& docs, int batch_size,
                                              DocumentBatchReport* report, const RunCallbacks& callbacks) {
    std::vector<DocumentJob> jobs;
    for (const BatchDoc& d : docs) jobs.push_back({int(d.ids.size()), d.config});
    std::map<int, BatchOutcome> out;
    DocumentBatchCallbacks on;
    on.encode = [&](const std::vector<int>& joining) {
        std::vector<std::vector<int64_t>> ids, masks;
        for (int i : joining) {
            ids.push_back(docs[size_t(i)].ids);
            masks.push_back(docs[size_t(i)].mask);
        }
        return std::move(run_encoder(model, be, ids, masks, att, {}).rows);
    };
    on.finished = [&](int i, GenerationResult r, const EncodedRow&) {
        EXPECT_EQ(out.count(i), 0u) << "document " << i << " finished twice";
        out[i] = {r.sequences[0], r.sequence_scores[0]};
    };
    on.failed = [&](int i, const std::string& why) { ADD_FAILURE() << "document " << i << " failed: " << why; };
    DocumentBatchOptions options;
    options.batch_size = batch_size;
    const DocumentBatchReport r = generate_documents(model, be, jobs, options, on, callbacks);
    if (report) *report = r;
    return out;
}

}  // namespace precis::test
