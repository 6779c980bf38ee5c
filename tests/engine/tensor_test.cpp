// Tensor storage (engine/core/tensor.h): buffers written whole from 2 MB up start on a 2 MB
// boundary (offered to transparent huge pages) while this process still offers them
// (huge_page_choice.h: a machine where fresh huge pages come slowly stops), everything else
// on 64 bytes, and all hold what is written to them.
#include <gtest/gtest.h>

#include <cstdint>

#include "engine/core/error.h"
#include "engine/core/huge_page_choice.h"
#include "engine/core/tensor.h"

namespace precis::test {
namespace {

TEST(Tensor, WrittenWholeBuffersFromOneHugePageUpStartOnAHugePageAndHoldEveryElement) {
    // 2 MB and one element more (one huge page and a tail on small pages), and 8 MB and one
    // more: every element usable.
    for (int64_t mb : {2, 8}) {
        const int64_t n = (mb << 20) / 4 + 1;
        const bool offered = huge_page_choice().offer();
        Tensor t = Tensor::empty_written_whole(DType::F32, {n});
        const uintptr_t alignment = offered ? uintptr_t(2) << 20 : 64;
        EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data<float>()) % alignment, 0u) << mb << " MB";
        float* p = t.data<float>();
        for (int64_t i = 0; i < n; ++i) p[i] = float(i % 1000);
        for (int64_t i = 0; i < n; i += 4097) ASSERT_EQ(p[i], float(i % 1000));
        EXPECT_EQ(p[n - 1], float((n - 1) % 1000));
        EXPECT_EQ(t.nbytes(), size_t(n) * 4);
    }
}

TEST(Tensor, OtherTensorsStartOnACacheLine) {
    for (int64_t n : {int64_t(1), int64_t(17), int64_t(1) << 20, int64_t(3) << 20}) {
        for (Tensor t : {Tensor::zeros(DType::F32, {n}), Tensor::empty_written_whole(DType::F32, {n})}) {
            EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data<float>()) % 64, 0u);
            t.data<float>()[n - 1] = 1.f;
            EXPECT_EQ(t.data<float>()[n - 1], 1.f);
        }
    }
}

TEST(Tensor, HugePageBuffersRefuseNegativeAndImpossibleShapes) {
    EXPECT_THROW(Tensor::empty_written_whole(DType::F32, {-1}), Error);
    EXPECT_THROW(Tensor::empty_written_whole(DType::F32, {int64_t(1) << 40, int64_t(1) << 30}), Error);
}

}  // namespace
}  // namespace precis::test
