#include "engine/backend/int8_gemm_onednn.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <mutex>
#include <string>

#include "engine/backend/onednn_cpu.h"
#include "engine/core/error.h"

namespace precis::int8_gemm_detail {

namespace {

// Row-major [rows, cols] with a row stride: oneDNN's (rows, cols) dims and strides.
dnnl::memory::desc matrix(int64_t rows, int64_t cols, int64_t row_stride, dnnl::memory::data_type t) {
    return dnnl::memory::desc({rows, cols}, t, dnnl::memory::dims{row_stride, 1});
}

// The weights [out, in] row-major are the matmul's [in, out] with strides (1, in). oneDNN
// keeps created primitives in its own cache, so this costs microseconds after the first
// call of a shape.
dnnl::matmul::primitive_desc product(int64_t rows, int64_t in, int64_t ld, int64_t out) {
    using dt = dnnl::memory::data_type;
    const dnnl::memory::desc src = matrix(rows, in, ld, dt::u8);
    const dnnl::memory::desc weights({in, out}, dt::s8, dnnl::memory::dims{1, in});
    const dnnl::memory::desc dst = matrix(rows, out, out, dt::s32);
    return dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, weights, dst), onednn_cpu_engine());
}

}  // namespace

void onednn_u8s8_s32(const uint8_t* u, int64_t rows, int64_t in, int64_t ld, const int8_t* q, int64_t out,
                     int32_t* acc) {
    try {
        const dnnl::matmul::primitive_desc pd = product(rows, in, ld, out);
        dnnl::memory src(pd.src_desc(), onednn_cpu_engine(), const_cast<uint8_t*>(u));
        dnnl::memory weights(pd.weights_desc(), onednn_cpu_engine(), const_cast<int8_t*>(q));
        dnnl::memory dst(pd.dst_desc(), onednn_cpu_engine(), acc);
        dnnl::stream stream(onednn_cpu_engine());
        dnnl::matmul(pd).execute(stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}});
        stream.wait();
    } catch (const dnnl::error& e) {
        throw Error(std::string("the int8 product (oneDNN) failed: ") + e.what());
    }
}

const char* onednn_description() {
    static std::once_flag once;
    static std::string text;
    std::call_once(once, [] {
        const dnnl_version_t* v = dnnl_version();
        text = "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
        try {
            text += std::string(", ") + product(1024, 1024, 1024, 1024).impl_info_str();
        } catch (const dnnl::error&) {
        }
    });
    return text.c_str();
}

}  // namespace precis::int8_gemm_detail
