// The int8 and fp16-weight linear kernels against float32 (and the float32 few-rows stream
// against a double reference), parameterized over compute
// type and shape the way CTranslate2's layer tests run over dtype. Two comparisons:
//  - against sgemm on the same weights widened to float32: this isolates the kernel.
//    fp16 differs only in summation order (~1e-7). The int8 GEMV also rounds each
//    activation row to int16 with the scale max|x|/16383: uniform errors of +-max|x|/32766,
//    for Gaussian rows (max|x| ~ 3.5 sigma) about 3e-5 relative, bounded here by 1e-4;
//  - against sgemm on the original float32 weights: this is the quantization error.
//    int8 per-row symmetric rounding errors are uniform in +-s/2 with s = max|w|/127;
//    for Gaussian rows of 64..1024 entries max|w| is 2.5..3.3 sigma, so each product's
//    relative error is about s/sqrt(12)/sigma <= 0.8%. fp16 rounds to 11 significant bits,
//    relative 2^-11/sqrt(3) = 2.8e-4 per weight, the same after summing.
// Errors are normalized as in ggml's backend tests: ||y - ref|| / ||ref||.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <tuple>

#include "engine/backend/backend.h"
#include "engine/backend/lowp_linear.h"
#include "engine/model/bart_weights.h"
#include "tests/support/numeric.h"

