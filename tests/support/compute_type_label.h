#pragma once
// Test names for suites parameterized over compute types: "fp32", "int8", "fp16_weights".
#include <gtest/gtest.h>

#include <string>

#include "engine/model/compute_type.h"

namespace precis::test {

inline std::string compute_type_label(const ::testing::TestParamInfo<ComputeType>& info) {
    std::string name = compute_type_name(info.param);
    for (char& c : name)
        if (c == '-') c = '_';  // gtest names allow letters, digits and underscores only
    return name;
}

}  // namespace precis::test
