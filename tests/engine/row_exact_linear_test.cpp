// Backend::row_exact_linear (backend.h): where the CPU backend says a product of `rows`
// rows is row-exact, every row gets the same bits as in a product of more rows, wherever it
// sits among them. The encoder lets inputs share products only there, so a document's
// summary never depends on the documents encoded beside it (encoder_shared_products_test).
#include <gtest/gtest.h>

#include <cstring>
#include <tuple>

#include "engine/backend/backend.h"
#include "engine/backend/lowp_linear.h"
#include "engine/model/bart_weights.h"
#include "tests/support/compute_type_label.h"
#include "tests/support/numeric.h"

namespace precis::test {
namespace {

using InOut = std::tuple<int64_t, int64_t>;
using TypeAndShape = std::tuple<ComputeType, InOut>;  // the weights' type, (in, out)

class RowExactLinear : public ::testing::TestWithParam<TypeAndShape> {
protected:
    void SetUp() override {
        set_cpu_threads(2);
        const ComputeType type = std::get<0>(GetParam());
        std::tie(in, out) = std::get<1>(GetParam());
        w = gaussian(size_t(out * in), 1, 0.05f);
        b = gaussian(size_t(out), 3);
        stored = type == ComputeType::Fp32 ? Tensor::from_floats({out, in}, w)
                                           : LinearWeights::stored_as(Tensor::from_floats({out, in}, w), type, &scales);
    }
    WeightRef ref() const {
        const ComputeType type = std::get<0>(GetParam());
        if (type == ComputeType::Fp32) return WeightRef{WeightFormat::F32, stored.data<float>(), nullptr};
        return LinearWeights{stored, scales, Tensor::from_floats({out}, b)}.ref();
    }
    int64_t in = 0, out = 0;
    std::vector<float> w, b;
    Tensor stored, scales;
};

TEST_P(RowExactLinear, ARowGetsTheSameBitsInAnyLargerProductFromWhereTheBackendSaysSo) {
    auto be = make_cpu_backend();
    const WeightRef wr = ref();
    // The decoding GEMV's rows are never row-exact (they are a step's, not an input's).
    for (int64_t rows = 1; rows <= kLowpGemvMaxRows; ++rows)
        EXPECT_FALSE(be->row_exact_linear(rows, in, out, wr.format)) << rows << " rows";
    int64_t first = 0;  // the fewest rows the backend calls row-exact
    for (int64_t rows = 1; rows <= 4096 && !first; ++rows)
        if (be->row_exact_linear(rows, in, out, wr.format)) first = rows;
    ASSERT_GT(first, 0) << "no product of up to 4,096 rows is row-exact";
    for (int64_t rows = first; rows <= first + 300; ++rows)
        ASSERT_TRUE(be->row_exact_linear(rows, in, out, wr.format)) << "not monotone at " << rows << " rows";

    const int64_t total = first + 700;
    const std::vector<float> x = gaussian(size_t(total * in), 2);
    std::vector<float> all(size_t(total * out));
    be->linear(x.data(), total, in, wr, b.data(), out, all.data());
    for (const int64_t rows : {first, first + 1, first + 63, first + 250}) {
        for (const int64_t at : {int64_t(0), int64_t(37), total - rows}) {
            std::vector<float> alone(size_t(rows * out));
            be->linear(x.data() + at * in, rows, in, wr, b.data(), out, alone.data());
            EXPECT_EQ(std::memcmp(alone.data(), all.data() + at * out, alone.size() * sizeof(float)), 0)
                << rows << " rows at row " << at << " of " << total;
        }
    }
}

std::string type_and_shape_label(const ::testing::TestParamInfo<TypeAndShape>& info) {
    const InOut shape = std::get<1>(info.param);
    return compute_type_label({std::get<0>(info.param), 0}) + "_" + std::to_string(std::get<0>(shape)) + "x" +
           std::to_string(std::get<1>(shape));
}

// bart-base's shapes, and the tiny fixtures' (whose products are small enough to run on one
// thread below a few thousand rows).
INSTANTIATE_TEST_SUITE_P(
    WeightsAndShapes, RowExactLinear,
    ::testing::Combine(::testing::Values(ComputeType::Fp32, ComputeType::Fp16Weights, ComputeType::Int8),
                       ::testing::Values(InOut{768, 768}, InOut{768, 3072}, InOut{32, 64}, InOut{64, 32})),
    type_and_shape_label);

}  // namespace
}  // namespace precis::test
