// Beam search moves histories between rows with DecoderState::reorder: row r continues
// row parents[r]'s cache. The reorder copies only rows that change parent and saves a
// parent first when it is itself overwritten, so every pattern a beam step can produce
// is checked (the identity, a cycle, one parent for all, swaps, a parent shared while
// its own row moves, three children of one parent), each against a decoder fed the
// parents' tokens from the start.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/backend/backend.h"
#include "engine/model/decoder.h"
#include "engine/model/encoder.h"
#include "engine/model/model.h"
#include "tests/support/fixtures.h"
#include "tests/support/numeric.h"

namespace precis::test {
namespace {

constexpr int kRows = 4, kStepsBefore = 3, kStepsAfter = 2;

int64_t token(int row, int step) { return 4 + (11 * row + 5 * step) % 37; }

class DecoderReorder : public ::testing::TestWithParam<std::vector<int>> {};

TEST_P(DecoderReorder, EachRowContinuesItsParentsHistory) {
    const std::vector<int>& parents = GetParam();
    auto model = Model::load(fixtures_dir() / "models" / "bart-tiny", {.load_tokenizer = false});
    auto backend = make_cpu_backend();
    const int64_t D = model->config().d_model;
    EncoderOutput doc;
    EncodedRow row;
    row.memory = Tensor::from_floats({50, D}, gaussian(size_t(50 * D), 3));
    row.memory_mask.assign(50, 0.f);
    doc.rows.push_back(row);

    // Rows fed their own tokens, reordered, then fed tokens that differ per new row.
    DecoderState moved(*model, *backend, doc, kRows, kStepsBefore + kStepsAfter);
    // The same histories fed directly: row r gets row parents[r]'s tokens first.
    DecoderState direct(*model, *backend, doc, kRows, kStepsBefore + kStepsAfter);
    for (int step = 0; step < kStepsBefore; ++step) {
        std::vector<int64_t> own, inherited;
        for (int r = 0; r < kRows; ++r) {
            own.push_back(token(r, step));
            inherited.push_back(token(parents[size_t(r)], step));
        }
        moved.forward(own.data(), 1);
        direct.forward(inherited.data(), 1);
    }
    moved.reorder(parents);
    for (int step = kStepsBefore; step < kStepsBefore + kStepsAfter; ++step) {
        std::vector<int64_t> next;
        for (int r = 0; r < kRows; ++r) next.push_back(token(r + 10, step));
        moved.forward(next.data(), 1);
        direct.forward(next.data(), 1);
    }
    for (int r = 0; r < kRows; ++r) {
        const std::vector<float> got(moved.hidden() + r * D, moved.hidden() + (r + 1) * D);
        const std::vector<float> want(direct.hidden() + r * D, direct.hidden() + (r + 1) * D);
        EXPECT_LT(normalized_error(got, want), 1e-6) << "row " << r;
    }
}

std::string label(const ::testing::TestParamInfo<std::vector<int>>& info) {
    std::string s = "parents";
    for (int p : info.param) s += "_" + std::to_string(p);
    return s;
}

INSTANTIATE_TEST_SUITE_P(Patterns, DecoderReorder,
                         ::testing::Values(std::vector<int>{0, 1, 2, 3}, std::vector<int>{1, 2, 3, 0},
                                           std::vector<int>{2, 2, 2, 2}, std::vector<int>{1, 0, 3, 2},
                                           std::vector<int>{3, 3, 0, 1}, std::vector<int>{0, 0, 1, 1},
                                           std::vector<int>{1, 1, 1, 0}, std::vector<int>{3, 0, 0, 3}),
                         label);

TEST(DecoderReorderArguments, AParentOutsideTheRowsIsRefused) {
    auto model = Model::load(fixtures_dir() / "models" / "bart-tiny", {.load_tokenizer = false});
    auto backend = make_cpu_backend();
    EncoderOutput doc;
    EncodedRow row;
    row.memory = Tensor::from_floats({8, model->config().d_model}, gaussian(size_t(8 * model->config().d_model), 4));
    row.memory_mask.assign(8, 0.f);
    doc.rows.push_back(row);
    DecoderState state(*model, *backend, doc, 2, 3);
    const int64_t tokens[2] = {5, 6};
    state.forward(tokens, 1);
    EXPECT_THROW(state.reorder({0, 2}), Error);
    EXPECT_THROW(state.reorder({0}), Error);
}

}  // namespace
}  // namespace precis::test
