// The float32 product of a decoding step's 17 to 128 rows (fp32_step_gemm.h): against a
// double reference over the shapes its blocking splits (64- and 32-row blocks, a last block
// of up to 16, groups of 12 weight rows, their halves and tails, column parts of two
// threads), and the property a batch of documents relies on: each output is one sum over k
// in order, so a row gets the same bits whichever rows share its step.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "engine/backend/backend.h"
#include "engine/backend/fp32_step_gemm.h"
#include "engine/backend/lowp_linear.h"
#include "tests/support/numeric.h"

namespace precis::test {
namespace {

// Products in double of `rows` rows of x with the weight rows, without bias.
std::vector<double> double_reference(const std::vector<float>& x, int64_t rows, int64_t in, const std::vector<float>& w,
                                     int64_t out) {
    std::vector<double> ref(size_t(rows * out));
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t o = 0; o < out; ++o) {
            double s = 0.0;
            for (int64_t i = 0; i < in; ++i) s += double(x[size_t(r * in + i)]) * w[size_t(o * in + i)];
            ref[size_t(r * out + o)] = s;
        }
    return ref;
}

TEST(Fp32StepGemm, MatchesADoubleReferenceOverRowBlocksColumnGroupsAndTails) {
    if (!fp32_zmm_kernels()) GTEST_SKIP() << "this CPU has no AVX-512 (or PRECIS_NO_ZMM is set)";
    set_cpu_threads(2);
    // Rows: one, a partial and a full 16-row block, 32-row blocks with and without a
    // 16-row remainder, 64-row blocks alone and followed by smaller ones. Outputs: fewer
    // than one group of 12 (3 and 5: fewer than its half of 6 too), groups and a tail,
    // parts of two threads. Inputs: odd lengths, bart-base's and its feed-forward width.
    constexpr int64_t kMostRows = 128;
    for (const int64_t in : {7, 37, 768, 3072})
        for (const int64_t out : {3, 5, 12, 250, 1000}) {
            // Each row count takes the first rows of the same inputs, so the reference is
            // computed once for the most rows (the sanitizer build spends its time here).
            const std::vector<float> w = gaussian(size_t(out * in), 31, 0.05f), x = gaussian(size_t(kMostRows * in), 32),
                                     b = gaussian(size_t(out), 33);
            const std::vector<double> products = double_reference(x, kMostRows, in, w, out);
            for (const int64_t rows : {1, 9, 16, 17, 31, 32, 33, 48, 64, 100, 128}) {
                SCOPED_TRACE(::testing::Message() << "rows " << rows << " in " << in << " out " << out);
                for (const bool with_bias : {true, false}) {
                    const float* bias = with_bias ? b.data() : nullptr;
                    std::vector<float> y(size_t(rows * out), NAN), ref(y.size());
                    fp32_step_gemm(x.data(), rows, in, w.data(), bias, out, y.data());
                    for (size_t i = 0; i < ref.size(); ++i)
                        ref[i] = float(products[i] + (bias ? double(bias[int64_t(i) % out]) : 0.0));
                    EXPECT_LT(normalized_error(y, ref), 1e-6) << (with_bias ? "with bias" : "without bias");
                    for (size_t i = 0; i < y.size(); ++i)
                        ASSERT_TRUE(std::isfinite(y[i])) << "output " << i << " was not written";
                }
            }
        }
}

TEST(Fp32StepGemm, ARowGetsTheSameBitsWhicheverRowsShareItsStep) {
    if (!fp32_zmm_kernels()) GTEST_SKIP() << "this CPU has no AVX-512 (or PRECIS_NO_ZMM is set)";
    set_cpu_threads(2);
    const int64_t in = 768, out = 250, most = 128;
    const std::vector<float> w = gaussian(size_t(out * in), 41, 0.05f), x = gaussian(size_t(most * in), 42),
                             b = gaussian(size_t(out), 43);
    std::vector<float> all(size_t(most * out));
    fp32_step_gemm(x.data(), most, in, w.data(), b.data(), out, all.data());
    // The same rows in smaller steps, starting anywhere: in a 64- or a 32-row block, in the
    // last block of up to 16, at another position of a register.
    for (const int64_t rows : {17, 20, 33, 64, 127})
        for (const int64_t first : {int64_t(0), int64_t(1), most - rows}) {
            std::vector<float> some(size_t(rows * out));
            fp32_step_gemm(x.data() + first * in, rows, in, w.data(), b.data(), out, some.data());
            EXPECT_EQ(some, std::vector<float>(all.begin() + first * out, all.begin() + (first + rows) * out))
                << rows << " rows from row " << first;
        }
}

// 16 rows are the streamed GEMV's, 17 to 128 this product's (compared bit for bit; past
// 128 sgemm's, which on a short input can sum in the same order, so it is not compared).
TEST(Fp32StepGemm, TheCpuBackendGivesAStepOf17To128RowsToIt) {
    if (!fp32_zmm_kernels()) GTEST_SKIP() << "this CPU has no AVX-512 (or PRECIS_NO_ZMM is set)";
    set_cpu_threads(2);
    const int64_t in = 300, out = 60;
    const std::vector<float> w = gaussian(size_t(out * in), 51, 0.05f), x = gaussian(size_t(128 * in), 52),
                             b = gaussian(size_t(out), 53);
    auto be = make_cpu_backend();
    for (const int64_t rows : {16, 17, 64, 128}) {
        std::vector<float> via_backend(size_t(rows * out)), direct(via_backend.size());
        be->linear(x.data(), rows, in, w.data(), b.data(), out, via_backend.data());
        if (rows <= kLowpGemvMaxRows)
            lowp_gemv(x.data(), rows, in, WeightRef{WeightFormat::F32, w.data(), nullptr}, b.data(), out, direct.data());
        else
            fp32_step_gemm(x.data(), rows, in, w.data(), b.data(), out, direct.data());
        EXPECT_EQ(via_backend, direct) << rows << " rows";
    }
}

}  // namespace
}  // namespace precis::test
