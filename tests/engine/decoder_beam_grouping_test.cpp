// The decoder's cross-attention runs the beams of one document through one call that
// reads the document's keys and values once. Each beam must still see only its own
// document and get what it would get decoded alone: a decoder over two documents of
// different lengths (partly masked) with three beams each, fed different tokens per
// beam, against one single-row decoder per beam, for every compute type (int8 and fp16
// keep the cross keys/values as halves laid out head by head).
#include <gtest/gtest.h>

#include <cstring>

#include "engine/backend/backend.h"
#include "engine/model/decoder.h"
#include "engine/model/encoder.h"
#include "engine/model/model.h"
#include "tests/support/compute_type_label.h"
#include "tests/support/fixtures.h"
#include "tests/support/numeric.h"

namespace precis::test {
namespace {

EncodedRow random_document(int64_t S, int64_t D, uint32_t seed) {
    EncodedRow row;
    row.memory = Tensor::from_floats({S, D}, gaussian(size_t(S * D), seed));
    row.memory_mask.assign(size_t(S), 0.f);
    for (int64_t j = S - S / 4; j < S; ++j) row.memory_mask[size_t(j)] = std::numeric_limits<float>::lowest();
    return row;
}

class DecoderBeamGrouping : public ::testing::TestWithParam<ComputeType> {};

TEST_P(DecoderBeamGrouping, EachBeamGetsWhatItWouldGetDecodedAlone) {
    auto model = Model::load(fixtures_dir() / "models" / "bart-tiny", {.load_tokenizer = false, .compute_type = GetParam()});
    auto backend = make_cpu_backend();
    const int64_t D = model->config().d_model;
    EncoderOutput both;
    both.rows.push_back(random_document(300, D, 1));  // not a multiple of the 64-key blocks
    both.rows.push_back(random_document(77, D, 2));
    constexpr int kBeams = 3, kSteps = 4;
    const int rows = 2 * kBeams;
    DecoderState grouped(*model, *backend, both, kBeams, kSteps + 1);
    std::vector<std::vector<float>> grouped_out(static_cast<size_t>(rows));
    for (int step = 0; step < kSteps; ++step) {
        std::vector<int64_t> tokens(static_cast<size_t>(rows));
        for (int r = 0; r < rows; ++r) tokens[size_t(r)] = 4 + (7 * r + 3 * step) % 40;
        grouped.forward(tokens.data(), 1);
    }
    for (int r = 0; r < rows; ++r)
        grouped_out[size_t(r)].assign(grouped.hidden() + r * D, grouped.hidden() + (r + 1) * D);

    for (int r = 0; r < rows; ++r) {
        SCOPED_TRACE("row " + std::to_string(r));
        EncoderOutput alone;
        alone.rows.push_back(both.rows[size_t(r / kBeams)]);
        DecoderState single(*model, *backend, alone, 1, kSteps + 1);
        for (int step = 0; step < kSteps; ++step) {
            const int64_t token = 4 + (7 * r + 3 * step) % 40;
            single.forward(&token, 1);
        }
        const std::vector<float> out(single.hidden(), single.hidden() + D);
        EXPECT_LT(normalized_error(grouped_out[size_t(r)], out), 1e-5);
    }
}

INSTANTIATE_TEST_SUITE_P(ComputeTypes, DecoderBeamGrouping,
                         ::testing::Values(ComputeType::Fp32, ComputeType::Int8, ComputeType::Fp16Weights),
                         compute_type_label);

}  // namespace
}  // namespace precis::test
