// Gemm::linear_bias (gemm.h): the product and its bias in one cuBLASLt matmul. The layouts
// are linear()'s read column-major: D[out, rows] = op_T(A = W as [in, out], ld in) *
// B = X as [in, rows] (ld in), and the epilogue's bias has one value per row of D, that is per
// output feature. Float32 compute without TF32 in every precision, as linear(), and partial
// sums of a split reduction kept in float32: the epilogue adds the bias to the float32 sum
// before the one rounding to the output type (the bias kernel after linear() rounds twice),
// so fp32 results are the product's plus the bias. cuBLASLt documents a bias of the output's
// type; a float32 bias beside a 16-bit output is asked for first (one rounding fewer), and
// where the heuristic refuses it the bias stored in the output's type (DeviceLinear) is.
//
// Asking cuBLASLt's heuristic costs far more than the product's launch, so each shape's
// descriptors and chosen algorithm are kept (the encoder's few shapes per input length, the
// decoder's per batch); the bias pointer is set per call on the kept descriptor, which
// cuBLASLt reads when the product is issued (so a captured decoder step keeps its bias).
#include <cublasLt.h>

#include <cstdint>
#include <map>
#include <string>
#include <compare>

#include "engine/core/error.h"
#include "kernels/cuda_check.h"
#include "kernels/ops/elementwise.h"
#include "kernels/ops/gemm.h"

namespace precis::cuda {

namespace {

// Alignment the heuristic may assume of an address: the largest power of two dividing it, up
// to the 256 bytes cudaMalloc gives (an offset row of a buffer may have less).
uint32_t alignment_of(const void* ptr) {
    const uintptr_t a = reinterpret_cast<uintptr_t>(ptr);
    uint32_t align = 256;
    while (align > 1 && a % align != 0) align /= 2;
    return align;
}

bool ok(cublasStatus_t s) { return s == CUBLAS_STATUS_SUCCESS; }

// One shape's descriptors and algorithm; made once, destroyed with the Gemm.
struct Plan {
    cublasLtMatmulDesc_t desc = nullptr;
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
    cublasLtMatmulAlgo_t algo{};
    bool usable = false;       // false: cuBLASLt refused; this shape takes the fallback
    bool stored_bias = false;  // the bias is read in the output's type, not float32

    void release() {
        if (d) cublasLtMatrixLayoutDestroy(d);
        if (b) cublasLtMatrixLayoutDestroy(b);
        if (a) cublasLtMatrixLayoutDestroy(a);
        if (desc) cublasLtMatmulDescDestroy(desc);
        *this = Plan{};
    }
};

// One product's shape, and the alignments of x, W, y and the biases that the heuristic may
// assume (align_stored 0: no bias in the output's type was given).
struct PlanKey {
    Precision p;
    int64_t rows, in, out;
    uint32_t align_x, align_w, align_y, align_bias, align_stored;
    auto operator<=>(const PlanKey&) const = default;
};

// Plans kept at most: the encoder makes one set per input length, and a run of documents of
// many lengths should not grow this without bound.
constexpr size_t kMaxPlans = 256;

}  // namespace

struct Gemm::EpiloguePlans {
    cublasLtHandle_t handle = nullptr;
    std::map<PlanKey, Plan> plans;

    ~EpiloguePlans() {
        clear();
        if (handle) cublasLtDestroy(handle);
    }
    void clear() {
        for (auto& [key, plan] : plans) plan.release();
        plans.clear();
    }
};

void Gemm::EpiloguePlansDeleter::operator()(EpiloguePlans* plans) const { delete plans; }

namespace {

// Builds the descriptors of one shape and asks for an algorithm, its bias of `bias_type` at
// `bias` (the heuristic reads the pointer's alignment); any refusal leaves the plan unusable
// (never an error: the caller then tries the other bias type, or runs the product and the
// bias kernel).
Plan make_plan(cublasLtHandle_t handle, const PlanKey& key, size_t workspace_bytes, cudaDataType_t bias_type,
               const void* bias) {
    Plan plan;
    const auto [p, rows, in, out, align_x, align_w, align_y, align_bias, align_stored] = key;
    const cudaDataType_t type = cublas_data_type(p);
    const cublasOperation_t transa = CUBLAS_OP_T, transb = CUBLAS_OP_N;
    const cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
    bool made = ok(cublasLtMatmulDescCreate(&plan.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F)) &&
                ok(cublasLtMatmulDescSetAttribute(plan.desc, CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof(transa))) &&
                ok(cublasLtMatmulDescSetAttribute(plan.desc, CUBLASLT_MATMUL_DESC_TRANSB, &transb, sizeof(transb))) &&
                ok(cublasLtMatmulDescSetAttribute(plan.desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue,
                                                  sizeof(epilogue))) &&
                ok(cublasLtMatmulDescSetAttribute(plan.desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type,
                                                  sizeof(bias_type))) &&
                ok(cublasLtMatmulDescSetAttribute(plan.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias))) &&
                ok(cublasLtMatrixLayoutCreate(&plan.a, type, uint64_t(in), uint64_t(out), in)) &&
                ok(cublasLtMatrixLayoutCreate(&plan.b, type, uint64_t(in), uint64_t(rows), in)) &&
                ok(cublasLtMatrixLayoutCreate(&plan.d, type, uint64_t(out), uint64_t(rows), out));
    cublasLtMatmulPreference_t pref = nullptr;
    made = made && ok(cublasLtMatmulPreferenceCreate(&pref));
    const uint64_t ws = workspace_bytes;
    // A split reduction may add its parts in float32 only: in the output's type (in place, or
    // in the workspace) a bf16 output would round every partial sum.
    const uint32_t reductions = CUBLASLT_REDUCTION_SCHEME_NONE | CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
    made = made &&
           ok(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws))) &&
           ok(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &reductions,
                                                   sizeof(reductions))) &&
           ok(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &align_w,
                                                   sizeof(align_w))) &&
           ok(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &align_x,
                                                   sizeof(align_x))) &&
           ok(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &align_y,
                                                   sizeof(align_y))) &&
           ok(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &align_y,
                                                   sizeof(align_y)));
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    made = made && ok(cublasLtMatmulAlgoGetHeuristic(handle, plan.desc, plan.a, plan.b, plan.d, plan.d, pref, 1,
                                                     &result, &found)) &&
           found > 0 && ok(result.state);
    if (pref) cublasLtMatmulPreferenceDestroy(pref);
    if (!made) {
        plan.release();
        return plan;
    }
    plan.algo = result.algo;
    plan.usable = true;
    plan.stored_bias = bias_type != CUDA_R_32F;
    return plan;
}

