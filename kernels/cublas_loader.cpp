// cuBLAS is loaded when the GPU is first used, not linked: the package and the GUI-less
// tools then run on machines without the CUDA toolkit (where the CPU backend takes over, and
// says so), and the .deb depends on no CUDA package. These definitions stand in for the few
// cuBLAS entry points the backend calls and forward to the library found at run time
// (libcublas.so.13, the CUDA 13 soname, else libcublas.so); without it every call reports
// CUBLAS_STATUS_NOT_INITIALIZED, which the backend turns into a sentence naming the library.
#include <cublas_v2.h>
#include <dlfcn.h>

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

const Cublas& cublas() {
    static Cublas c;
    static std::once_flag once;
    std::call_once(once, [] {
        for (const char* name : {"libcublas.so.13", "libcublas.so"}) {
            c.lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
            if (c.lib) break;
        }
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

}  // namespace

extern "C" {

cublasStatus_t CUBLASWINAPI cublasCreate_v2(cublasHandle_t* handle) {
    const Cublas& c = cublas();
    return c.ready() ? c.create(handle) : CUBLAS_STATUS_NOT_INITIALIZED;
}

cublasStatus_t CUBLASWINAPI cublasDestroy_v2(cublasHandle_t handle) {
    const Cublas& c = cublas();
    return c.ready() ? c.destroy(handle) : CUBLAS_STATUS_NOT_INITIALIZED;
}

cublasStatus_t CUBLASWINAPI cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream) {
    const Cublas& c = cublas();
    return c.ready() ? c.set_stream(handle, stream) : CUBLAS_STATUS_NOT_INITIALIZED;
}

cublasStatus_t CUBLASWINAPI cublasSetWorkspace_v2(cublasHandle_t handle, void* workspace, size_t bytes) {
    const Cublas& c = cublas();
    return c.ready() ? c.set_workspace(handle, workspace, bytes) : CUBLAS_STATUS_NOT_INITIALIZED;
}

cublasStatus_t CUBLASWINAPI cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode) {
    const Cublas& c = cublas();
    return c.ready() ? c.set_math_mode(handle, mode) : CUBLAS_STATUS_NOT_INITIALIZED;
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
    const Cublas& c = cublas();
    return c.ready() ? c.gemm_ex(handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype,
                                 ldc, computeType, algo)
                     : CUBLAS_STATUS_NOT_INITIALIZED;
}

}  // extern "C"
