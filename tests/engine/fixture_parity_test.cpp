// The engine against the reference implementation's outputs, case by case: hidden
// states per layer, logits, greedy and beam sequences and scores (fixtures README 6-7).
#include <gtest/gtest.h>

#include "engine/backend/backend.h"
#include "engine/model/model.h"
#include "tests/support/fixture_case.h"
#include "tests/support/fixtures.h"

namespace precis::test {
namespace {

class FixtureParity : public ::testing::TestWithParam<std::string> {};

TEST_P(FixtureParity, EveryBatchMatchesTheReferenceWithinTolerance) {
    set_cpu_threads(2);
    const FixtureCase c = FixtureCase::load(GetParam());
    auto model = Model::load(c.model_dir, {.load_tokenizer = false});
    auto backend = make_cpu_backend();
    for (const std::string& batch : c.batches()) {
        SCOPED_TRACE("batch " + batch);
        const NamedTensors out = run_forward(*model, *backend, c.request(batch, *model));
        for (const std::string& p : compare_with_reference(c, batch, out)) ADD_FAILURE() << p;
    }
}

INSTANTIATE_TEST_SUITE_P(AllReferenceCases, FixtureParity, ::testing::ValuesIn(fixture_case_names()), fixture_case_label);

}  // namespace
}  // namespace precis::test

namespace precis::test {
namespace {

TEST(FixtureParity, PytorchBinCheckpointReproducesTheSafetensorsCase) {
    set_cpu_threads(2);
    const FixtureCase c = FixtureCase::load("bart-tiny");
    auto model = Model::load(fixtures_dir() / "models/bart-tiny-bin", {.load_tokenizer = false});
    auto backend = make_cpu_backend();
    const NamedTensors out = run_forward(*model, *backend, c.request("main", *model));
    for (const std::string& p : compare_with_reference(c, "main", out)) ADD_FAILURE() << p;
}

}  // namespace
}  // namespace precis::test
