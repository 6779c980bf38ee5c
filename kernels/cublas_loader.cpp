// cuBLAS is loaded when the GPU is first used, not linked: the package and the GUI-less
// tools then run on machines without the CUDA toolkit (where the CPU backend takes over, and
// says so), and the .deb depends on no CUDA package. These definitions stand in for the few
// cuBLAS entry points the backend calls and forward to the library found at run time
// (libcublas.so.13, the CUDA 13 soname, else libcublas.so); without it every call reports
// CUBLAS_STATUS_NOT_INITIALIZED, which the backend turns into a sentence naming the library.
// cuBLASLt (the products with a bias epilogue, kernels/ops/gemm.h) is loaded the same way
// from libcublasLt; without it those products run as a plain product and a bias kernel.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <dlfcn.h>

#include <initializer_list>
#include <mutex>

namespace {

struct Cublas {
    void* lib = nullptr;
    decltype(&cublasCreate_v2) create = nullptr;
    decltype(&cublasDestroy_v2) destroy = nullptr;
    decltype(&cublasSetStream_v2) set_stream = nullptr;
    decltype(&cublasSetWorkspace_v2) set_workspace = nullptr;
    decltype(&cublasSetMathMode) set_math_mode = nullptr;
    decltype(&cublasGetStatusString) status_string = nullptr;
    cublasStatus_t (*gemm_ex)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                              const void*, cudaDataType, int, const void*, cudaDataType, int, const void*, void*,
                              cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t) = nullptr;
    bool ready() const { return create && destroy && set_stream && set_workspace && set_math_mode && gemm_ex; }
};

template <class F>
void bind(void* lib, const char* name, F& f) {
    f = reinterpret_cast<F>(dlsym(lib, name));
}

// The first of the sonames that loads (the CUDA 13 one, then the unversioned name); null
// when none does.
void* open_first(std::initializer_list<const char*> names) {
    for (const char* name : names)
        if (void* lib = dlopen(name, RTLD_NOW | RTLD_LOCAL)) return lib;
    return nullptr;
}

const Cublas& cublas() {
    static Cublas c;
    static std::once_flag once;
    std::call_once(once, [] {
        c.lib = open_first({"libcublas.so.13", "libcublas.so"});
        if (!c.lib) return;
        bind(c.lib, "cublasCreate_v2", c.create);
        bind(c.lib, "cublasDestroy_v2", c.destroy);
        bind(c.lib, "cublasSetStream_v2", c.set_stream);
        bind(c.lib, "cublasSetWorkspace_v2", c.set_workspace);
        bind(c.lib, "cublasSetMathMode", c.set_math_mode);
        bind(c.lib, "cublasGetStatusString", c.status_string);
        bind(c.lib, "cublasGemmEx", c.gemm_ex);
    });
    return c;
}

struct CublasLt {
    void* lib = nullptr;
    decltype(&cublasLtCreate) create = nullptr;
    decltype(&cublasLtDestroy) destroy = nullptr;
    decltype(&cublasLtMatmulDescCreate) desc_create = nullptr;
    decltype(&cublasLtMatmulDescDestroy) desc_destroy = nullptr;
    decltype(&cublasLtMatmulDescSetAttribute) desc_set = nullptr;
    decltype(&cublasLtMatrixLayoutCreate) layout_create = nullptr;
    decltype(&cublasLtMatrixLayoutDestroy) layout_destroy = nullptr;
    decltype(&cublasLtMatmulPreferenceCreate) pref_create = nullptr;
    decltype(&cublasLtMatmulPreferenceDestroy) pref_destroy = nullptr;
    decltype(&cublasLtMatmulPreferenceSetAttribute) pref_set = nullptr;
    decltype(&cublasLtMatmulAlgoGetHeuristic) heuristic = nullptr;
    decltype(&cublasLtMatmul) matmul = nullptr;
    bool ready() const {
        return create && destroy && desc_create && desc_destroy && desc_set && layout_create && layout_destroy &&
               pref_create && pref_destroy && pref_set && heuristic && matmul;
    }
};

const CublasLt& cublas_lt() {
    static CublasLt c;
    static std::once_flag once;
    std::call_once(once, [] {
        c.lib = open_first({"libcublasLt.so.13", "libcublasLt.so"});
        if (!c.lib) return;
        bind(c.lib, "cublasLtCreate", c.create);
        bind(c.lib, "cublasLtDestroy", c.destroy);
        bind(c.lib, "cublasLtMatmulDescCreate", c.desc_create);
        bind(c.lib, "cublasLtMatmulDescDestroy", c.desc_destroy);
        bind(c.lib, "cublasLtMatmulDescSetAttribute", c.desc_set);
        bind(c.lib, "cublasLtMatrixLayoutCreate", c.layout_create);
        bind(c.lib, "cublasLtMatrixLayoutDestroy", c.layout_destroy);
        bind(c.lib, "cublasLtMatmulPreferenceCreate", c.pref_create);
        bind(c.lib, "cublasLtMatmulPreferenceDestroy", c.pref_destroy);
        bind(c.lib, "cublasLtMatmulPreferenceSetAttribute", c.pref_set);
        bind(c.lib, "cublasLtMatmulAlgoGetHeuristic", c.heuristic);
        bind(c.lib, "cublasLtMatmul", c.matmul);
    });
    return c;
}

}  // namespace

