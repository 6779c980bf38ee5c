// Inputs encoded in one call share the layers' products (engine/model/encoder.cpp) where
// the backend makes that row-exact: every input gets the bits it gets encoded alone, its
// memory, mask and layer states, whatever it is encoded beside; inputs too short for a
// row-exact product, and long ones, run alone. Over the LSG sparsity types, global tokens,
// adaptive padding, and the three CPU compute types.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "engine/backend/forwarding_backend.h"
#include "engine/model/encoder.h"
#include "engine/model/model.h"
#include "tests/support/compute_type_label.h"
#include "tests/support/document_batch_support.h"
#include "tests/support/fixtures.h"

namespace precis::test {
namespace {

// The CPU backend, recording the most rows any product was given.
class RowCountingBackend final : public ForwardingBackend {
public:
    RowCountingBackend() : ForwardingBackend(make_cpu_backend()) {}
    void linear(const float* x, int64_t rows, int64_t in, const float* w, const float* b, int64_t out,
                float* y) override {
        most_rows = std::max(most_rows, rows);
        ForwardingBackend::linear(x, rows, in, w, b, out, y);
    }
    void linear(const float* x, int64_t rows, int64_t in, const WeightRef& w, const float* b, int64_t out,
                float* y) override {
        most_rows = std::max(most_rows, rows);
        ForwardingBackend::linear(x, rows, in, w, b, out, y);
    }
    void linear_gelu(const float* x, int64_t rows, int64_t in, const WeightRef& w, const float* b, int64_t out,
                     float* y) override {
        most_rows = std::max(most_rows, rows);
        ForwardingBackend::linear_gelu(x, rows, in, w, b, out, y);
    }

    int64_t most_rows = 0;
};

bool same_bits(const Tensor& a, const Tensor& b) {
    return a.numel() == b.numel() && std::memcmp(a.data<float>(), b.data<float>(), size_t(a.numel()) * 4) == 0;
}

void expect_same_row(const EncodedRow& together, const EncodedRow& alone) {
    EXPECT_EQ(together.input_length, alone.input_length);
    EXPECT_EQ(together.padded_length, alone.padded_length);
    EXPECT_EQ(together.num_global, alone.num_global);
    EXPECT_EQ(together.sparse_path, alone.sparse_path);
    EXPECT_EQ(together.memory_mask, alone.memory_mask);
    EXPECT_TRUE(same_bits(together.host_memory(), alone.host_memory())) << "the memory";
    ASSERT_EQ(together.layer_states.size(), alone.layer_states.size());
    for (size_t l = 0; l < alone.layer_states.size(); ++l)
        EXPECT_TRUE(same_bits(together.layer_states[l], alone.layer_states[l])) << "layer state " << l;
}

using ModelAndType = std::tuple<std::string, ComputeType>;

class EncoderSharedProducts : public ::testing::TestWithParam<ModelAndType> {};

TEST_P(EncoderSharedProducts, EveryInputGetsTheBitsItGetsEncodedAlone) {
    set_cpu_threads(2);
    const auto [name, type] = GetParam();
    auto model = Model::load(fixtures_dir() / "models" / name, {.load_tokenizer = false, .compute_type = type});
    const AttentionOptions att = native_attention_options(*model);
    // Long enough to share (row-exact from 129 rows in float32 on AVX-512, 17 in int8), with
    // lengths off the block size (adaptive padding), one too short to share, and a last one
    // past what the first group has room for.
    std::vector<std::vector<int64_t>> ids;
    for (const int n : {300, 141, 7, 200, 130, 455, 16, 390})
        ids.push_back(random_document_ids(n, model->config(), uint32_t(n)));
    RowCountingBackend be;
    const EncoderOutput together = run_encoder(*model, be, ids, {}, att, {}, true);
    EXPECT_GT(be.most_rows, 455 + 16) << "no inputs shared a product";
    ASSERT_EQ(together.rows.size(), ids.size());
    for (size_t i = 0; i < ids.size(); ++i) {
        SCOPED_TRACE("input " + std::to_string(i) + " of " + std::to_string(ids[i].size()) + " tokens");
        const EncoderOutput alone = run_encoder(*model, be, {ids[i]}, {}, att, {}, true);
        expect_same_row(together.rows[i], alone.rows[0]);
    }
}

INSTANTIATE_TEST_SUITE_P(
    SparsityTypesAndComputeTypes, EncoderSharedProducts,
    ::testing::Combine(::testing::Values("lsg-norm", "lsg-pooling", "lsg-lsh", "lsg-stride", "lsg-block_stride",
                                         "lsg-bos_pooling", "lsg-norm-g4", "lsg-norm-nopass"),
                       ::testing::Values(ComputeType::Fp32, ComputeType::Int8, ComputeType::Fp16Weights)),
    [](const ::testing::TestParamInfo<ModelAndType>& info) {
        std::string label = std::get<0>(info.param) + "_" + compute_type_label({std::get<1>(info.param), 0});
        std::replace(label.begin(), label.end(), '-', '_');
        return label;
    });

// Inside an EncoderBuffersKept scope the layers' buffers carry one run's values into the
// next: every run must still get the bits it gets with fresh buffers, whatever ran before
// (longer or shorter groups, an input too short to share).
TEST(EncoderBuffersKept, RunsInOneScopeGetTheBitsOfRunsWithFreshBuffers) {
    set_cpu_threads(2);
    auto model = Model::load(fixtures_dir() / "models" / "lsg-norm", {.load_tokenizer = false});
    const AttentionOptions att = native_attention_options(*model);
    auto be = make_cpu_backend();
    const auto docs = [&](std::initializer_list<int> lengths) {
        std::vector<std::vector<int64_t>> ids;
        for (const int n : lengths) ids.push_back(random_document_ids(n, model->config(), uint32_t(n)));
        return ids;
    };
    const std::vector<std::vector<std::vector<int64_t>>> runs = {docs({500, 480, 300}), docs({150, 9}), docs({260}),
                                                                 docs({500, 480, 300}), docs({33, 140, 141})};
    std::vector<EncoderOutput> fresh;
    for (const auto& ids : runs) fresh.push_back(run_encoder(*model, *be, ids, {}, att, {}, true));
    const EncoderBuffersKept kept;
    for (size_t k = 0; k < runs.size(); ++k) {
        SCOPED_TRACE("run " + std::to_string(k));
        const EncoderOutput again = run_encoder(*model, *be, runs[k], {}, att, {}, true);
        for (size_t i = 0; i < runs[k].size(); ++i) expect_same_row(again.rows[i], fresh[k].rows[i]);
    }
}

// An input that fails its checks (longer than the position table) fails the call before
// any input is encoded, with the reason.
TEST(EncoderSharedProductsErrors, AnInputTooLongFailsTheCallBeforeAnyIsEncoded) {
    set_cpu_threads(2);
    auto model = Model::load(fixtures_dir() / "models" / "lsg-norm", {.load_tokenizer = false});
    RowCountingBackend be;
    const std::vector<std::vector<int64_t>> ids = {random_document_ids(200, model->config(), 1),
                                                   random_document_ids(900, model->config(), 2)};
    try {
        run_encoder(*model, be, ids, {}, native_attention_options(*model), {});
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("longer than the model's 512 positions"), std::string::npos) << e.what();
    }
    EXPECT_EQ(be.most_rows, 0) << "an input was encoded before the bad one was found";
}

}  // namespace
}  // namespace precis::test
