// The int8 GEMM micro-kernel for AVX2 without VNNI (int8_gemm_ymm.h).
#include <algorithm>

#define PRECIS_YMM_TARGET  // the engine's own target (x86-64-v3)
#include "engine/backend/int8_gemm_ymm.h"

namespace precis::int8_gemm_detail {

namespace {

struct MaddubsStep {
    static __m256i add(__m256i acc, __m256i u, __m256i w) {
        const __m256i pairs = _mm256_maddubs_epi16(u, w);
        return _mm256_add_epi32(acc, _mm256_madd_epi16(pairs, _mm256_set1_epi16(1)));
    }
};

}  // namespace

// 4 rows: 8 accumulators, 2 weights, a broadcast, the pair sums and the ones.
void run_panels_avx2(const PanelBlock& b) { ymm_run_panels<MaddubsStep, 4>(b); }

}  // namespace precis::int8_gemm_detail
