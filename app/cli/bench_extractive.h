#pragma once
// `precis bench --method extractive FILE...` (see bench_extractive.cpp).
#include "app/cli/arguments.h"

namespace precis::cli {

int bench_extractive(const Arguments& args);

}  // namespace precis::cli
