// The row-wise CUDA kernels (kernels/ops/elementwise.h) against the CPU backend's ops, in
// every storage precision. Inputs are rounded through the precision first, so the CPU
// reference starts from exactly what the device reads and the bound measures the kernel.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "engine/backend/backend.h"
#include "engine/core/error.h"
#include "tests/kernels/cuda/cuda_test_support.h"

namespace {

using precis::cuda::Precision;
using precis::test::gaussian;
using precis::test::layer_norm_f64;
using precis::test::normalized_error;
using precis::test::op_tolerance;
using precis::test::rounded_to;

// The CPU reference computes in float32. A bf16 output rounds every element by up to 2^-9
// relative (about 1.6e-3 normalized), more than the 1e-3 bound, so a 16-bit output is compared
// with the CPU result rounded through the same precision: what is left is the kernel's own
// error (an occasional one-ulp flip where the two float32 results straddle a rounding point).
std::vector<float> expected_in(Precision p, const std::vector<float>& cpu_result) {
    return p == Precision::F32 ? cpu_result : rounded_to(p, cpu_result);
}

void sync() { PRECIS_CUDA_CHECK(cudaDeviceSynchronize()); }

class Elementwise : public ::testing::TestWithParam<Precision> {};

// ---- add_layer_norm ---------------------------------------------------------------------------

void check_layer_norm(Precision p, int64_t rows, int64_t dim, bool with_delta, bool with_bias, uint32_t seed,
                      float offset = 0.f) {
    SCOPED_TRACE("rows " + std::to_string(rows) + " dim " + std::to_string(dim) + " delta " +
                 std::to_string(with_delta) + " delta_bias " + std::to_string(with_bias));
    const size_t n = size_t(rows * dim);
    std::vector<float> x = gaussian(n, seed);
    for (float& v : x) v += offset;
    x = rounded_to(p, x);
    const std::vector<float> delta = with_delta ? rounded_to(p, gaussian(n, seed + 1)) : std::vector<float>();
    const std::vector<float> bias = with_bias ? gaussian(size_t(dim), seed + 2, 0.5f) : std::vector<float>();
    std::vector<float> gamma = gaussian(size_t(dim), seed + 3, 0.1f);
    for (float& g : gamma) g += 1.f;
    const std::vector<float> beta = gaussian(size_t(dim), seed + 4, 0.1f);

    precis::cuda::DeviceBuffer dx = precis::test::upload_as(p, x);
    precis::cuda::DeviceBuffer dd = with_delta ? precis::test::upload_as(p, delta) : precis::cuda::DeviceBuffer();
    precis::cuda::DeviceBuffer db = precis::cuda::upload(bias);
    precis::cuda::DeviceBuffer dg = precis::cuda::upload(gamma), dbeta = precis::cuda::upload(beta);
    precis::cuda::add_layer_norm(p, dx.get(), with_delta ? dd.get() : nullptr, with_bias ? db.as<float>() : nullptr,
                                 rows, dim, dg.as<float>(), dbeta.as<float>(), 1e-5f, nullptr);
    sync();
    const std::vector<float> y = precis::test::download_as_f32(p, dx.get(), n);

    // The CPU op has no delta_bias: hand it delta + bias (the kernel adds x + (delta + bias)).
    std::vector<float> combined;
    if (with_delta || with_bias) {
        combined.assign(n, 0.f);
        for (int64_t r = 0; r < rows; ++r)
            for (int64_t i = 0; i < dim; ++i) {
                const size_t k = size_t(r * dim + i);
                combined[k] = with_delta ? (with_bias ? delta[k] + bias[size_t(i)] : delta[k]) : bias[size_t(i)];
            }
    }
    std::vector<float> ref;
    if (dim > 4096 || offset != 0.f) {
        std::vector<float> summed = x;
        for (size_t k = 0; k < combined.size(); ++k) summed[k] += combined[k];
        ref = layer_norm_f64(summed, rows, dim, gamma, beta, 1e-5);
    } else {
        ref = x;
        precis::make_cpu_backend()->add_layer_norm(ref.data(), combined.empty() ? nullptr : combined.data(), rows,
                                                   dim, gamma.data(), beta.data(), 1e-5f);
    }
    EXPECT_LE(normalized_error(y, expected_in(p, ref)), op_tolerance(p));
}

TEST_P(Elementwise, LayerNormMatchesCpuWithoutResidual) {
    PRECIS_REQUIRE_GPU();
    const Precision p = GetParam();
    check_layer_norm(p, 1, 768, false, false, 11);
    check_layer_norm(p, 4, 1024, false, false, 12);
    check_layer_norm(p, 3, 37, false, false, 13);
}

TEST_P(Elementwise, LayerNormMatchesCpuWithResidual) {
    PRECIS_REQUIRE_GPU();
    const Precision p = GetParam();
    check_layer_norm(p, 1, 768, true, false, 21);
    check_layer_norm(p, 9, 1024, true, false, 22);
    check_layer_norm(p, 5, 20, true, false, 23);   // under one warp
    check_layer_norm(p, 2, 100, true, false, 24);  // not a multiple of 32
}

TEST_P(Elementwise, LayerNormMatchesCpuWithResidualAndBias) {
    PRECIS_REQUIRE_GPU();
    const Precision p = GetParam();
    check_layer_norm(p, 1, 768, true, true, 31);
    check_layer_norm(p, 17, 1024, true, true, 32);
    check_layer_norm(p, 6, 333, true, true, 33);
}

TEST_P(Elementwise, LayerNormAddsBiasWithoutResidual) {
    PRECIS_REQUIRE_GPU();
    check_layer_norm(GetParam(), 3, 768, false, true, 41);
}

// A residual stream with a large common offset: two-pass statistics keep the variance exact
// where E[x^2] - E[x]^2 would cancel.
TEST_P(Elementwise, LayerNormKeepsPrecisionOnRowsWithLargeMean) {
    PRECIS_REQUIRE_GPU();
    check_layer_norm(GetParam(), 4, 768, true, true, 51, 4.f);
}

// Rows wider than the shared-memory cache (recomputed from global memory) and more rows than
// the grid has blocks (the grid-stride loop over rows).
TEST_P(Elementwise, LayerNormHandlesWideRowsAndManyRows) {
    PRECIS_REQUIRE_GPU();
    const Precision p = GetParam();
    check_layer_norm(p, 3, 9000, true, true, 61);
    check_layer_norm(p, 70000, 24, true, false, 62);
    // fp16/bf16 rows up to 2048 wide take a warp per row: the widest, one whose last vectors
    // leave lanes idle, and more rows than the grid's warps.
    check_layer_norm(p, 3, 2048, true, true, 63);
    check_layer_norm(p, 5, 1032, true, false, 64);
    check_layer_norm(p, 300000, 8, true, true, 65);
}

// ---- bias_activation --------------------------------------------------------------------------

void check_bias_activation(Precision p, int64_t rows, int64_t n, bool with_bias, bool gelu, uint32_t seed) {
    SCOPED_TRACE("rows " + std::to_string(rows) + " n " + std::to_string(n) + " bias " + std::to_string(with_bias) +
                 " gelu " + std::to_string(gelu));
    const size_t total = size_t(rows * n);
    const std::vector<float> y = rounded_to(p, gaussian(total, seed, 2.f));
    const std::vector<float> bias = with_bias ? gaussian(size_t(n), seed + 1, 0.5f) : std::vector<float>();
    precis::cuda::DeviceBuffer dy = precis::test::upload_as(p, y);
    precis::cuda::DeviceBuffer db = precis::cuda::upload(bias);
    precis::cuda::bias_activation(p, dy.get(), with_bias ? db.as<float>() : nullptr, rows, n, gelu, nullptr);
    sync();
    const std::vector<float> out = precis::test::download_as_f32(p, dy.get(), total);

    std::vector<float> ref = y;
    auto cpu = precis::make_cpu_backend();
    if (with_bias) cpu->add_bias(ref.data(), bias.data(), rows, n);
    if (gelu) cpu->gelu(ref.data(), int64_t(total));
    if (!with_bias && !gelu) {
        EXPECT_EQ(out, y) << "identity must leave y untouched";
        return;
    }
    EXPECT_LE(normalized_error(out, expected_in(p, ref)), op_tolerance(p));
}

TEST_P(Elementwise, BiasGeluMatchesCpuExactErfGelu) {
    PRECIS_REQUIRE_GPU();
    const Precision p = GetParam();
    check_bias_activation(p, 1, 3072, true, true, 71);
    check_bias_activation(p, 7, 13, true, true, 72);
    check_bias_activation(p, 5, 4097, true, true, 73);
    check_bias_activation(p, 3, 1, true, true, 74);
}

TEST_P(Elementwise, GeluWithoutBiasMatchesCpu) {
    PRECIS_REQUIRE_GPU();
    const Precision p = GetParam();
    check_bias_activation(p, 4, 3072, false, true, 81);
    check_bias_activation(p, 1, 77, false, true, 82);
}

TEST_P(Elementwise, BiasWithoutGeluMatchesCpu) {
    PRECIS_REQUIRE_GPU();
    const Precision p = GetParam();
    check_bias_activation(p, 6, 768, true, false, 91);
    check_bias_activation(p, 2, 31, true, false, 92);
}

TEST_P(Elementwise, NoBiasNoGeluLeavesValuesUnchanged) {
    PRECIS_REQUIRE_GPU();
    check_bias_activation(GetParam(), 3, 100, false, false, 95);
}

// ---- embed ------------------------------------------------------------------------------------

// pos_period = rows is the encoder; pos_period = new_len a decoder step of rows / new_len beams.
// group_offsets (one per group of pos_period rows): read on the device and added to pos_first
// for that group's rows (a replayed decoder step graph, whose rows each hold their own cache
// length), which must place the positions as the CPU does at pos_first + offset.
void check_embed(Precision p, int64_t rows, int64_t vocab, int64_t dim, float scale, bool with_positions,
                 int64_t pos_first, int64_t pos_period, uint32_t seed, const std::vector<int32_t>& group_offsets = {}) {
    SCOPED_TRACE("rows " + std::to_string(rows) + " vocab " + std::to_string(vocab) + " dim " + std::to_string(dim) +
                 " positions " + std::to_string(with_positions) + " first " + std::to_string(pos_first) +
                 " period " + std::to_string(pos_period) + " offsets " + std::to_string(group_offsets.size()));
    const int64_t period = with_positions ? pos_period : rows;
    const int64_t groups = (rows + period - 1) / period;
    ASSERT_TRUE(group_offsets.empty() || int64_t(group_offsets.size()) == groups);
    auto offset = [&](int64_t g) { return group_offsets.empty() ? 0 : int64_t(group_offsets[size_t(g)]); };
    int64_t most = 0;
    for (int64_t g = 0; g < groups; ++g) most = std::max(most, offset(g));
    const std::vector<float> table = rounded_to(p, gaussian(size_t(vocab * dim), seed));
    const int64_t n_pos = pos_first + most + pos_period;
    const std::vector<float> positions =
        with_positions ? rounded_to(p, gaussian(size_t(n_pos * dim), seed + 1)) : std::vector<float>();
    std::mt19937 rng(seed + 2);
    std::uniform_int_distribution<int32_t> pick(0, int32_t(vocab - 1));
    std::vector<int32_t> ids(static_cast<size_t>(rows));
    for (int32_t& id : ids) id = pick(rng);
    ids.front() = int32_t(vocab - 1);  // the last row of the table is reachable
    if (rows > 1) ids[1] = 0;

    precis::cuda::DeviceBuffer dids = precis::cuda::upload(ids);
    precis::cuda::DeviceBuffer dtable = precis::test::upload_as(p, table);
    precis::cuda::DeviceBuffer dpos = with_positions ? precis::test::upload_as(p, positions) : precis::cuda::DeviceBuffer();
    precis::cuda::DeviceBuffer dout(size_t(rows * dim) * precis::cuda::bytes_of(p));
    precis::cuda::DeviceBuffer doffsets =
        group_offsets.empty() ? precis::cuda::DeviceBuffer() : precis::cuda::upload(group_offsets);
    precis::cuda::embed(p, dids.as<int32_t>(), rows, dtable.get(), vocab, dim, scale,
                        with_positions ? dpos.get() : nullptr, pos_first, pos_period, dout.get(), nullptr,
                        group_offsets.empty() ? nullptr : doffsets.as<int32_t>());
    sync();
    const std::vector<float> out = precis::test::download_as_f32(p, dout.get(), size_t(rows * dim));

    // The CPU op numbers positions pos0 + r over its call: one call per period.
    std::vector<float> ref(size_t(rows * dim));
    const std::vector<int64_t> ids64(ids.begin(), ids.end());
    auto cpu = precis::make_cpu_backend();
    for (int64_t start = 0; start < rows; start += period)
        cpu->embed(ids64.data() + start, std::min(period, rows - start), table.data(), vocab, dim, scale,
                   with_positions ? positions.data() : nullptr, pos_first + offset(start / period),
                   ref.data() + start * dim);
    EXPECT_LE(normalized_error(out, expected_in(p, ref)), op_tolerance(p));
}

TEST_P(Elementwise, EmbedMatchesCpuForEncoderPositions) {
    PRECIS_REQUIRE_GPU();
    const Precision p = GetParam();
    check_embed(p, 37, 1000, 768, 27.712812f, true, 2, 37, 101);  // BART: positions offset by 2
    check_embed(p, 1, 50, 1024, 1.f, true, 2, 1, 102);
    check_embed(p, 5, 9, 13, 0.5f, true, 0, 5, 103);
}

TEST_P(Elementwise, EmbedMatchesCpuForDecoderStepPositions) {
    PRECIS_REQUIRE_GPU();
    const Precision p = GetParam();
    check_embed(p, 4 * 3, 500, 768, 1.f, true, 2 + 17, 3, 111);  // 4 beams, 3 new tokens each, at step 17
    check_embed(p, 6, 300, 100, 2.f, true, 2 + 40, 1, 112);      // 6 beams, one token each
    check_embed(p, 5, 300, 768, 1.f, true, 2, 1, 113, {40, 40, 40, 40, 40});  // the lengths read on the device
    // Rows that joined at different steps (a continuous batch): each row's own length.
    check_embed(p, 6, 300, 768, 1.f, true, 2, 1, 114, {40, 0, 7, 7, 129, 1});
    check_embed(p, 3 * 2, 300, 64, 1.f, true, 2, 2, 115, {5, 0, 11});  // two new tokens a row
}

TEST_P(Elementwise, EmbedWithoutPositionsScalesTheTable) {
    PRECIS_REQUIRE_GPU();
    const Precision p = GetParam();
    check_embed(p, 9, 200, 768, 1.f, false, 0, 0, 121);
    check_embed(p, 66000, 40, 8, 3.f, false, 0, 0, 122);  // more rows than the grid has blocks
    // Group offsets without positions are not read: a read per row past the one offset
    // given is what memcheck would report.
    check_embed(p, 9, 200, 768, 1.f, false, 0, 0, 123, {7});
}

// ---- conversion -------------------------------------------------------------------------------

TEST_P(Elementwise, ConvertRoundTripRoundsToNearestAndIsIdempotent) {
    PRECIS_REQUIRE_GPU();
    const Precision p = GetParam();
    std::vector<float> v = gaussian(1003, 131, 10.f);  // odd length: no vector-width tail assumed
    v.insert(v.end(), {0.f, -0.f, 1.f, -2.f, 0.5f, 1.f / 3.f, 1024.f});
    const std::vector<float> back = rounded_to(p, v);
    ASSERT_EQ(back.size(), v.size());
    if (p == Precision::F32) {
        EXPECT_EQ(back, v);
        return;
    }
    // Unit roundoff: 2^-11 for fp16, 2^-8 for bf16; plus half fp16's smallest subnormal.
    const double u = p == Precision::F16 ? std::ldexp(1.0, -11) : std::ldexp(1.0, -8);
    for (size_t i = 0; i < v.size(); ++i)
        ASSERT_LE(std::fabs(double(back[i]) - v[i]), std::fabs(double(v[i])) * u + 3e-8) << "element " << i;
    EXPECT_EQ(rounded_to(p, back), back) << "a second round trip must change nothing";
    const size_t third = v.size() - 2;
    EXPECT_EQ(back[third], p == Precision::F16 ? 0.333251953125f : 0.333984375f) << "1/3 rounds to nearest";
    EXPECT_EQ(back[v.size() - 1], 1024.f);
    EXPECT_EQ(back[v.size() - 4], -2.f);
}

TEST_P(Elementwise, ZeroSizedCallsLaunchNothing) {
    PRECIS_REQUIRE_GPU();
    const Precision p = GetParam();
    EXPECT_NO_THROW(precis::cuda::add_layer_norm(p, nullptr, nullptr, nullptr, 0, 768, nullptr, nullptr, 1e-5f, nullptr));
    EXPECT_NO_THROW(precis::cuda::bias_activation(p, nullptr, nullptr, 0, 10, true, nullptr));
    EXPECT_NO_THROW(precis::cuda::embed(p, nullptr, 0, nullptr, 10, 8, 1.f, nullptr, 0, 0, nullptr, nullptr));
    EXPECT_NO_THROW(precis::cuda::convert_from_f32(p, nullptr, nullptr, 0, nullptr));
    EXPECT_NO_THROW(precis::cuda::convert_to_f32(p, nullptr, nullptr, 0, nullptr));
    EXPECT_NO_THROW(sync());
}

INSTANTIATE_TEST_SUITE_P(AllPrecisions, Elementwise,
                         ::testing::Values(Precision::F32, Precision::F16, Precision::BF16),
                         [](const ::testing::TestParamInfo<Precision>& info) {
                             return std::string(precis::cuda::precision_name(info.param));
                         });

// ---- host only: no GPU needed -----------------------------------------------------------------

// Every check runs before any CUDA call, so bad arguments are reported as precis::Error even
// on a machine without a device (these calls would otherwise fail inside the runtime). The
// pointers are deliberately bogus: a launch would fault, a check must come first.
TEST(ElementwiseArguments, BadArgumentsThrowBeforeAnyDeviceCall) {
    using precis::Error;
    namespace cu = precis::cuda;
    const Precision p = Precision::F16;
    float dummy = 0.f;
    void* bogus = &dummy;  // host memory: never dereferenced by a check, would fault in a kernel
    const float* fb = &dummy;
    const int32_t ids[1] = {0};

    EXPECT_THROW(cu::add_layer_norm(p, bogus, nullptr, nullptr, -1, 768, fb, fb, 1e-5f, nullptr), Error);
    EXPECT_THROW(cu::add_layer_norm(p, bogus, nullptr, nullptr, 2, 0, fb, fb, 1e-5f, nullptr), Error);
    EXPECT_THROW(cu::add_layer_norm(p, nullptr, nullptr, nullptr, 2, 8, fb, fb, 1e-5f, nullptr), Error);
    EXPECT_THROW(cu::add_layer_norm(p, bogus, nullptr, nullptr, 2, 8, nullptr, fb, 1e-5f, nullptr), Error);
    EXPECT_THROW(cu::add_layer_norm(Precision(7), bogus, nullptr, nullptr, 2, 8, fb, fb, 1e-5f, nullptr), Error);

    EXPECT_THROW(cu::bias_activation(p, bogus, fb, -3, 8, true, nullptr), Error);
    EXPECT_THROW(cu::bias_activation(p, bogus, fb, 3, 0, true, nullptr), Error);
    EXPECT_THROW(cu::bias_activation(p, nullptr, fb, 3, 8, true, nullptr), Error);

    EXPECT_THROW(cu::embed(p, ids, -1, bogus, 10, 8, 1.f, nullptr, 0, 1, bogus, nullptr), Error);
    EXPECT_THROW(cu::embed(p, ids, 1, bogus, 0, 8, 1.f, nullptr, 0, 1, bogus, nullptr), Error);
    EXPECT_THROW(cu::embed(p, ids, 1, bogus, 10, -8, 1.f, nullptr, 0, 1, bogus, nullptr), Error);
    EXPECT_THROW(cu::embed(p, ids, 1, bogus, 10, 8, 1.f, bogus, 0, 0, bogus, nullptr), Error);   // period 0
    EXPECT_THROW(cu::embed(p, ids, 1, bogus, 10, 8, 1.f, bogus, -2, 1, bogus, nullptr), Error);  // first < 0
    EXPECT_THROW(cu::embed(p, nullptr, 1, bogus, 10, 8, 1.f, nullptr, 0, 1, bogus, nullptr), Error);
    EXPECT_THROW(cu::embed(p, ids, 1, bogus, 10, 8, 1.f, nullptr, 0, 1, nullptr, nullptr), Error);

    EXPECT_THROW(cu::convert_from_f32(p, fb, bogus, -1, nullptr), Error);
    EXPECT_THROW(cu::convert_from_f32(p, nullptr, bogus, 4, nullptr), Error);
    EXPECT_THROW(cu::convert_to_f32(p, bogus, nullptr, 4, nullptr), Error);
    EXPECT_THROW(cu::convert_to_f32(Precision(9), bogus, &dummy, 4, nullptr), Error);

    // Zero-sized calls return before any launch, whatever the pointers.
    EXPECT_NO_THROW(cu::add_layer_norm(p, nullptr, nullptr, nullptr, 0, 8, nullptr, nullptr, 1e-5f, nullptr));
    EXPECT_NO_THROW(cu::convert_to_f32(p, nullptr, nullptr, 0, nullptr));
}

}  // namespace
