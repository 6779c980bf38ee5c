// The decoder projects a long document's cross-attention keys and values in parts of at
// most 512 rows straight into half precision, never holding the float32 result whole.
// Every key must land where it belongs: a 1,100-row document (three parts) whose first
// 800 rows are masked is, to the decoder, the same document as its last 300 rows alone
// (one part), for every compute type.
#include <gtest/gtest.h>

#include <limits>

#include "engine/backend/backend.h"
#include "engine/model/decoder.h"
#include "engine/model/encoder.h"
#include "engine/model/model.h"
#include "tests/support/compute_type_label.h"
#include "tests/support/fixtures.h"
#include "tests/support/numeric.h"

namespace precis::test {
namespace {

class DecoderCrossProjection : public ::testing::TestWithParam<ComputeType> {};

std::vector<float> decode_three_steps(const Model& model, Backend& backend, const EncodedRow& row) {
    EncoderOutput encoded;
    encoded.rows.push_back(row);
    DecoderState dec(model, backend, encoded, 1, 4);
    for (int64_t token : {2, 17, 33}) dec.forward(&token, 1);
    const int64_t D = model.config().d_model;
    return {dec.hidden(), dec.hidden() + D};
}

TEST_P(DecoderCrossProjection, KeysOfALongDocumentLandWhereTheyBelong) {
    auto model = Model::load(fixtures_dir() / "models" / "bart-tiny", {.load_tokenizer = false, .compute_type = GetParam()});
    auto backend = make_cpu_backend();
    const int64_t D = model->config().d_model, S = 1100, kept = 300;
    const std::vector<float> values = gaussian(size_t(S * D), 11);

    EncodedRow whole;
    whole.memory = Tensor::from_floats({S, D}, values);
    whole.memory_mask.assign(size_t(S), 0.f);
    for (int64_t j = 0; j < S - kept; ++j) whole.memory_mask[size_t(j)] = std::numeric_limits<float>::lowest();

    EncodedRow tail;
    tail.memory = Tensor::from_floats({kept, D}, std::vector<float>(values.end() - kept * D, values.end()));
    tail.memory_mask.assign(size_t(kept), 0.f);

    EXPECT_LT(normalized_error(decode_three_steps(*model, *backend, whole), decode_three_steps(*model, *backend, tail)),
              1e-5);
}

INSTANTIATE_TEST_SUITE_P(ComputeTypes, DecoderCrossProjection,
                         ::testing::Values(ComputeType::Fp32, ComputeType::Int8, ComputeType::Fp16Weights),
                         compute_type_label);

}  // namespace
}  // namespace precis::test