namespace precis::test {
namespace {

using Shape3 = std::tuple<ComputeType, int64_t, int64_t, int64_t>;  // type, rows, in, out

class LowpLinear : public ::testing::TestWithParam<Shape3> {};

TEST_P(LowpLinear, MatchesFloat32OnTheWidenedWeightsAndBoundsTheQuantizationError) {
    set_cpu_threads(2);
    const auto [type, rows, in, out] = GetParam();
    const std::vector<float> w = gaussian(size_t(out * in), 1, 0.05f), x = gaussian(size_t(rows * in), 2),
                             b = gaussian(size_t(out), 3);
    Tensor scales;
    const Tensor stored = LinearWeights::stored_as(Tensor::from_floats({out, in}, w), type, &scales);
    const LinearWeights lw{stored, scales, Tensor::from_floats({out}, b)};
    const WeightRef ref = lw.ref();
    ASSERT_EQ(ref.format, type == ComputeType::Int8 ? WeightFormat::I8 : WeightFormat::F16);

    auto be = make_cpu_backend();
    std::vector<float> y(size_t(rows * out), NAN), widened(size_t(out * in)), y_widened(y.size()), y_fp32(y.size());
    be->linear(x.data(), rows, in, ref, b.data(), out, y.data());
    widen_weight(ref, out, in, widened.data());
    be->linear(x.data(), rows, in, widened.data(), b.data(), out, y_widened.data());
    be->linear(x.data(), rows, in, w.data(), b.data(), out, y_fp32.data());

    // Past the GEMV rows int8 runs in integers with quantized activations (int8_gemm_test
    // checks that kernel exactly); its bound here adds the activations' rounding.
    const bool int8_gemm_path = type == ComputeType::Int8 && rows > kLowpGemvMaxRows;
    if (!int8_gemm_path)
        EXPECT_LT(normalized_error(y, y_widened), type == ComputeType::Int8 ? 1e-4 : 2e-6) << "the kernel itself";
    const double bound = type == ComputeType::Int8 ? (int8_gemm_path ? 2.5e-2 : 1.2e-2) : 5e-4;
    const double q = normalized_error(y, y_fp32);
    EXPECT_LT(q, bound) << "quantization error";
    EXPECT_GT(q, 0.0);  // the weights really were stored in fewer bits
}

TEST_P(LowpLinear, WithoutBiasAddsNothing) {
    set_cpu_threads(2);
    const auto [type, rows, in, out] = GetParam();
    const std::vector<float> w = gaussian(size_t(out * in), 4, 0.05f), x = gaussian(size_t(rows * in), 5),
                             zeros(size_t(out), 0.f);
    Tensor scales;
    const LinearWeights lw{LinearWeights::stored_as(Tensor::from_floats({out, in}, w), type, &scales), scales, {}};
    auto be = make_cpu_backend();
    std::vector<float> y(size_t(rows * out)), ref(y.size());
    be->linear(x.data(), rows, in, lw.ref(), nullptr, out, y.data());
    be->linear(x.data(), rows, in, lw.ref(), zeros.data(), out, ref.data());
    EXPECT_EQ(y, ref);
}

// The int8 GEMV's integer sums at their largest: every weight at +127 steps and every
// activation at the row maximum (+16383 after quantization) over 8224 weights, two
// integer chunks and a tail. Exact in float32 up to the final scaling.
TEST(Int8Gemv, LargestProductsOverLongRowsDoNotOverflow) {
    const int64_t in = 8224, out = 3;
    const std::vector<float> w(size_t(out * in), 0.02f), x(size_t(in), 1.5f);
    Tensor scales;
    const LinearWeights lw{LinearWeights::stored_as(Tensor::from_floats({out, in}, w), ComputeType::Int8, &scales),
                           scales, {}};
    auto be = make_cpu_backend();
    std::vector<float> y(static_cast<size_t>(out));
    be->linear(x.data(), 1, in, lw.ref(), nullptr, out, y.data());
    for (float v : y) EXPECT_NEAR(v, 0.02 * 1.5 * double(in), 1e-5 * 0.03 * double(in));
}

// A NaN or an infinity in a decoder row must reach the output, not be quantized away.
TEST(Int8Gemv, ANonFiniteActivationIsPassedOnNotQuantizedAway) {
    const int64_t in = 64, out = 8;
    const std::vector<float> w = gaussian(size_t(out * in), 6, 0.05f);
    Tensor scales;
    const LinearWeights lw{LinearWeights::stored_as(Tensor::from_floats({out, in}, w), ComputeType::Int8, &scales),
                           scales, {}};
    auto be = make_cpu_backend();
    for (float bad : {INFINITY, NAN}) {
        std::vector<float> x = gaussian(size_t(2 * in), 7), y(size_t(2 * out));
        x[size_t(in + 5)] = bad;  // the second row only
        be->linear(x.data(), 2, in, lw.ref(), nullptr, out, y.data());
        for (int64_t o = 0; o < out; ++o) {
            EXPECT_TRUE(std::isfinite(y[size_t(o)])) << "the first row is unaffected";
            EXPECT_FALSE(std::isfinite(y[size_t(out + o)])) << "output " << o << " of the second row";
        }
    }
}

std::string shape_label(const ::testing::TestParamInfo<Shape3>& info) {
    const auto [type, rows, in, out] = info.param;
    std::string t = type == ComputeType::Int8 ? "int8" : "fp16";
    return t + "_rows" + std::to_string(rows) + "_in" + std::to_string(in) + "_out" + std::to_string(out);
}

// Rows 1..5 and 16 take the GEMV (1-4 rows per pass, remainders), 17 and 200 the
// int8 GEMM (int8) or widen + sgemm (fp16); 100 and 37 leave tails after the 32-, 16- and
// 8-wide loops; 4100 runs past the int8 GEMV's 4096-weight integer chunk.
INSTANTIATE_TEST_SUITE_P(
    EveryPathAndTail, LowpLinear,
    ::testing::Combine(::testing::Values(ComputeType::Int8, ComputeType::Fp16Weights),
                       ::testing::Values<int64_t>(1, 2, 3, 4, 5, 16, 17, 200),
                       ::testing::Values<int64_t>(37, 100, 768, 4100), ::testing::Values<int64_t>(48, 1000)),
    shape_label);

// A decoding step's rows with float32 weights stream each weight row once (lowp_linear.h,
// up to 16 rows; up to 32 without AVX-512) or take the step product (fp32_step_gemm.h, 17
// to 128 rows) instead of going through sgemm: the same product up to summation order,
// against a double reference, over row counts on both sides of every switch (129 goes to
// sgemm), inputs whose length leaves 8- and 1-element tails, with and without bias.
TEST(Float32FewRows, StreamedProductMatchesADoubleReferenceOverRowCountsAndTails) {
    set_cpu_threads(2);
    for (const int64_t in : {7, 37, 100, 768, 3075})
        for (const int64_t rows : {1, 2, 3, 4, 5, 8, 15, 16, 17, 18, 31, 32, 33, 64, 128, 129}) {
            SCOPED_TRACE(::testing::Message() << "rows " << rows << " in " << in);
            const int64_t out = 250;
            const std::vector<float> w = gaussian(size_t(out * in), 11, 0.05f), x = gaussian(size_t(rows * in), 12),
                                     b = gaussian(size_t(out), 13);
            auto be = make_cpu_backend();
            for (const bool with_bias : {true, false}) {
                std::vector<float> y(size_t(rows * out), NAN), ref(y.size());
                be->linear(x.data(), rows, in, w.data(), with_bias ? b.data() : nullptr, out, y.data());
                for (int64_t r = 0; r < rows; ++r)
                    for (int64_t o = 0; o < out; ++o) {
                        double s = with_bias ? b[size_t(o)] : 0.0;
                        for (int64_t i = 0; i < in; ++i) s += double(x[size_t(r * in + i)]) * w[size_t(o * in + i)];
                        ref[size_t(r * out + o)] = float(s);
                    }
                EXPECT_LT(normalized_error(y, ref), 1e-6) << (with_bias ? "with bias" : "without bias");
            }
        }
}

// The streamed product's rows go by four at a time against blocks of weight rows: a group
// of four gets the same bits in a 16-row product as on its own, whichever block and column
// triple it falls in (250 outputs: blocks of 21 weight rows at 3,075 inputs, triples and a
// tail). (17 rows and more take the step product, whose rows keep their bits in any step
// of its sizes: fp32_step_gemm_test.cpp.)
TEST(Float32FewRows, AGroupOfFourRowsGetsTheSameBitsInsideABatch) {
    set_cpu_threads(2);
    for (const int64_t in : {100, 3075}) {
        const int64_t rows = 16, out = 250;
        const std::vector<float> w = gaussian(size_t(out * in), 21, 0.05f), x = gaussian(size_t(rows * in), 22),
                                 b = gaussian(size_t(out), 23);
        auto be = make_cpu_backend();
        std::vector<float> all(size_t(rows * out)), four(size_t(4 * out));
        be->linear(x.data(), rows, in, w.data(), b.data(), out, all.data());
        for (int64_t g = 0; g < rows; g += 4) {
            be->linear(x.data() + g * in, 4, in, w.data(), b.data(), out, four.data());
            EXPECT_EQ(four, std::vector<float>(all.begin() + g * out, all.begin() + (g + 4) * out)) << "rows " << g;
        }
    }
}

TEST(Int8Quantization, ScalesAreTheRowMaximumOver127AndValuesRoundTripWithinHalfAStep) {
    const int64_t out = 5, in = 33;
    std::vector<float> w = gaussian(size_t(out * in), 9);
    std::fill(w.begin() + 2 * in, w.begin() + 3 * in, 0.f);  // an all-zero row
    std::vector<int8_t> q(w.size());
    std::vector<float> s(static_cast<size_t>(out));
    quantize_rows_int8(w.data(), out, in, q.data(), s.data());
    for (int64_t o = 0; o < out; ++o) {
        float m = 0;
        for (int64_t i = 0; i < in; ++i) m = std::max(m, std::fabs(w[size_t(o * in + i)]));
        if (o == 2) {
            EXPECT_EQ(s[2], 1.f);
        } else {
            EXPECT_FLOAT_EQ(s[size_t(o)], m / 127.f);
        }
        int max_q = 0;
        for (int64_t i = 0; i < in; ++i) {
            const size_t k = size_t(o * in + i);
            EXPECT_LE(std::fabs(q[k] * s[size_t(o)] - w[k]), 0.5f * s[size_t(o)] * (1 + 1e-5f));
            max_q = std::max(max_q, std::abs(int(q[k])));
        }
        EXPECT_EQ(max_q, o == 2 ? 0 : 127);  // the full symmetric range, never -128
    }
}

TEST(Int8Quantization, HalfPrecisionCheckpointsQuantizeLikeTheirFloat32Values) {
    const int64_t out = 300, in = 40;  // more rows than one widening block
    const Tensor f32 = Tensor::from_floats({out, in}, gaussian(size_t(out * in), 11));
    for (DType half : {DType::F16, DType::BF16}) {
        const Tensor h = f32.to(half);
        Tensor s_half, s_ref;
        const Tensor q_half = LinearWeights::stored_as(h, ComputeType::Int8, &s_half);
        const Tensor q_ref = LinearWeights::stored_as(h.to_f32(), ComputeType::Int8, &s_ref);
        EXPECT_EQ(q_half.dtype(), DType::I8);
        EXPECT_EQ(q_half.to_float_vector(), q_ref.to_float_vector());
        EXPECT_EQ(s_half.to_float_vector(), s_ref.to_float_vector());
    }
}

TEST(ComputeTypeNames, ParseWhatTheyPrintAndRejectOthers) {
    for (ComputeType t : {ComputeType::Fp32, ComputeType::Int8, ComputeType::Fp16Weights})
        EXPECT_EQ(parse_compute_type(compute_type_name(t)), t);
    EXPECT_THROW(parse_compute_type("int4"), Error);
}

TEST(RandomWeights, EveryComputeTypeStoresTheSameValuesAndTheRightNumberOfBytes) {
    ModelConfig c;
    c.vocab_size = 300;
    c.d_model = 32;
    c.encoder_layers = c.decoder_layers = 2;
    c.encoder_heads = c.decoder_heads = 4;
    c.encoder_ffn_dim = c.decoder_ffn_dim = 64;
    c.max_position_embeddings = 64;
    const BartWeights f32 = BartWeights::random(c, 5);
    const BartWeights i8 = BartWeights::random(c, 5, ComputeType::Int8);
    BartWeights f16 = BartWeights::random(c, 5);
    f16.store_as(ComputeType::Fp16Weights);
    EXPECT_EQ(f32.lm_head.weight.raw(), f32.shared.raw()) << "fp32 LM head is the tied embedding, not a copy";
    EXPECT_EQ(i8.lm_head.weight.dtype(), DType::I8);
    EXPECT_EQ(f16.lm_head.weight.dtype(), DType::F16);
    EXPECT_EQ(i8.encoder_layers[1].fc2.weight.dtype(), DType::I8);
    EXPECT_EQ(f16.decoder_layers[0].cross_attn.k.weight.dtype(), DType::F16);
    EXPECT_FALSE(i8.shared.defined()) << "the embeddings are the quantized LM head, held once";
    EXPECT_EQ(f16.shared.dtype(), DType::F32) << "fp16-weights looks embeddings up in float32";
    EXPECT_EQ(i8.token_embeddings().data, i8.lm_head.weight.raw());
    // The same seed draws the same values: widened back they are within a rounding step.
    const LinearWeights& a = f32.decoder_layers[1].fc1;
    const LinearWeights& q = i8.decoder_layers[1].fc1;
    std::vector<float> back(size_t(a.weight.numel()));
    widen_weight(q.ref(), q.out(), q.in(), back.data());
    for (int64_t o = 0; o < a.out(); ++o)
        for (int64_t i = 0; i < a.in(); ++i)
            EXPECT_LE(std::fabs(back[size_t(o * a.in() + i)] - a.w()[o * a.in() + i]),
                      0.5f * q.scales.data<float>()[o] * 1.0001f);
    const size_t fp32_bytes = f32.linear_weight_bytes();
    EXPECT_EQ(f16.linear_weight_bytes() * 2, fp32_bytes);
    EXPECT_LT(i8.linear_weight_bytes(), fp32_bytes / 4 + fp32_bytes / 32 + 1);  // + one scale per row
}

}  // namespace
}  // namespace precis::test
