// The int8 GEMM (7-bit asymmetric activations per row x int8 weights per output row,
// int32 sums) against two references:
//  - an exact one computed in double from the same quantized activations and weights:
//    the integer sums are exact, so only the final float scaling differs (~1e-7);
//  - float32 sgemm on the original weights and activations: this is the whole
//    quantization error. Weight rounding alone is <= 0.8% (lowp_linear_test); a Gaussian
//    activation row spans about +-3.3 sigma in 127 steps, so its rounding adds
//    0.052 / sqrt(12) = 1.5%; together about 1.7%, bounded here at 2.5%.
// Shapes cover the edges: 1 row, 4k+1 rows (micro-kernel tails), 17 (just past the
// GEMV), inputs not a multiple of 4, outputs not a multiple of 16 or 8.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <limits>
#include <cstdio>
#include <random>
#include <tuple>

#include "engine/backend/backend.h"
#include "engine/backend/gelu.h"
#include "engine/backend/int8_gemm.h"
#include "engine/backend/lowp_linear.h"
#include "engine/model/bart_weights.h"
#include "engine/model/encoder.h"
#include "engine/model/model.h"
#include "tests/support/numeric.h"

namespace precis::test {
namespace {

struct QuantizedLinear {
    std::vector<int8_t> q;
    std::vector<float> scales;
    WeightRef ref() const { return {WeightFormat::I8, q.data(), scales.data()}; }
};

QuantizedLinear quantize(const std::vector<float>& w, int64_t out, int64_t in) {
    QuantizedLinear l{std::vector<int8_t>(size_t(out * in)), std::vector<float>(size_t(out))};
    quantize_rows_int8(w.data(), out, in, l.q.data(), l.scales.data());
    return l;
}

// The product the kernel promises, in double from the same integers.
std::vector<float> exact_reference(const std::vector<float>& x, int64_t rows, int64_t in, const QuantizedLinear& w,
                                   const std::vector<float>& b, int64_t out) {
    std::vector<float> y(size_t(rows * out));
    std::vector<uint8_t> u{std::vector<uint8_t>(size_t(in))};
    for (int64_t r = 0; r < rows; ++r) {
        const ActivationScale s = quantize_activation_row(x.data() + r * in, in, u.data());
        for (int64_t o = 0; o < out; ++o) {
            int64_t dot = 0;
            for (int64_t i = 0; i < in; ++i) dot += (int64_t(u[size_t(i)]) - s.zero) * w.q[size_t(o * in + i)];
            y[size_t(r * out + o)] = float(double(dot) * s.scale * w.scales[size_t(o)] + (b.empty() ? 0.0 : b[size_t(o)]));
        }
    }
    return y;
}

using Shape = std::tuple<int64_t, int64_t, int64_t>;  // rows, in, out

// Each test runs on one micro-kernel (skipped where the CPU lacks it) and puts the
// default back after.
class Int8Gemm : public ::testing::TestWithParam<std::tuple<Int8Kernel, int64_t, int64_t, int64_t>> {
protected:
    void SetUp() override {
        const Int8Kernel k = std::get<0>(GetParam());
        if (!int8_kernel_supported(k)) GTEST_SKIP() << "this CPU has no " << int8_kernel_name(k);
        set_int8_gemm_kernel(k);
    }
    void TearDown() override { set_int8_gemm_kernel(default_kernel_); }
    const Int8Kernel default_kernel_ = int8_gemm_kernel();
};

TEST_P(Int8Gemm, EqualsTheIntegerProductOfTheQuantizedValues) {
    set_cpu_threads(2);
    const auto [kernel, rows, in, out] = GetParam();
    const std::vector<float> w = gaussian(size_t(out * in), 1, 0.05f), x = gaussian(size_t(rows * in), 2),
                             b = gaussian(size_t(out), 3);
    const QuantizedLinear q = quantize(w, out, in);
    std::vector<float> y(size_t(rows * out), NAN);
    int8_gemm(x.data(), rows, in, q.ref(), b.data(), out, y.data());
    EXPECT_LT(normalized_error(y, exact_reference(x, rows, in, q, b, out)), 1e-6);
}

TEST_P(Int8Gemm, GivesTheSameBitsAsTheAvx2Kernel) {
    set_cpu_threads(2);
    const auto [kernel, rows, in, out] = GetParam();
    const std::vector<float> w = gaussian(size_t(out * in), 1, 0.05f), x = gaussian(size_t(rows * in), 2, 3.f),
                             b = gaussian(size_t(out), 3);
    const QuantizedLinear q = quantize(w, out, in);
    std::vector<float> y(size_t(rows * out), NAN), avx2(y.size(), NAN);
    int8_gemm(x.data(), rows, in, q.ref(), b.data(), out, y.data());
    set_int8_gemm_kernel(Int8Kernel::Avx2);
    int8_gemm(x.data(), rows, in, q.ref(), b.data(), out, avx2.data());
    EXPECT_EQ(y, avx2);
}

TEST_P(Int8Gemm, StaysWithinTheQuantizationBoundOfFloat32) {
    set_cpu_threads(2);
    const auto [kernel, rows, in, out] = GetParam();
    // The bound is on the quantization noise over many products; one or three products can
    // land near zero by chance and make any relative bound a matter of the seed.
    // EqualsTheIntegerProductOfTheQuantizedValues checks those shapes exactly.
    if (in < 32) GTEST_SKIP() << "too few inputs for a statistical bound";
    if (rows * out < 16) GTEST_SKIP() << "too few products for a statistical bound";
    const std::vector<float> w = gaussian(size_t(out * in), 4, 0.05f), x = gaussian(size_t(rows * in), 5),
                             b = gaussian(size_t(out), 6, 0.1f);
    const QuantizedLinear q = quantize(w, out, in);
    auto be = make_cpu_backend();
    std::vector<float> y(size_t(rows * out)), ref(y.size());
    int8_gemm(x.data(), rows, in, q.ref(), b.data(), out, y.data());
    be->linear(x.data(), rows, in, w.data(), b.data(), out, ref.data());
    const double e = normalized_error(y, ref);
    EXPECT_LT(e, 2.5e-2);
    EXPECT_GT(e, 0.0);
}

// The fused GELU (applied to each block of rows as it is written) against the product
// followed by the separate pass: the same function on the same floats, so the same bits.
TEST_P(Int8Gemm, AppliesGeluWithTheBitsOfTheSeparatePass) {
    set_cpu_threads(2);
    const auto [kernel, rows, in, out] = GetParam();
    const std::vector<float> w = gaussian(size_t(out * in), 21, 0.05f), x = gaussian(size_t(rows * in), 22, 2.f),
                             b = gaussian(size_t(out), 23);
    const QuantizedLinear q = quantize(w, out, in);
    std::vector<float> fused(size_t(rows * out), NAN), separate(fused.size(), NAN);
    int8_gemm(x.data(), rows, in, q.ref(), b.data(), out, fused.data(), Activation::Gelu);
    int8_gemm(x.data(), rows, in, q.ref(), b.data(), out, separate.data());
    gelu_in_place(separate.data(), int64_t(separate.size()));
    EXPECT_EQ(fused, separate);
}

std::string shape_label(const ::testing::TestParamInfo<Int8Gemm::ParamType>& info) {
    const auto [kernel, rows, in, out] = info.param;
    std::string name = int8_kernel_name(kernel);
    name.erase(std::remove(name.begin(), name.end(), '-'), name.end());
    return name + "_rows" + std::to_string(rows) + "_in" + std::to_string(in) + "_out" + std::to_string(out);
}

// Rows: 1, tails of the 4-, 6- and 8-row tiles, past one 64-row block; outputs: one
// panel, a panel and a half, an odd number of panels (the AVX-512 kernel's pairs).
INSTANTIATE_TEST_SUITE_P(EdgeSizes, Int8Gemm,
                         ::testing::Combine(::testing::Values(Int8Kernel::Avx2, Int8Kernel::AvxVnni,
                                                              Int8Kernel::Avx512Vnni, Int8Kernel::OneDnn),
                                            ::testing::Values<int64_t>(1, 3, 17, 64, 133),
                                            ::testing::Values<int64_t>(1, 7, 37, 768),
                                            ::testing::Values<int64_t>(1, 15, 17, 1000)),
                         shape_label);

TEST(Int8Kernels, OneDnnIsDescribedByItsVersionAndTheImplementationItPicks) {
    const std::string d = int8_kernel_description(Int8Kernel::OneDnn);
    EXPECT_EQ(d.rfind("onednn: oneDNN ", 0), 0u) << d;
    EXPECT_NE(d.find(", "), std::string::npos) << d;  // the implementation, e.g. brg:avx512_core_vnni
    EXPECT_EQ(int8_kernel_description(Int8Kernel::Avx2), "avx2");
}

TEST(Int8Gemm, WithoutBiasAddsNothing) {
    const int64_t rows = 21, in = 50, out = 33;
    const std::vector<float> w = gaussian(size_t(out * in), 7, 0.05f), x = gaussian(size_t(rows * in), 8);
    const QuantizedLinear q = quantize(w, out, in);
    std::vector<float> y(size_t(rows * out));
    int8_gemm(x.data(), rows, in, q.ref(), nullptr, out, y.data());
    EXPECT_LT(normalized_error(y, exact_reference(x, rows, in, q, {}, out)), 1e-6);
}

TEST(Int8Gemm, GivesTheSameBitsOnOneThreadAsOnTwo) {
    const int64_t rows = 300, in = 768, out = 512;
    const std::vector<float> w = gaussian(size_t(out * in), 9, 0.05f), x = gaussian(size_t(rows * in), 10);
    const QuantizedLinear q = quantize(w, out, in);
    std::vector<float> one(size_t(rows * out)), two(one.size());
    set_cpu_threads(1);
    int8_gemm(x.data(), rows, in, q.ref(), nullptr, out, one.data());
    set_cpu_threads(2);
    int8_gemm(x.data(), rows, in, q.ref(), nullptr, out, two.data());
    EXPECT_EQ(one, two);
}

TEST(Int8Gemm, IsWhatTheCpuBackendUsesForInt8WeightsPastTheGemvRows) {
    set_cpu_threads(2);
    const int64_t rows = kLowpGemvMaxRows + 1, in = 64, out = 40;
    const std::vector<float> w = gaussian(size_t(out * in), 11, 0.05f), x = gaussian(size_t(rows * in), 12);
    const QuantizedLinear q = quantize(w, out, in);
    std::vector<float> direct(size_t(rows * out)), through_backend(direct.size());
    int8_gemm(x.data(), rows, in, q.ref(), nullptr, out, direct.data());
    make_cpu_backend()->linear(x.data(), rows, in, q.ref(), nullptr, out, through_backend.data());
    EXPECT_EQ(direct, through_backend);
}

// linear_gelu on the CPU backend: fused in the int8 product past the GEMV rows, the
// product then the pass below them and for float32 weights; the same bits either way.
TEST(Int8Gemm, TheBackendsLinearGeluEqualsLinearThenGeluOnEveryPath) {
    set_cpu_threads(2);
    auto be = make_cpu_backend();
    const int64_t in = 96, out = 200;
    const std::vector<float> w = gaussian(size_t(out * in), 24, 0.05f), b = gaussian(size_t(out), 25);
    const QuantizedLinear q = quantize(w, out, in);
    for (int64_t rows : {int64_t(1), kLowpGemvMaxRows, kLowpGemvMaxRows + 1, int64_t(130)}) {
        const std::vector<float> x = gaussian(size_t(rows * in), 26, 2.f);
        for (const WeightRef& ref : {q.ref(), WeightRef{WeightFormat::F32, w.data(), nullptr}}) {
            std::vector<float> fused(size_t(rows * out), NAN), separate(fused.size(), NAN);
            be->linear_gelu(x.data(), rows, in, ref, b.data(), out, fused.data());
            be->linear(x.data(), rows, in, ref, b.data(), out, separate.data());
            be->gelu(separate.data(), int64_t(separate.size()));
            EXPECT_EQ(fused, separate) << rows << " rows, " << (ref.format == WeightFormat::I8 ? "int8" : "fp32");
        }
    }
}

TEST(Int8Gemm, ReleasedScratchIsFreedAndTheNextProductGivesTheSameBits) {
    const int64_t rows = 1000, in = 768, out = 96;
    const std::vector<float> w = gaussian(size_t(out * in), 13, 0.05f), x = gaussian(size_t(rows * in), 14);
    const QuantizedLinear q = quantize(w, out, in);
    std::vector<float> before(size_t(rows * out)), after(before.size());
    int8_gemm(x.data(), rows, in, q.ref(), nullptr, out, before.data());
    EXPECT_GE(int8_gemm_scratch_bytes(), size_t(rows * in));
    make_cpu_backend()->release_scratch();
    EXPECT_EQ(int8_gemm_scratch_bytes(), 0u);
    int8_gemm(x.data(), rows, in, q.ref(), nullptr, out, after.data());
    EXPECT_EQ(before, after);
}

TEST(Int8Gemm, TheEncoderLeavesNoProductScratchForDecodingToCarry) {
    ModelConfig cfg;
    cfg.vocab_size = 300;
    cfg.d_model = 64;
    cfg.encoder_layers = cfg.decoder_layers = 2;
    cfg.encoder_heads = cfg.decoder_heads = 4;
    cfg.encoder_ffn_dim = cfg.decoder_ffn_dim = 256;
    cfg.max_position_embeddings = 256;
    auto model = Model::from_parts(cfg, BartWeights::random(cfg, 5, ComputeType::Int8), nullptr, GenerationConfig{},
                                   "random-int8");
    std::vector<int64_t> ids(200, 7);
    ids.front() = cfg.bos_token_id;
    ids.back() = cfg.eos_token_id;
    auto backend = make_cpu_backend();
    std::vector<float> grow(size_t(kLowpGemvMaxRows + 1) * 64);
    std::vector<float> y(size_t(kLowpGemvMaxRows + 1) * 256);
    backend->linear(grow.data(), kLowpGemvMaxRows + 1, 64, model->weights().encoder_layers[0].fc1.ref(), nullptr,
                    256, y.data());
    ASSERT_GT(int8_gemm_scratch_bytes(), 0u);
    const EncoderOutput out = run_encoder(*model, *backend, {ids}, {}, native_attention_options(*model), RunCallbacks{});
    EXPECT_EQ(out.rows.size(), 1u);
    EXPECT_EQ(int8_gemm_scratch_bytes(), 0u);
}

TEST(ActivationQuantization, UsesSevenBitsKeepsZeroExactAndRoundTripsWithinHalfAStep) {
    // A one-sided row (as after GELU) and a symmetric one.
    for (const std::vector<float>& x : {std::vector<float>{-0.17f, 0.f, 0.5f, 3.f, 1.25f, -0.01f, 2.2f},
                                        gaussian(301, 13)}) {
        std::vector<uint8_t> u(x.size());
        const ActivationScale s = quantize_activation_row(x.data(), int64_t(x.size()), u.data());
        ASSERT_GT(s.scale, 0.f);
        for (size_t i = 0; i < x.size(); ++i) {
            EXPECT_LE(u[i], kActivationLevels);
            EXPECT_LE(std::fabs((float(u[i]) - float(s.zero)) * s.scale - x[i]), 0.5f * s.scale + 1e-6f) << i;
            if (x[i] == 0.f) EXPECT_EQ(int32_t(u[i]), s.zero);
        }
    }
}

TEST(ActivationQuantization, AnAllZeroRowIsAllZeroPoint) {
    const std::vector<float> x(19, 0.f);
    std::vector<uint8_t> u(x.size(), 99);
    const ActivationScale s = quantize_activation_row(x.data(), int64_t(x.size()), u.data());
    EXPECT_EQ(s.zero, 0);
    for (uint8_t v : u) EXPECT_EQ(v, 0);
}

// quantize_activation_row works eight and thirty-two lanes at a time with a scalar tail;
// every element must get what the plain per-element rule gives: round(x / scale) + zero
// clamped to [0, 127], with min and max skipping a NaN, which is stored as 0.
TEST(ActivationQuantization, EveryLengthGivesThePlainRoundingOfEachElement) {
    for (int64_t n : {1, 7, 8, 9, 31, 32, 33, 40, 63, 64, 65, 768, 777}) {
        std::vector<float> x = gaussian(size_t(n), uint32_t(100 + n));
        for (int64_t i = 0; i < n; i += 5) x[size_t(i)] = std::round(x[size_t(i)] * 8.f) / 8.f;  // ties
        if (n > 3) x[size_t(n / 2)] = std::numeric_limits<float>::quiet_NaN();
        float lo = 0.f, hi = 0.f;
        for (float v : x) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
        const float scale = (hi - lo) / float(kActivationLevels);
        const int32_t zero = int32_t(std::nearbyint(-lo / scale));
        std::vector<uint8_t> u(size_t(n), 99);
        const ActivationScale s = quantize_activation_row(x.data(), n, u.data());
        EXPECT_EQ(s.scale, scale) << n;
        EXPECT_EQ(s.zero, zero) << n;
        for (int64_t i = 0; i < n; ++i) {
            const float r = std::nearbyint(x[size_t(i)] * (1.f / scale)) + float(zero);
            const int want = std::isnan(r) ? 0 : int(std::clamp(r, 0.f, float(kActivationLevels)));
            EXPECT_EQ(int(u[size_t(i)]), want) << "n " << n << " element " << i;
        }
    }
}

// Manual timing against sgemm on bart-base / bart-large encoder shapes (no asserts on
// time); run with --gtest_also_run_disabled_tests --gtest_filter='*Timing*'. One thread,
// timed by its own CPU clock (best of 5), so that other processes sharing the cores
// change the figures little: this compares the kernels, not the machine's load.
TEST(Int8GemmTiming, DISABLED_AgainstSgemmOnEncoderShapes) {
    set_cpu_threads(1);
    auto be = make_cpu_backend();
    for (const Shape& s : {Shape{1024, 768, 768}, Shape{1024, 768, 3072}, Shape{1024, 3072, 768},
                           Shape{1024, 1024, 1024}, Shape{1024, 1024, 4096}, Shape{1024, 4096, 1024}}) {
        // Plain copies, not structured bindings: clang 14 cannot capture those in lambdas.
        const int64_t rows = std::get<0>(s), in = std::get<1>(s), out = std::get<2>(s);
        const std::vector<float> w = gaussian(size_t(out * in), 1, 0.05f), x = gaussian(size_t(rows * in), 2);
        const QuantizedLinear q = quantize(w, out, in);
        std::vector<float> y(size_t(rows * out));
        auto time = [&](auto&& f) {
            f();
            auto cpu_now = [] {
                timespec ts{};
                clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
                return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
            };
            double best = 1e9;
            for (int i = 0; i < 5; ++i) {
                const double t0 = cpu_now();
                f();
                best = std::min(best, cpu_now() - t0);
            }
            return best;
        };
        const double f32 = time([&] { be->linear(x.data(), rows, in, w.data(), nullptr, out, y.data()); });
        const double gmac = double(rows) * in * out * 1e-9;
        std::printf("rows %5lld in %5lld out %5lld: sgemm %7.2f ms (%5.1f GMAC/s)", (long long)rows, (long long)in,
                    (long long)out, f32 * 1e3, gmac / f32);
        const Int8Kernel before = int8_gemm_kernel();
        for (Int8Kernel k : {Int8Kernel::Avx2, Int8Kernel::AvxVnni, Int8Kernel::Avx512Vnni, Int8Kernel::OneDnn}) {
            if (!int8_kernel_supported(k)) continue;
            set_int8_gemm_kernel(k);
            const double i8 = time([&] { int8_gemm(x.data(), rows, in, q.ref(), nullptr, out, y.data()); });
            std::printf("  %s %6.2f ms (%5.1f GMAC/s) x%.2f", int8_kernel_name(k), i8 * 1e3, gmac / i8, f32 / i8);
        }
        set_int8_gemm_kernel(before);
        std::printf("\n");
    }
}

}  // namespace
}  // namespace precis::test
