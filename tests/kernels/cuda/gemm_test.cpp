// cuBLAS products (kernels/ops/gemm.h) against the CPU backend's linear, in every storage
// precision: y[rows, out] = x[rows, in] W[out, in]^T, row-major as checkpoints store W.
// Inputs are rounded through the precision first, so the CPU reference multiplies exactly the
// values the device reads and the bound measures only the product's accumulation and output.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/backend/backend.h"
#include "engine/core/error.h"
#include "kernels/ops/gemm.h"
#include "tests/kernels/cuda/cuda_test_support.h"

namespace {

using precis::cuda::Gemm;
using precis::cuda::Precision;
using precis::test::gaussian;
using precis::test::normalized_error;
using precis::test::op_tolerance;
using precis::test::rounded_to;

struct Shape {
    int64_t rows, in, out;
};

std::string describe(const Shape& s) {
    return "rows " + std::to_string(s.rows) + " in " + std::to_string(s.in) + " out " + std::to_string(s.out);
}

// The CPU's y for the inputs as the device read them, with the rounding of the path that ran
// (see product_error).
std::vector<float> cpu_reference(const Gemm& gemm, Precision p, Precision out_p, const Shape& s,
                                 const std::vector<float>& x, const std::vector<float>& w,
                                 const std::vector<float>* bias) {
    const size_t ny = size_t(s.rows * s.out);
    std::vector<float> ref(ny);
    precis::make_cpu_backend()->linear(x.data(), s.rows, s.in, w.data(), nullptr, s.out, ref.data());
    if (bias) {
        const bool epilogue = gemm.last_used_epilogue();
        if (!epilogue && out_p != Precision::F32) ref = rounded_to(out_p, ref);  // the product's own rounding
        const std::vector<float> added = gemm.last_used_stored_bias() ? rounded_to(p, *bias) : *bias;
        for (size_t i = 0; i < ny; ++i) ref[i] += added[i % size_t(s.out)];
    }
    if (out_p != Precision::F32) ref = rounded_to(out_p, ref);
    return ref;
}

// A bias on the device as the model holds one: float32, and stored in p as DeviceLinear does.
struct DeviceBias {
    DeviceBias(Precision p, const std::vector<float>& b)
        : f32(precis::test::upload_as(Precision::F32, b)), stored(precis::test::upload_as(p, b)), p(p) {}
    void add_to(Gemm& gemm, const precis::cuda::DeviceBuffer& x, const Shape& s, const precis::cuda::DeviceBuffer& w,
                precis::cuda::DeviceBuffer& y) const {
        gemm.linear_bias(p, x.get(), s.rows, s.in, w.get(), s.out, f32.as<float>(), y.get(),
                         p == Precision::F32 ? nullptr : stored.get());
    }
    precis::cuda::DeviceBuffer f32, stored;
    Precision p;
};

// Multiplies on the device and on the CPU; returns the normalized error against the CPU
// result. A 16-bit output is compared with the CPU's float32 result rounded through the same
// precision: bf16's own output rounding (about 1.6e-3 normalized) is above the 1e-3 bound, and
// the product's error is what is measured here (the rounding is the storage format's, not the
// kernel's). A float32 output (logits) is compared with the CPU result as it is.
// With `with_bias`, y = x W^T + b through linear_bias (b float32, as the model's biases, and
// stored in p as DeviceLinear stores it), against the rounding of the path that ran: the
// epilogue's one rounding of the sum (of the bias in p when it read that one), or the
// product's rounding and then the bias kernel's.
double product_error(Gemm& gemm, Precision p, Precision out_p, const Shape& s, uint32_t seed,
                     bool with_bias = false) {
    const size_t nx = size_t(s.rows * s.in), nw = size_t(s.out * s.in), ny = size_t(s.rows * s.out);
    // Weights scaled as trained layers are (unit-variance outputs), so fp16 never overflows.
    const std::vector<float> x = rounded_to(p, gaussian(nx, seed));
    const std::vector<float> w = rounded_to(p, gaussian(nw, seed + 1, 1.f / std::sqrt(float(s.in))));

    precis::cuda::DeviceBuffer dx = precis::test::upload_as(p, x);
    precis::cuda::DeviceBuffer dw = precis::test::upload_as(p, w);
    precis::cuda::DeviceBuffer dy(ny * precis::cuda::bytes_of(out_p));
    const std::vector<float> b = gaussian(size_t(s.out), seed + 2, 0.5f);
    if (with_bias) DeviceBias(p, b).add_to(gemm, dx, s, dw, dy);
    else gemm.linear(p, dx.get(), s.rows, s.in, dw.get(), s.out, dy.get(), out_p);
    PRECIS_CUDA_CHECK(cudaStreamSynchronize(gemm.stream()));
    const std::vector<float> y = precis::test::download_as_f32(out_p, dy.get(), ny);
    return normalized_error(y, cpu_reference(gemm, p, out_p, s, x, w, with_bias ? &b : nullptr));
}

class GemmProduct : public ::testing::TestWithParam<Precision> {};

TEST_P(GemmProduct, LinearMatchesCpuOnOddAndModelShapes) {
    PRECIS_REQUIRE_GPU();
    const Precision p = GetParam();
    Gemm gemm(nullptr);
    const Shape shapes[] = {
        {7, 13, 5},       // nothing a multiple of anything
        {1, 1, 1},        // the smallest product
        {3, 5, 2},        // in below a vector width
        {1, 768, 768},    // one decoder token, bart-base attention projection
        {1, 1024, 4096},  // one token, bart-large fc1
        {33, 768, 3072},  // encoder fc1, rows not a multiple of 8
        {64, 1024, 1024},
        {130, 77, 19},
        {5, 3072, 768},  // fc2: long reduction
    };
    uint32_t seed = 1;
    for (const Shape& s : shapes) {
        SCOPED_TRACE(describe(s));
        EXPECT_LE(product_error(gemm, p, p, s, seed += 10), op_tolerance(p));
    }
}

// The bias in the product's epilogue (cuBLASLt) where it takes the shape, else the product and
// the bias kernel: either way the CPU's product plus bias. Which one ran is printed per shape
// (the device script's log shows it); at the encoder's float32 shapes it must be the epilogue.
TEST_P(GemmProduct, LinearWithBiasMatchesTheCpusProductPlusBias) {
    PRECIS_REQUIRE_GPU();
    const Precision p = GetParam();
    Gemm gemm(nullptr);
    const Shape shapes[] = {{7, 13, 5}, {1, 1, 1}, {1, 768, 768}, {33, 768, 3072}, {4096, 768, 768},
                            {130, 77, 19}, {16384, 768, 768}};
    uint32_t seed = 3;
    for (const Shape& s : shapes) {
        SCOPED_TRACE(describe(s));
        EXPECT_LE(product_error(gemm, p, p, s, seed += 10, true), op_tolerance(p));
        std::cout << precis::cuda::precision_name(p) << " " << describe(s) << ": bias "
                  << (!gemm.last_used_epilogue()      ? "by its own kernel"
                      : gemm.last_used_stored_bias() ? "in the epilogue (stored in the output's precision)"
                                                     : "in the epilogue (float32)")
                  << "\n";
        if (p == Precision::F32 && s.rows >= 4096) EXPECT_TRUE(gemm.last_used_epilogue());
    }
}

// The epilogue keeps one plan per shape and alignment, made with the first call's bias: each
// later call adds its own (a decoder step's products share shapes across layers, each layer
// with its bias). Two biases stay allocated so their addresses differ.
TEST_P(GemmProduct, EachCallOfOneShapeAddsItsOwnBias) {
    PRECIS_REQUIRE_GPU();
    const Precision p = GetParam();
    Gemm gemm(nullptr);
    const Shape s{4096, 768, 768};  // an encoder product: in the epilogue in float32 (checked)
    const std::vector<float> x = rounded_to(p, gaussian(size_t(s.rows * s.in), 5));
    const std::vector<float> w = rounded_to(p, gaussian(size_t(s.out * s.in), 6, 1.f / std::sqrt(float(s.in))));
    const std::vector<float> first = gaussian(size_t(s.out), 7, 0.5f), second = gaussian(size_t(s.out), 8, 0.5f);
    precis::cuda::DeviceBuffer dx = precis::test::upload_as(p, x), dw = precis::test::upload_as(p, w);
    precis::cuda::DeviceBuffer dy(size_t(s.rows * s.out) * precis::cuda::bytes_of(p));
    const DeviceBias b1(p, first), b2(p, second);
    b1.add_to(gemm, dx, s, dw, dy);
    const bool first_in_epilogue = gemm.last_used_epilogue();
    b2.add_to(gemm, dx, s, dw, dy);
    PRECIS_CUDA_CHECK(cudaStreamSynchronize(gemm.stream()));
    if (p == Precision::F32) EXPECT_TRUE(first_in_epilogue && gemm.last_used_epilogue());
    std::cout << precis::cuda::precision_name(p) << ": both calls " << (first_in_epilogue ? "in" : "not in")
              << " the epilogue\n";
    const std::vector<float> y = precis::test::download_as_f32(p, dy.get(), size_t(s.rows * s.out));
    EXPECT_LE(normalized_error(y, cpu_reference(gemm, p, p, s, x, w, &second)), op_tolerance(p));
}

// PRECIS_CUDA_EPILOGUES=0 (for comparing the two) gives the same products.
TEST_P(GemmProduct, TheEpilogueAndTheBiasKernelAgree) {
    PRECIS_REQUIRE_GPU();
    const Precision p = GetParam();
    const char* asked = std::getenv("PRECIS_CUDA_EPILOGUES");  // the device script's, if any
    const std::string before = asked ? asked : "";
    unsetenv("PRECIS_CUDA_EPILOGUES");
    Gemm with_epilogue(nullptr);
    setenv("PRECIS_CUDA_EPILOGUES", "0", 1);
    Gemm without(nullptr);
    if (asked) setenv("PRECIS_CUDA_EPILOGUES", before.c_str(), 1);
    else unsetenv("PRECIS_CUDA_EPILOGUES");
    for (const Shape& s : {Shape{4096, 768, 768}, Shape{9, 96, 40}}) {
        SCOPED_TRACE(describe(s));
        EXPECT_LE(product_error(with_epilogue, p, p, s, 77, true), op_tolerance(p));
        if (p == Precision::F32 && s.rows >= 4096) {
            EXPECT_TRUE(with_epilogue.last_used_epilogue());
        }
        EXPECT_LE(product_error(without, p, p, s, 77, true), op_tolerance(p));
        EXPECT_FALSE(without.last_used_epilogue());
    }
}

// The LM head: logits in float32 whatever the storage, over a vocabulary-sized output.
TEST_P(GemmProduct, LogitsInFloat32MatchCpuOverAVocabularySizedOutput) {
    PRECIS_REQUIRE_GPU();
    const Precision p = GetParam();
    Gemm gemm(nullptr);
    for (const Shape& s : {Shape{1, 768, 50265}, Shape{4, 64, 5027}}) {
        SCOPED_TRACE(describe(s));
        EXPECT_LE(product_error(gemm, p, Precision::F32, s, 500), op_tolerance(p));
    }
}

// One Gemm serves many products back to back on its own stream (the workspace is reused).
TEST_P(GemmProduct, RepeatedProductsOnANonDefaultStreamStayCorrect) {
    PRECIS_REQUIRE_GPU();
    const Precision p = GetParam();
    cudaStream_t stream = nullptr;
    PRECIS_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    {
        Gemm gemm(stream);
        EXPECT_EQ(gemm.stream(), stream);
        for (int i = 0; i < 3; ++i) {
            SCOPED_TRACE("product " + std::to_string(i));
            EXPECT_LE(product_error(gemm, p, p, Shape{9 + i, 96, 40 + i}, 900 + uint32_t(i)), op_tolerance(p));
        }
    }
    PRECIS_CUDA_CHECK(cudaStreamDestroy(stream));
}

TEST_P(GemmProduct, ZeroRowsLaunchNothing) {
    PRECIS_REQUIRE_GPU();
    Gemm gemm(nullptr);
    EXPECT_NO_THROW(gemm.linear(GetParam(), nullptr, 0, 768, nullptr, 768, nullptr));
    PRECIS_CUDA_CHECK(cudaDeviceSynchronize());
}

// cublasGemmEx has no fp32-input, 16-bit-output combination; it is refused with a clear
// precis::Error instead of a cuBLAS status.
TEST_P(GemmProduct, RejectsBadArgumentsBeforeCallingCublas) {
    PRECIS_REQUIRE_GPU();
    const Precision p = GetParam();
    Gemm gemm(nullptr);
    float dummy = 0.f;
    void* bogus = &dummy;  // never dereferenced: every check precedes the product
    EXPECT_THROW(gemm.linear(p, bogus, -1, 8, bogus, 8, bogus), precis::Error);
    EXPECT_THROW(gemm.linear(p, bogus, 2, 0, bogus, 8, bogus), precis::Error);
    EXPECT_THROW(gemm.linear(p, bogus, 2, 8, bogus, -8, bogus), precis::Error);
    EXPECT_THROW(gemm.linear(p, nullptr, 2, 8, bogus, 8, bogus), precis::Error);
    EXPECT_THROW(gemm.linear(p, bogus, 2, 8, nullptr, 8, bogus), precis::Error);
    EXPECT_THROW(gemm.linear(p, bogus, 2, 8, bogus, 8, nullptr), precis::Error);
    EXPECT_THROW(gemm.linear(p, bogus, int64_t(1) << 32, 8, bogus, 8, bogus), precis::Error);
    EXPECT_THROW(gemm.linear_bias(p, bogus, 2, 8, bogus, 8, nullptr, bogus), precis::Error);
    EXPECT_THROW(gemm.linear_bias(p, nullptr, 2, 8, bogus, 8, static_cast<float*>(bogus), bogus), precis::Error);
    if (p == Precision::F32) {
        EXPECT_THROW(gemm.linear(p, bogus, 2, 8, bogus, 8, bogus, Precision::F16), precis::Error);
        EXPECT_THROW(gemm.linear(p, bogus, 2, 8, bogus, 8, bogus, Precision::BF16), precis::Error);
    } else {
        const Precision other = p == Precision::F16 ? Precision::BF16 : Precision::F16;
        EXPECT_THROW(gemm.linear(p, bogus, 2, 8, bogus, 8, bogus, other), precis::Error);
    }
    PRECIS_CUDA_CHECK(cudaDeviceSynchronize());  // nothing was launched, nothing failed
}

INSTANTIATE_TEST_SUITE_P(AllPrecisions, GemmProduct,
                         ::testing::Values(Precision::F32, Precision::F16, Precision::BF16),
                         [](const ::testing::TestParamInfo<Precision>& info) {
                             return std::string(precis::cuda::precision_name(info.param));
                         });

// ---- host only: no GPU needed -----------------------------------------------------------------

// A Gemm owns a cuBLAS handle, so its argument checks cannot be reached without a device (the
// GPU case above covers them). Without one, creating it must fail cleanly: a precis::Error
// (DeviceError) naming the cuBLAS call, with nothing leaked and no crash. With a GPU the
// creation succeeds and the test checks only that.
TEST(GemmCreation, WithoutADeviceCreationThrowsPreciseErrorInsteadOfCrashing) {
    if (precis::test::why_no_gpu().empty()) {
        EXPECT_NO_THROW({ Gemm gemm(nullptr); });
        return;
    }
    EXPECT_THROW({ Gemm gemm(nullptr); }, precis::Error);
}

}  // namespace
