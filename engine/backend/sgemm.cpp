#include "engine/backend/sgemm.h"

#include <cblas.h>
#include <oneapi/dnnl/dnnl.h>
#include <omp.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "engine/core/error.h"

namespace precis {

namespace {

Fp32Gemm initial_choice() {
    const Fp32Gemm fastest = __builtin_cpu_supports("avx512f") ? Fp32Gemm::OneDnn : Fp32Gemm::OpenBlas;
    const char* asked = std::getenv("PRECIS_FP32_GEMM");
    if (!asked || !*asked) return fastest;
    for (Fp32Gemm g : {Fp32Gemm::OpenBlas, Fp32Gemm::OneDnn})
        if (std::strcmp(asked, fp32_gemm_name(g)) == 0) return g;
    std::fprintf(stderr, "precis: PRECIS_FP32_GEMM=%s is not openblas or onednn; using %s\n", asked,
                 fp32_gemm_name(fastest));
    return fastest;
}

std::atomic<Fp32Gemm>& choice() {
    static std::atomic<Fp32Gemm> g{initial_choice()};
    return g;
}

}  // namespace

const char* fp32_gemm_name(Fp32Gemm g) { return g == Fp32Gemm::OneDnn ? "onednn" : "openblas"; }

Fp32Gemm fp32_gemm_in_use() { return choice().load(std::memory_order_relaxed); }

void set_fp32_gemm(Fp32Gemm g) { choice().store(g); }

void sgemm(bool b_transposed, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda, const float* b,
           int64_t ldb, float beta, float* c, int64_t ldc) {
    if (m <= 0 || n <= 0) return;
    if (fp32_gemm_in_use() == Fp32Gemm::OpenBlas || !omp_in_parallel()) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, b_transposed ? CblasTrans : CblasNoTrans, int(m), int(n), int(k), alpha,
                    a, int(lda), b, int(ldb), beta, c, int(ldc));
        return;
    }
    const dnnl_status_t st =
        dnnl_sgemm('N', b_transposed ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    if (st != dnnl_success)
        throw Error("the float32 product (oneDNN sgemm, " + std::to_string(m) + "x" + std::to_string(n) + "x" +
                    std::to_string(k) + ") failed with status " + std::to_string(int(st)));
}

}  // namespace precis