// The plan to try after `rejected` (released here), which cuBLASLt would not take, at the
// heuristic or when the product was issued: a float32 bias is followed by the bias stored in
// a 16-bit output's type; after that, an unusable plan (the fallback).
Plan next_plan(cublasLtHandle_t handle, const PlanKey& key, size_t workspace_bytes, Plan& rejected,
               const void* stored_bias) {
    const bool had_stored = rejected.stored_bias;
    rejected.release();
    if (had_stored || !stored_bias || key.p == Precision::F32) return Plan{};
    return make_plan(handle, key, workspace_bytes, cublas_data_type(key.p), stored_bias);
}

// What cublasLtMatmul says, before it launches anything, of a combination the heuristic
// offered but this device or library will not run: the shape takes the fallback instead.
bool refused(cublasStatus_t s) {
    return s == CUBLAS_STATUS_NOT_SUPPORTED || s == CUBLAS_STATUS_INVALID_VALUE || s == CUBLAS_STATUS_ARCH_MISMATCH;
}

}  // namespace

bool Gemm::linear_bias_epilogue(Precision p, const void* x, int64_t rows, int64_t in, const void* w, int64_t out,
                                const float* bias, const void* stored_bias, void* y) {
    if (!epilogue_) {
        auto plans = std::unique_ptr<EpiloguePlans, EpiloguePlansDeleter>(new EpiloguePlans);
        if (!ok(cublasLtCreate(&plans->handle))) {
            plans->handle = nullptr;
            epilogues_ = false;  // no cuBLASLt here: every product takes the fallback from now on
            return false;
        }
        epilogue_ = std::move(plans);
    }
    const PlanKey key{p,
                      rows,
                      in,
                      out,
                      alignment_of(x),
                      alignment_of(w),
                      alignment_of(y),
                      alignment_of(bias),
                      stored_bias ? alignment_of(stored_bias) : 0u};
    auto it = epilogue_->plans.find(key);
    if (it == epilogue_->plans.end()) {
        if (epilogue_->plans.size() >= kMaxPlans) {
            // One goes, the others stay made: the one of the most rows, an encoder's shape of
            // one input length, not the decoder's steps that every document takes.
            auto most = epilogue_->plans.begin();
            for (auto other = most; other != epilogue_->plans.end(); ++other)
                if (other->first.rows > most->first.rows) most = other;
            most->second.release();
            epilogue_->plans.erase(most);
        }
        it = epilogue_->plans.emplace(key, make_plan(epilogue_->handle, key, workspace_.bytes(), CUDA_R_32F, bias))
                 .first;
        Plan& made = it->second;
        if (!made.usable) made = next_plan(epilogue_->handle, key, workspace_.bytes(), made, stored_bias);
    }
    Plan& plan = it->second;
    const float alpha = 1.f, beta = 0.f;
    auto issue = [&]() -> cublasStatus_t {
        const void* read = plan.stored_bias ? stored_bias : static_cast<const void*>(bias);
        PRECIS_CUBLAS_CHECK(
            cublasLtMatmulDescSetAttribute(plan.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &read, sizeof(read)));
        // The workspace is the cuBLAS handle's: both run on this one stream, one after the other.
        return cublasLtMatmul(epilogue_->handle, plan.desc, &alpha, w, plan.a, x, plan.b, &beta, y, plan.d, y, plan.d,
                              &plan.algo, workspace_.get(), workspace_.bytes(), stream_);
    };
    while (true) {
        if (!plan.usable) return false;  // the fallback, from now on for this shape
        const cublasStatus_t status = issue();
        if (!refused(status)) {
            PRECIS_CUBLAS_CHECK(status);
            break;
        }
        plan = next_plan(epilogue_->handle, key, workspace_.bytes(), plan, stored_bias);
    }
    last_used_stored_bias_ = plan.stored_bias;
    return true;
}

void Gemm::linear_bias(Precision p, const void* x, int64_t rows, int64_t in, const void* w, int64_t out,
                       const float* bias, void* y, const void* stored_bias) {
    check(bias != nullptr, "linear: the bias must not be null (use linear() for a product without one)");
    check_arguments(p, p, rows, in, out, x, w, y);
    last_used_epilogue_ = last_used_stored_bias_ = false;
    if (rows == 0) return;
    if (epilogues_) last_used_epilogue_ = linear_bias_epilogue(p, x, rows, in, w, out, bias, stored_bias, y);
    if (last_used_epilogue_) return;
    linear(p, x, rows, in, w, out, y);
    bias_activation(p, y, bias, rows, out, false, stream_);
}

}  // namespace precis::cuda
