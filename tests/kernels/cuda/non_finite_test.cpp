// count_non_finite (kernels/ops/non_finite.h), the check behind --dtype auto's switch to bf16:
// it counts exactly the NaN and infinite values in fp32, fp16 and bf16, including values that
// became infinite only when rounded to fp16 (70000 > 65504), and adds to the count it is given.
#include "kernels/ops/non_finite.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "tests/kernels/cuda/cuda_test_support.h"

namespace precis {
namespace {

using cuda::Precision;

class NonFinite : public ::testing::TestWithParam<Precision> {};

TEST_P(NonFinite, CountsEveryNanAndInfinityAndNothingElse) {
    PRECIS_REQUIRE_GPU();
    const Precision p = GetParam();
    std::vector<float> x = test::gaussian(100003, 71, 100.f);  // an odd length: the tail too
    const float inf = std::numeric_limits<float>::infinity();
    for (size_t i : {size_t(0), size_t(17), size_t(4096), size_t(100002)}) x[i] = inf;
    x[5] = -inf;
    x[99999] = std::numeric_limits<float>::quiet_NaN();
    x[777] = 70000.f;  // finite in fp32 and bf16; infinite once rounded to fp16
    const int expected = 6 + (p == Precision::F16 ? 1 : 0);
    cuda::DeviceBuffer d = test::upload_as(p, x);
    cuda::DeviceBuffer count = cuda::upload(std::vector<int>{3});  // adds to what is there
    cuda::count_non_finite(p, d.get(), int64_t(x.size()), count.as<int>(), nullptr);
    PRECIS_CUDA_CHECK(cudaDeviceSynchronize());
    EXPECT_EQ(cuda::download<int>(count.get(), 1)[0], 3 + expected);
    // A finite buffer counts nothing; an empty one launches nothing.
    cuda::DeviceBuffer clean = test::upload_as(p, test::gaussian(5000, 72));
    cuda::DeviceBuffer zero = cuda::upload(std::vector<int>{0});
    cuda::count_non_finite(p, clean.get(), 5000, zero.as<int>(), nullptr);
    cuda::count_non_finite(p, nullptr, 0, zero.as<int>(), nullptr);
    PRECIS_CUDA_CHECK(cudaDeviceSynchronize());
    EXPECT_EQ(cuda::download<int>(zero.get(), 1)[0], 0);
}

INSTANTIATE_TEST_SUITE_P(EveryPrecision, NonFinite,
                         ::testing::Values(Precision::F32, Precision::F16, Precision::BF16),
                         [](const auto& info) { return std::string(cuda::precision_name(info.param)); });

// Host-only: bad arguments are refused before any CUDA call (runs without a GPU).
TEST(NonFiniteArguments, AreCheckedBeforeAnyCudaCall) {
    auto* x = reinterpret_cast<const void*>(uintptr_t(4096));
    auto* count = reinterpret_cast<int*>(uintptr_t(8192));
    test::expect_argument_error([&] { cuda::count_non_finite(Precision::F16, x, -1, count, nullptr); });
    test::expect_argument_error([&] { cuda::count_non_finite(Precision::F16, x, 10, nullptr, nullptr); });
    test::expect_argument_error([&] { cuda::count_non_finite(Precision::F16, nullptr, 10, count, nullptr); });
    test::expect_argument_error([&] { cuda::count_non_finite(Precision(42), x, 10, count, nullptr); });
}

}  // namespace
}  // namespace precis
