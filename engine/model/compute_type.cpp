#include "engine/model/compute_type.h"

#include "engine/core/error.h"

namespace precis {

const char* compute_type_name(ComputeType t) {
    switch (t) {
        case ComputeType::Fp32: return "fp32";
        case ComputeType::Int8: return "int8";
        case ComputeType::Fp16Weights: return "fp16-weights";
    }
    return "?";
}

ComputeType parse_compute_type(const std::string& s) {
    if (s == "fp32") return ComputeType::Fp32;
    if (s == "int8") return ComputeType::Int8;
    if (s == "fp16-weights") return ComputeType::Fp16Weights;
    throw Error("--compute-type must be fp32, int8 or fp16-weights, not '" + s + "'");
}

}  // namespace precis