// Each entry point forwards when its library loaded, else reports NOT_INITIALIZED.
#define PRECIS_FORWARD(library, member, ...) \
    const auto& c = library();              \
    return c.ready() ? c.member(__VA_ARGS__) : CUBLAS_STATUS_NOT_INITIALIZED

extern "C" {

cublasStatus_t CUBLASWINAPI cublasCreate_v2(cublasHandle_t* handle) {
    PRECIS_FORWARD(cublas, create, handle);
}

cublasStatus_t CUBLASWINAPI cublasDestroy_v2(cublasHandle_t handle) {
    PRECIS_FORWARD(cublas, destroy, handle);
}

cublasStatus_t CUBLASWINAPI cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream) {
    PRECIS_FORWARD(cublas, set_stream, handle, stream);
}

cublasStatus_t CUBLASWINAPI cublasSetWorkspace_v2(cublasHandle_t handle, void* workspace, size_t bytes) {
    PRECIS_FORWARD(cublas, set_workspace, handle, workspace, bytes);
}

cublasStatus_t CUBLASWINAPI cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode) {
    PRECIS_FORWARD(cublas, set_math_mode, handle, mode);
}

const char* CUBLASWINAPI cublasGetStatusString(cublasStatus_t status) {
    const Cublas& c = cublas();
    if (status == CUBLAS_STATUS_NOT_INITIALIZED && !c.ready())
        return "cuBLAS could not be loaded (libcublas.so.13 not found)";
    return c.status_string ? c.status_string(status) : "cuBLAS error";
}

cublasStatus_t CUBLASWINAPI cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                         int m, int n, int k, const void* alpha, const void* A, cudaDataType Atype,
                                         int lda, const void* B, cudaDataType Btype, int ldb, const void* beta,
                                         void* C, cudaDataType Ctype, int ldc, cublasComputeType_t computeType,
                                         cublasGemmAlgo_t algo) {
    PRECIS_FORWARD(cublas, gemm_ex, handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C,
                   Ctype, ldc, computeType, algo);
}

cublasStatus_t CUBLASWINAPI cublasLtCreate(cublasLtHandle_t* handle) { PRECIS_FORWARD(cublas_lt, create, handle); }

cublasStatus_t CUBLASWINAPI cublasLtDestroy(cublasLtHandle_t handle) { PRECIS_FORWARD(cublas_lt, destroy, handle); }

cublasStatus_t CUBLASWINAPI cublasLtMatmulDescCreate(cublasLtMatmulDesc_t* desc, cublasComputeType_t compute,
                                                     cudaDataType_t scale) {
    PRECIS_FORWARD(cublas_lt, desc_create, desc, compute, scale);
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t desc) {
    PRECIS_FORWARD(cublas_lt, desc_destroy, desc);
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t desc,
                                                           cublasLtMatmulDescAttributes_t attr, const void* buf,
                                                           size_t bytes) {
    PRECIS_FORWARD(cublas_lt, desc_set, desc, attr, buf, bytes);
}

cublasStatus_t CUBLASWINAPI cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t* layout, cudaDataType type,
                                                       uint64_t rows, uint64_t cols, int64_t ld) {
    PRECIS_FORWARD(cublas_lt, layout_create, layout, type, rows, cols, ld);
}

cublasStatus_t CUBLASWINAPI cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t layout) {
    PRECIS_FORWARD(cublas_lt, layout_destroy, layout);
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t* pref) {
    PRECIS_FORWARD(cublas_lt, pref_create, pref);
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref) {
    PRECIS_FORWARD(cublas_lt, pref_destroy, pref);
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t pref,
                                                                 cublasLtMatmulPreferenceAttributes_t attr,
                                                                 const void* buf, size_t bytes) {
    PRECIS_FORWARD(cublas_lt, pref_set, pref, attr, buf, bytes);
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,
                                                           cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
                                                           cublasLtMatrixLayout_t c_layout,
                                                           cublasLtMatrixLayout_t d, cublasLtMatmulPreference_t pref,
                                                           int requested, cublasLtMatmulHeuristicResult_t results[],
                                                           int* returned) {
    PRECIS_FORWARD(cublas_lt, heuristic, handle, desc, a, b, c_layout, d, pref, requested, results, returned);
}

cublasStatus_t CUBLASWINAPI cublasLtMatmul(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, const void* alpha,
                                           const void* A, cublasLtMatrixLayout_t a, const void* B,
                                           cublasLtMatrixLayout_t b, const void* beta, const void* C,
                                           cublasLtMatrixLayout_t c_layout, void* D, cublasLtMatrixLayout_t d,
                                           const cublasLtMatmulAlgo_t* algo, void* workspace, size_t bytes,
                                           cudaStream_t stream) {
    PRECIS_FORWARD(cublas_lt, matmul, handle, desc, alpha, A, a, B, b, beta, C, c_layout, D, d, algo, workspace,
                   bytes, stream);
}

#undef PRECIS_FORWARD

}  // extern "C"
