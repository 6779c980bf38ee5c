#pragma once
// The one oneDNN CPU engine the engine's oneDNN primitives run on (the int8 product, the
// bf16 attention products).
#include <oneapi/dnnl/dnnl.hpp>

namespace precis {

inline dnnl::engine& onednn_cpu_engine() {
    static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    return engine;
}

}  // namespace precis
