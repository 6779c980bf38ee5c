#pragma once
// Loads a reference case (fixtures/cases/<name>) and runs the engine on its inputs the
// way the reference generator did, for the parity tests.
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "engine/model/model.h"
#include "engine/pipeline/forward_pass.h"

namespace precis::test {

struct FixtureCase {
    std::string name;
    nlohmann::json manifest;   // the case's manifest entry
    nlohmann::json expected;   // expected.json
    std::map<std::string, Tensor> tensors;  // expected.safetensors
    std::filesystem::path model_dir;

    static FixtureCase load(const std::string& name);
    std::vector<std::string> batches() const;
    bool is_seq2seq() const;
    // The forward request the reference ran for `batch` (inputs, decoder ids, generation
    // settings, LSH projections injected when the case has them).
    ForwardRequest request(const std::string& batch, const Model& model) const;
};

// A case name as a gtest parameter label ("lsg-norm" -> "lsg_norm").
inline std::string fixture_case_label(const ::testing::TestParamInfo<std::string>& info) {
    std::string s = info.param;
    for (char& ch : s)
        if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return s;
}

// Names of all cases in the manifest (optionally only those whose kind matches).
std::vector<std::string> fixture_case_names(const std::string& kind = "");

// Compares every tensor the engine produced with the reference under `batch.`; returns
// a list of human-readable mismatches (empty when everything is within tolerance). A
// reference tensor not produced is a mismatch, unless the run was not asked for it
// (`not_requested`, names without the batch prefix, e.g. "greedy.scores").
std::vector<std::string> compare_with_reference(const FixtureCase& c, const std::string& batch,
                                                const NamedTensors& produced,
                                                const std::set<std::string>& not_requested = {});

}  // namespace precis::test
