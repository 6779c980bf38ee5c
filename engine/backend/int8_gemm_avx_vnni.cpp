// The int8 GEMM micro-kernel for AVX-VNNI (256-bit vpdpbusd without AVX-512: Alder Lake
// and later laptop CPUs, Zen 5), int8_gemm_ymm.h compiled for that target.
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "engine/backend/int8_gemm_kernels.h"

// Only the functions marked with it are compiled for AVX-VNNI: no inline function shared
// with other files is built for an instruction set they may not have.
#define PRECIS_YMM_TARGET __attribute__((target("avxvnni")))
#include "engine/backend/int8_gemm_ymm.h"

namespace precis::int8_gemm_detail {

namespace {

struct DpbusdStep {
    PRECIS_YMM_TARGET static __m256i add(__m256i acc, __m256i u, __m256i w) {
        return _mm256_dpbusd_avx_epi32(acc, u, w);
    }
};

}  // namespace

// 6 rows: 12 accumulators, 2 weights and a broadcast of the 16 registers.
PRECIS_YMM_TARGET void run_panels_avx_vnni(const PanelBlock& b) { ymm_run_panels<DpbusdStep, 6>(b); }

}  // namespace precis::int8_gemm_detail
