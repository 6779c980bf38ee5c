#include "kernels/ops/precision.h"

#include "engine/core/error.h"

namespace precis::cuda {

Precision parse_precision(const std::string& name) {
    if (name == "fp32") return Precision::F32;
    if (name == "fp16") return Precision::F16;
    if (name == "bf16") return Precision::BF16;
    throw Error("--dtype must be fp32, fp16 or bf16, not '" + name + "'");
}

}  // namespace precis::cuda
