#pragma once
// Documents for the batch tests (CPU and CUDA): a reference case's rows with their
// generation settings, beside documents of other lengths, each generated alone and all of
// them together (engine/generate/document_batch.h).
#include <map>
#include <string>
#include <vector>

#include "engine/generate/document_batch.h"
#include "tests/support/fixture_case.h"

namespace precis::test {

struct BatchDoc {
    std::vector<int64_t> ids, mask;
    GenerationConfig config;
};

struct BatchOutcome {
    std::vector<int64_t> ids;  // as the document alone generates them (greedy: cut after eos)
    float score = 0;
};

// Every row of every batch of case `c`, greedy and beam as the reference ran them, then a
// shorter and a longer document of random ids and one that generates longer; `attention`
// gets the case's attention options. Empty for cases without generation (classifiers).
std::vector<BatchDoc> documents_of_case(const FixtureCase& c, const Model& model, AttentionOptions* attention);

// Random ids of length n, bos first, eos last.
std::vector<int64_t> random_document_ids(int n, const ModelConfig& config, uint32_t seed);

// `count` documents of random ids (document i: 5 + 9i tokens, seed + i), alternately greedy
// and of 3 beams, document i making up to 6 + new_tokens_step * i tokens, under the model's
// generation settings otherwise.
std::vector<BatchDoc> mixed_documents(const Model& model, int count, uint32_t seed, int new_tokens_step);

BatchOutcome generate_alone(const Model& model, Backend& backend, const AttentionOptions& attention, const BatchDoc& doc);

// Expects every document's batched outcome to be what the CPU generates for it alone: the
// same ids, the score within score_tolerance (relative, plus as much absolute).
void expect_as_alone(const Model& model, const AttentionOptions& attention, const std::vector<BatchDoc>& docs,
                     const std::map<int, BatchOutcome>& batched, double score_tolerance);

// Every document in one batch of `batch_size`; each outcome once, by document (a document
// finishing twice or failing is a test failure).
std::map<int, BatchOutcome> generate_together(const Model& model, Backend& backend, const AttentionOptions& attention,
                                              const std::vector<BatchDoc>& docs, int batch_size,
                                              DocumentBatchReport* report = nullptr, const RunCallbacks& callbacks = {});

}  // namespace precis::test
