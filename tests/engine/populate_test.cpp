// Page tables filled ahead of writing (engine/core/populate.h): the whole pages of the
// range become resident, what they held is kept, pages outside the range are left alone,
// and the buffers Tensor::empty_written_whole hands out are resident before any write.
#include <gtest/gtest.h>
#include <omp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/core/populate.h"
#include "engine/core/tensor.h"

namespace precis::test {
namespace {

const size_t kPage = size_t(sysconf(_SC_PAGESIZE));

// Which of the pages starting at `p` (page-aligned) are resident.
std::vector<bool> resident_pages(const void* p, size_t pages) {
    std::vector<unsigned char> in(pages);
    EXPECT_EQ(mincore(const_cast<void*>(p), pages * kPage, in.data()), 0);
    std::vector<bool> out(pages);
    for (size_t i = 0; i < pages; ++i) out[i] = in[i] & 1;
    return out;
}

class FreshPages : public ::testing::Test {
protected:
    static constexpr size_t kPages = 64;
    void SetUp() override {
        void* p = mmap(nullptr, kPages * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        ASSERT_NE(p, MAP_FAILED);
        base = static_cast<char*>(p);
    }
    void TearDown() override { munmap(base, kPages * kPage); }
    char* base = nullptr;
};

TEST_F(FreshPages, TheWholePagesOfTheRangeBecomeResidentAndKeepWhatTheyHeld) {
    base[5 * kPage + 7] = 42;  // one page already written
    // From the middle of page 2 to the middle of page 40: pages 3-39 are whole.
    if (!populate_for_writing(base + 2 * kPage + kPage / 2, 38 * kPage))
        GTEST_SKIP() << "this kernel has no MADV_POPULATE_WRITE (Linux 5.14+): pages fault in as they are written";
    const std::vector<bool> in = resident_pages(base, kPages);
    for (size_t i = 3; i < 40; ++i) EXPECT_TRUE(in[i]) << "page " << i;
    for (size_t i : {size_t(0), size_t(1), size_t(2), size_t(40), size_t(41), kPages - 1})
        EXPECT_FALSE(in[i]) << "page " << i << " lies outside the whole pages of the range";
    EXPECT_EQ(base[5 * kPage + 7], 42);
    EXPECT_EQ(base[6 * kPage], 0);  // fresh memory still reads as zeros
}

TEST_F(FreshPages, ARangeWithinOnePageDoesNothing) {
    EXPECT_FALSE(populate_for_writing(base + 10, kPage - 20));
    EXPECT_FALSE(resident_pages(base, 1)[0]);
}

// 40 MB (a long document's cross-attention keys and values) is shared by the team's
// threads at huge-page boundaries; from an odd page to an odd page, so the first and last
// parts are not whole huge pages.
TEST(LargeRanges, SharedOverTheTeamBecomeWhollyResidentAndKeepWhatTheyHeld) {
    omp_set_num_threads(2);
    const size_t pages = (size_t(40) << 20) / kPage;
    char* p = static_cast<char*>(
        mmap(nullptr, (pages + 2) * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    ASSERT_NE(p, MAP_FAILED);
    p[(pages / 2) * kPage + 3] = 7;  // a page already written, where the parts meet
    const bool done = populate_for_writing(p + kPage, pages * kPage);
    const std::vector<bool> in = resident_pages(p, pages + 2);
    const char kept = p[(pages / 2) * kPage + 3];
    munmap(p, (pages + 2) * kPage);
    if (!done) GTEST_SKIP() << "this kernel has no MADV_POPULATE_WRITE (Linux 5.14+)";
    for (size_t i = 1; i <= pages; ++i) ASSERT_TRUE(in[i]) << "page " << i << " of " << pages;
    EXPECT_EQ(kept, 7);
}

TEST(WrittenWholeTensors, AreResidentBeforeAnyWrite) {
    // 1 MB: below the huge-page size, so only populating can make it resident at once.
    Tensor t = Tensor::empty_written_whole(DType::F32, {int64_t(1) << 18});
    const uintptr_t start = (reinterpret_cast<uintptr_t>(t.data<float>()) + kPage - 1) / kPage * kPage;
    const size_t pages = (reinterpret_cast<uintptr_t>(t.data<float>()) + t.nbytes() - start) / kPage;
    {  // probe whether the kernel can populate at all, on memory of our own
        void* probe = mmap(nullptr, 2 * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        ASSERT_NE(probe, MAP_FAILED);
        const bool can = populate_for_writing(probe, 2 * kPage);
        munmap(probe, 2 * kPage);
        if (!can) GTEST_SKIP() << "this kernel has no MADV_POPULATE_WRITE (Linux 5.14+)";
    }
    const std::vector<bool> in = resident_pages(reinterpret_cast<const void*>(start), pages);
    for (size_t i = 0; i < pages; ++i) ASSERT_TRUE(in[i]) << "page " << i << " of " << pages;
}

}  // namespace
}  // namespace precis::test
